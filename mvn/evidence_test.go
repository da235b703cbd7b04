package mvn

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/subtemper/subtemper/linalg"
)

// TestLogEvidenceDirect checks LogEvidence against the density of all
// observations stacked, vec(x) ~ N(0, I_n ⊗ Σ + σ0²·(1 1ᵀ) ⊗ I_D), on the
// whole data and on a subset.
func TestLogEvidenceDirect(t *testing.T) {
	data, sigma, _, err := Synthetic(12, 3, 4, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(linalg.Default(), data, sigma, Options{Sigma0: 1.7})
	if err != nil {
		t.Fatal(err)
	}
	for _, subset := range [][]int{nil, {1, 4, 5, 9}} {
		idx := subset
		if idx == nil {
			for i := range data.N {
				idx = append(idx, i)
			}
		}
		d, n := data.D, len(idx)
		cov := mat.NewSymDense(n*d, nil)
		x := make([]float64, n*d)
		for a, i := range idx {
			copy(x[a*d:], data.X[i*d:(i+1)*d])
			for b := range n {
				for p := range d {
					for q := range d {
						v := 0.0
						if a == b {
							v = sigma.At(p, q)
						}
						if p == q {
							v += 1.7 * 1.7
						}
						if a*d+p <= b*d+q {
							cov.SetSym(a*d+p, b*d+q, v)
						}
					}
				}
			}
		}
		nd, ok := distmv.NewNormal(make([]float64, n*d), cov, nil)
		if !ok {
			t.Fatal("stacked covariance not positive definite")
		}
		want := nd.LogProb(x)
		got, err := m.LogEvidence(subset)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("subset %v: log evidence %.12g, want %.12g", subset, got, want)
		}
	}
}
