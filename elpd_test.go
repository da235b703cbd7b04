package subtemper

import (
	"math"
	"testing"
)

// TestELPDDiff: the difference is the sum of the pointwise differences,
// its standard error √N times their sd (with N − 1 in the variance, as
// loo_compare); points of unequal number are an error.
func TestELPDDiff(t *testing.T) {
	a := []float64{-1, -2, -0.5, -1.5}
	b := []float64{-1.5, -2, -1, -1}
	d, se, err := ELPDDiff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// a − b = 0.5, 0, 0.5, −0.5: sum 0.5, mean 0.125, Σ(x − mean)² = 0.6875.
	if want := math.Sqrt(4 * 0.6875 / 3); math.Abs(d-0.5) > 1e-15 || math.Abs(se-want) > 1e-15 {
		t.Errorf("diff %v ± %v, want 0.5 ± %v", d, se, want)
	}
	if _, _, err := ELPDDiff(a, b[:3]); err == nil {
		t.Error("4 points against 3: no error")
	}
}
