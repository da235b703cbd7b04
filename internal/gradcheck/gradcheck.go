// Package gradcheck compares analytic gradients with central finite
// differences, for the models' tests.
package gradcheck

import (
	"math"
	"testing"
)

// FD returns the central finite-difference gradient of f at u with step h.
func FD(f func([]float64) float64, u []float64, h float64) []float64 {
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

// Check reports (t.Errorf) every component of grad that differs from fd by
// more than tol relative to the largest |fd| (at least 1e-3).
func Check(t testing.TB, what string, grad, fd []float64, tol float64) {
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
