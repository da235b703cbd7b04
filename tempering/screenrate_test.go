package tempering

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// TestEvalsPerTransition checks the estimate of a screened independence
// kernel's evaluations per transition against the screen's acceptance
// rates computed without the kernel: with draws x, y from the proposal q
// and the screen's weight w = π̃/q, an independence proposal passes at
// the rate E[min(w(x), w(y))]/E[w], and a random-walk step from x ~ π̃ at
// E[w(x)·min(1, π̃(x′)/π̃(x))]/E[w].
func TestEvalsPerTransition(t *testing.T) {
	s := misfitSurrogate()
	center := []float64{0.9, -0.4, 0.4}
	cov := []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}
	k := Independence{Center: center, Cov: cov, DF: 4, Local: 1, Screen: s}
	got, err := k.EvalsPerTransition(rand.New(rand.NewPCG(1, 2)), 10000)
	if err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	q, ok := distmv.NewStudentsT(center, mat.NewSymDense(3, cov), 4, rng)
	if !ok {
		t.Fatal("scale matrix")
	}
	z := make([]float64, 3)
	logW := func(x []float64) float64 { return s.LogDensity(x, z) - q.LogProb(x) }
	const n = 40000
	var sw, ind, loc float64
	y := make([]float64, 3)
	for range n {
		x := q.Rand(nil)
		wx := math.Exp(logW(x))
		sw += wx
		ind += min(wx, math.Exp(logW(q.Rand(nil))))
		for i := range y {
			y[i] = x[i] + 2.38/math.Sqrt(3)*math.Sqrt(0.02)*rng.NormFloat64()
		}
		loc += wx * math.Exp(min(0, s.LogDensity(y, z)-s.LogDensity(x, z)))
	}
	want := (ind + loc) / sw
	t.Logf("evaluations per transition %.3f, from the rates %.3f", got, want)
	if math.Abs(got-want) > 0.03 {
		t.Errorf("evaluations per transition %.3f, want %.3f (independence %.3f, local %.3f)", got, want, ind/sw, loc/sw)
	}
	k.Screen = nil
	if n, err := k.EvalsPerTransition(nil, 0); err != nil || n != 2 {
		t.Errorf("without a screen: %v, %v; want 2", n, err)
	}
}
