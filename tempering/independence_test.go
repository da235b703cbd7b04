package tempering

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// TestIndependenceWideDensity checks the mixture proposal's log density
// against gonum's multivariate t: differences of logQ between points must
// equal those of log((1−w)·t(C, S) + w·t(C, k·S)), normalising constants
// included.
func TestIndependenceWideDensity(t *testing.T) {
	center := []float64{0.3, -1, 2}
	cov := []float64{2, 0.3, 0, 0.3, 1, -0.2, 0, -0.2, 0.5}
	const scale, df, wide, wideScale = 1.5, 3.0, 0.2, 4.0
	lk, err := Independence{Center: center, Cov: cov, Scale: scale, DF: df, Wide: wide, WideScale: wideScale}.NewLevel(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := lk.(*indepLevel)
	sym := func(f float64) *mat.SymDense {
		s := mat.NewSymDense(3, nil)
		for i := range 3 {
			for j := i; j < 3; j++ {
				s.SetSym(i, j, f*cov[i*3+j])
			}
		}
		return s
	}
	narrow, ok1 := distmv.NewStudentsT(center, sym(scale), df, nil)
	broad, ok2 := distmv.NewStudentsT(center, sym(scale*wideScale), df, nil)
	if !ok1 || !ok2 {
		t.Fatal("scale matrices not positive definite")
	}
	ref := func(u []float64) float64 {
		a := math.Log1p(-wide) + narrow.LogProb(u)
		b := math.Log(wide) + broad.LogProb(u)
		return math.Max(a, b) + math.Log1p(math.Exp(-math.Abs(a-b)))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	base := []float64{0, 0, 0}
	for k := range 20 {
		u := make([]float64, 3)
		for i := range u {
			u[i] = center[i] + float64(k%5+1)*rng.NormFloat64()
		}
		got := l.logQ(u, l.split) - l.logQ(base, l.split)
		want := ref(u) - ref(base)
		if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("point %d: logQ difference %.12g, gonum's %.12g", k, got, want)
		}
	}
}

// TestIndependenceWideSettings checks that bad mixture settings are
// refused.
func TestIndependenceWideSettings(t *testing.T) {
	for _, k := range []Independence{{Wide: -0.1}, {Wide: 1}, {Wide: math.NaN()}, {Wide: 0.1, WideScale: 0.5}, {Wide: 0.1, WideScale: math.Inf(1)}} {
		k.Center, k.Cov = []float64{0}, []float64{1}
		if _, err := k.NewLevel(1, 1); err == nil {
			t.Errorf("%+v: no error", k)
		}
	}
}

// symmetricQ is Independence with the split left out of the proposal's
// density but not out of its draws: a broken variant for
// TestExactnessDetectsBrokenRatio.
type symmetricQ struct{ Independence }

func (k symmetricQ) NewLevel(dim int, beta float64) (LevelKernel, error) {
	l, err := k.Independence.NewLevel(dim, beta)
	if err != nil {
		return nil, err
	}
	return symmetricQLevel{l.(*indepLevel)}, nil
}

// symmetricQLevel draws from the split-t but weighs by the unsplit t.
type symmetricQLevel struct{ *indepLevel }

func (l symmetricQLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := l.independent(rng, d, s, nil, l.screen)
	for range l.local {
		l.localStep(rng, d, s, l.screen)
	}
	return info
}

// unscreened is Independence whose delayed acceptance forgets, in its
// second stage, to divide the exact ratio by the screen's: a broken
// variant for TestExactnessDetectsBrokenRatio.
type unscreened struct{ Independence }

func (k unscreened) NewLevel(dim int, beta float64) (LevelKernel, error) {
	l, err := k.Independence.NewLevel(dim, beta)
	if err != nil {
		return nil, err
	}
	return unscreenedLevel{l.(*indepLevel)}, nil
}

type unscreenedLevel struct{ *indepLevel }

func (l unscreenedLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := l.independent(rng, d, s, l.split, nil)
	for range l.local {
		l.localStep(rng, d, s, nil)
	}
	return info
}
