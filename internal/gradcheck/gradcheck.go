// Package gradcheck compares analytic gradients with central finite
// differences, for the models' tests: testing.TB reporting on top of the
// public kit's temperingtest.FiniteDiff and temperingtest.CompareGrad.
package gradcheck

import (
	"testing"

	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// FD returns the central finite-difference gradient of f at u with step h
// (temperingtest.FiniteDiff).
func FD(f func([]float64) float64, u []float64, h float64) []float64 {
	return temperingtest.FiniteDiff(f, u, h)
}

// Check reports (t.Errorf) every component of grad that differs from fd by
// more than tol relative to the largest |fd| (at least 1e-3), as
// temperingtest.CompareGrad finds them.
func Check(t testing.TB, what string, grad, fd []float64, tol float64) {
	t.Helper()
	err := temperingtest.CompareGrad(grad, fd, tol)
	if err == nil {
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			t.Errorf("%s: %v", what, e)
		}
		return
	}
	t.Errorf("%s: %v", what, err)
}
