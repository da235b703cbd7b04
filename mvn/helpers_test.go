package mvn

import (
	"math"
	"testing"

	"github.com/subtemper/subtemper/linalg"
	_ "github.com/subtemper/subtemper/linalg/openblas" // registers "openblas" under -tags openblas
)

// forEachBackend runs f as a subtest on every compiled-in backend.
func forEachBackend(t *testing.T, f func(t *testing.T, be linalg.Backend)) {
	t.Helper()
	for _, name := range linalg.Names() {
		be, err := linalg.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { f(t, be) })
	}
}

// fdGrad is the central finite-difference gradient of f at u.
func fdGrad(f func([]float64) float64, u []float64, h float64) []float64 {
	g := make([]float64, len(u))
	v := append([]float64(nil), u...)
	for k := range u {
		v[k] = u[k] + h
		fp := f(v)
		v[k] = u[k] - h
		fm := f(v)
		v[k] = u[k]
		g[k] = (fp - fm) / (2 * h)
	}
	return g
}

func checkGrad(t *testing.T, what string, grad, fd []float64, tol float64) {
	t.Helper()
	var norm float64
	for _, v := range fd {
		norm = math.Max(norm, math.Abs(v))
	}
	for k := range grad {
		if e := math.Abs(grad[k]-fd[k]) / math.Max(1e-3, norm); e > tol {
			t.Errorf("%s: grad[%d] = %.10g, finite differences %.10g (rel err %.2g)", what, k, grad[k], fd[k], e)
		}
	}
}
