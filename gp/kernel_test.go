package gp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/internal/gradcheck"
	"github.com/subtemper/subtemper/linalg"
)

var families = []Kernel{SE, Matern12, Matern32, Matern52}

// TestKernelGradientFiniteDifferences: for every kernel family on every
// backend, Model.LogLik's gradient agrees with central finite differences
// of its value (1e-6 relative to the largest component), on all
// observations and on subsets, with a pair of equal inputs in some trials.
func TestKernelGradientFiniteDifferences(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		for _, k := range families {
			if _, ok := be.(linalg.KernelBackend); !ok && k != SE {
				continue
			}
			t.Run(k.String(), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, uint64(k)))
				for trial := range 6 {
					d := 1 + rng.IntN(5)
					n := 10 + rng.IntN(40)
					data := randData(rng, n, d, 1+rng.Float64())
					if trial%3 == 2 {
						copy(data.X[d:2*d], data.X[:d])
					}
					m, err := New(be, data, Options{Kernel: k})
					if err != nil {
						t.Fatal(err)
					}
					if m.Kernel() != k {
						t.Fatalf("Kernel() = %v, want %v", m.Kernel(), k)
					}
					u := make([]float64, d+2)
					for j := range u {
						u[j] = 0.5*rng.NormFloat64() + 0.2
					}
					var subset []int
					if trial%2 == 1 {
						subset = rng.Perm(n)[:n/2]
					}
					grad := make([]float64, d+2)
					if _, err := m.LogLik(subset, u, grad); err != nil {
						t.Fatal(err)
					}
					fd := gradcheck.FD(func(v []float64) float64 {
						ll, err := m.LogLik(subset, v, nil)
						if err != nil {
							t.Fatal(err)
						}
						return ll
					}, u, 1e-5)
					gradcheck.Check(t, fmt.Sprintf("%s loglik trial %d", k, trial), grad, fd, 1e-6)
					m.Close()
				}
			})
		}
	})
}

// TestKernelPredictFallback: for every Matérn family the backend's Predict
// and the fallback on GP.Kernel (predictDense) agree to 1e-10, and differ
// from the squared exponential's predictions: the family reaches both.
func TestKernelPredictFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 33))
	data := randData(rng, 50, 3, 1)
	const nt = 30
	xt := make([]float64, nt*3)
	for i := range xt {
		xt[i] = 1.3 * rng.NormFloat64()
	}
	copy(xt, data.X[:6])
	u := []float64{0, 0.3, -0.2, 0.2, math.Log(0.3)}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		if _, ok := be.(linalg.KernelBackend); !ok {
			t.Skip("backend has only the squared exponential")
		}
		se, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer se.Close()
		seMean, seVar := make([]float64, nt), make([]float64, nt)
		if err := se.Predict(xt, nt, u, seMean, seVar); err != nil {
			t.Fatal(err)
		}
		for _, k := range families[1:] {
			m, err := New(be, data, Options{Kernel: k})
			if err != nil {
				t.Fatal(err)
			}
			c, err := m.Copy()
			if err != nil || c.Kernel() != k {
				t.Fatalf("%s: clone: kernel %v, %v", k, c.Kernel(), err)
			}
			mean, varf := make([]float64, nt), make([]float64, nt)
			dm, dv := make([]float64, nt), make([]float64, nt)
			if err := m.Predict(xt, nt, u, mean, varf); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			if err := c.predictDense(xt, nt, u, dm, dv); err != nil {
				t.Fatalf("%s: fallback: %v", k, err)
			}
			sf2 := math.Exp(2 * u[3])
			var diffSE float64
			for i := range nt {
				if e := math.Abs(mean[i]-dm[i]) / max(math.Abs(dm[i]), 1); e > 1e-10 {
					t.Errorf("%s: mean[%d] = %.17g, fallback %.17g", k, i, mean[i], dm[i])
				}
				if e := math.Abs(varf[i]-dv[i]) / sf2; e > 1e-10 {
					t.Errorf("%s: varf[%d] = %.17g, fallback %.17g", k, i, varf[i], dv[i])
				}
				diffSE = max(diffSE, math.Abs(mean[i]-seMean[i]))
			}
			if diffSE < 1e-3 {
				t.Errorf("%s: predictions within %.3g of the squared exponential's", k, diffSE)
			}
			m.Close()
			c.Close()
		}
	})
}

// seOnly is a backend without linalg.KernelBackend, as the cuda backend
// is.
type seOnly struct{ linalg.Backend }

// TestKernelRefused: a backend that has only the squared exponential
// refuses the Matérn families in New with an error naming the family and
// the backend, and still builds SE models.
func TestKernelRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := randData(rng, 10, 2, 1)
	be := seOnly{linalg.Default()}
	if m, err := New(be, data, Options{}); err != nil {
		t.Fatalf("se: %v", err)
	} else {
		m.Close()
	}
	for _, k := range families[1:] {
		_, err := New(be, data, Options{Kernel: k})
		if err == nil || !strings.Contains(err.Error(), k.String()) || !strings.Contains(err.Error(), "gonum") {
			t.Errorf("%s on a backend without it: error %v", k, err)
		}
	}
	if _, err := New(nil, data, Options{Kernel: Kernel(9)}); err == nil {
		t.Error("kernel family 9 accepted")
	}
}

// TestParseKernel: the names round-trip and others are refused.
func TestParseKernel(t *testing.T) {
	for _, k := range families {
		got, err := ParseKernel(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKernel(%q) = %v, %v", k.String(), got, err)
		}
	}
	for _, s := range []string{"", "SE", "matern", "rbf", "matern72"} {
		if _, err := ParseKernel(s); err == nil {
			t.Errorf("ParseKernel(%q) accepted", s)
		}
	}
}
