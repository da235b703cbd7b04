package gp

import (
	"math"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// TestLOOLogDensitiesRefit checks the closed-form leave-one-out densities
// against the GP with observation i removed: log p(y_i | y_−i, θ) =
// log p(y) − log p(y_−i) at the same θ.
func TestLOOLogDensitiesRefit(t *testing.T) {
	for _, kern := range []Kernel{SE, Matern52} {
		data, _, err := Synthetic(25, 2, 3, Prior{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(linalg.Default(), data, Options{Kernel: kern})
		if err != nil {
			t.Fatal(err)
		}
		u := []float64{0.2, -0.1, 0.3, -1.2}
		got := make([]float64, data.N)
		if err := m.LOOLogDensities(u, got); err != nil {
			t.Fatal(err)
		}
		all, err := m.LogLik(nil, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data.N {
			rest := make([]int, 0, data.N-1)
			for j := range data.N {
				if j != i {
					rest = append(rest, j)
				}
			}
			ll, err := m.LogLik(rest, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := all - ll; math.Abs(got[i]-want) > 1e-8*math.Max(1, math.Abs(want)) {
				t.Errorf("%v: point %d: %.12g, want %.12g", kern, i, got[i], want)
			}
		}
	}
}
