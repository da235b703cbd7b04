package subtemper

import (
	"math"
	"testing"

	"github.com/subtemper/subtemper/gp"
)

// TestNatural: θ = exp(u) with the standardisation undone: a length
// scale times its input's sd, σf and σn times the target's sd.
func TestNatural(t *testing.T) {
	f := &GPFit{Std: gp.Standardization{XMean: []float64{1, -2}, XSD: []float64{2, 0.5}, YMean: 3, YSD: 4}}
	u := []float64{0.1, -0.3, 0.2, -1}
	got := make([]float64, 4)
	f.Natural(got, u)
	want := []float64{2 * math.Exp(0.1), 0.5 * math.Exp(-0.3), 4 * math.Exp(0.2), 4 * math.Exp(-1)}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-14*want[i] {
			t.Errorf("θ_%d = %v, want %v", i, got[i], want[i])
		}
	}
}
