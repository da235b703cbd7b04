package temperingtest

import (
	"errors"
	"fmt"
	"math"
)

// FiniteDiff returns the central finite-difference gradient of f at u with
// step h: component k is (f(u + h·e_k) − f(u − h·e_k)) / 2h. It does not
// change u.
func FiniteDiff(f func([]float64) float64, u []float64, h float64) []float64 {
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

// CompareGrad returns an error naming every component of grad that
// differs from fd (a finite-difference gradient) by more than tol relative
// to the largest |fd| (at least 1e-3, so that a gradient near zero is
// compared absolutely), and nil if there is none. A length mismatch or a
// NaN component is an error too.
func CompareGrad(grad, fd []float64, tol float64) error {
	if len(grad) != len(fd) {
		return fmt.Errorf("gradient has length %d, want %d", len(grad), len(fd))
	}
	var norm float64
	for _, v := range fd {
		norm = math.Max(norm, math.Abs(v))
	}
	var errs []error
	for k := range grad {
		e := math.Abs(grad[k]-fd[k]) / math.Max(1e-3, norm)
		if e > tol || math.IsNaN(e) {
			errs = append(errs, fmt.Errorf("grad[%d] = %.10g, finite differences %.10g (rel err %.2g)", k, grad[k], fd[k], e))
		}
	}
	return errors.Join(errs...)
}
