package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKSUniform checks the statistic on a hand-computed case and the
// p-value against the Kolmogorov distribution's tabulated quantiles
// (P(K > 1.3581) = 0.05, P(K > 1.6276) = 0.01), then its behaviour on
// uniform and non-uniform samples.
func TestKSUniform(t *testing.T) {
	// Sorted 0.1, 0.5, 0.6: i/n − x = 0.233, 0.167, 0.4; x − (i−1)/n = 0.1, 0.167, −0.067.
	if d, _ := KSUniform([]float64{0.6, 0.1, 0.5}); math.Abs(d-0.4) > 1e-12 {
		t.Errorf("D = %v, want 0.4", d)
	}
	for _, c := range []struct{ t, p float64 }{{1.3581, 0.05}, {1.6276, 0.01}, {1.2238, 0.10}} {
		if q := kolmogorovQ(c.t); math.Abs(q-c.p) > 2e-4 {
			t.Errorf("P(K > %v) = %v, want %v", c.t, q, c.p)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rejected := 0
	for range 200 {
		u := make([]float64, 500)
		for i := range u {
			u[i] = rng.Float64()
		}
		if _, p := KSUniform(u); p < 0.05 {
			rejected++
		}
	}
	// Binomial(200, 0.05): mean 10, sd 3.1.
	if rejected < 2 || rejected > 20 {
		t.Errorf("%d of 200 uniform samples rejected at 5%%, want about 10", rejected)
	}
	u := make([]float64, 500)
	for i := range u {
		u[i] = math.Sqrt(rng.Float64()) // density 2x
	}
	if _, p := KSUniform(u); p > 1e-6 {
		t.Errorf("p = %v for a sample of density 2x, want tiny", p)
	}
}
