package fit

import (
	"math"
	"testing"
)

func TestFitExponent(t *testing.T) {
	ns := []int{128, 256, 512, 1024, 2048}
	secs := make([]float64, len(ns))
	for i, n := range ns {
		secs[i] = 3e-9 * math.Pow(float64(n), 2.9)
	}
	a, c := FitExponent(ns, secs)
	if math.Abs(a-2.9) > 1e-12 || math.Abs(c-3e-9) > 1e-20 {
		t.Errorf("exact power law: α = %v, c = %v", a, c)
	}
	// Multiplicative noise symmetric in log space leaves the fit unbiased.
	noisy := append([]float64(nil), secs...)
	for i := range noisy {
		noisy[i] *= math.Exp(0.1 * float64(1-2*(i%2)))
	}
	if a, _ := FitExponent(ns[:4], noisy[:4]); math.Abs(a-2.9) > 0.1 {
		t.Errorf("noisy: α = %v", a)
	}
	for _, bad := range []struct {
		ns   []int
		secs []float64
	}{
		{[]int{1}, []float64{1}},
		{[]int{1, 2}, []float64{1}},
		{[]int{4, 4}, []float64{1, 2}},
		{[]int{1, 2}, []float64{0, 1}},
		{[]int{0, 2}, []float64{1, 1}},
	} {
		if a, c := FitExponent(bad.ns, bad.secs); !math.IsNaN(a) || !math.IsNaN(c) {
			t.Errorf("%v %v: %v %v, want NaN", bad.ns, bad.secs, a, c)
		}
	}
}
