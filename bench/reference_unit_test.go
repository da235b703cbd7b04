package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWeighedMeans checks the importance-sampling reference's estimator on
// a known posterior: N((1, −1), I) weighed from draws of N(0, 2²I). The
// means must lie within 4 of their standard errors of the truth, and the
// standard errors must be those of the estimator: over repeated runs the
// errors' spread matches them.
func TestWeighedMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	truth := []float64{1, -1}
	const n, reps = 4000, 40
	var sq, se2 [2]float64
	for range reps {
		vs := make([][]float64, n)
		lw := make([]float64, n)
		for i := range vs {
			v := []float64{2 * rng.NormFloat64(), 2 * rng.NormFloat64()}
			vs[i] = v
			for j, x := range v {
				lw[i] += -0.5*(x-truth[j])*(x-truth[j]) + 0.5*x*x/4
			}
		}
		ref := weighedMeans(lw, vs)
		for j := range truth {
			e := ref.Means[j] - truth[j]
			if math.Abs(e) > 4*ref.SE[j] {
				t.Fatalf("mean %d: %.4f, %.1f standard errors (%.4f) from %v", j, ref.Means[j], e/ref.SE[j], ref.SE[j], truth[j])
			}
			sq[j] += e * e / reps
			se2[j] += ref.SE[j] * ref.SE[j] / reps
		}
		if !(ref.ESS > 0.2*n && ref.ESS < 0.8*n) {
			t.Fatalf("importance ESS %.0f of %d draws", ref.ESS, n)
		}
	}
	for j := range truth {
		// The mean squared error over 40 runs estimates the variance to
		// about ±45% (at 4 sd of a χ²₄₀/40).
		if r := sq[j] / se2[j]; r < 0.4 || r > 1.9 {
			t.Errorf("mean %d: squared error %.3g over the squared standard errors' %.3g (ratio %.2f)", j, sq[j], se2[j], r)
		}
	}
}
