package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/subtemper/subtemper/linalg"
)

// LOOLogDensities sets out[i] (len N) to the log density of observation i
// given all the others at u = log θ, in closed form (Sundararajan &
// Keerthi 2001; Rasmussen & Williams §5.4.2): with A = K + (σn² +
// jitter)·I over all N observations, y_i | y_−i, θ ~ N(μ_i, σ_i²),
//
//	μ_i = y_i − [A⁻¹y]_i / [A⁻¹]_ii,   σ_i² = 1 / [A⁻¹]_ii.
//
// It costs one Cholesky factorisation and the inverse from it, O(N³), and
// works in a workspace of N² floats that it allocates. The densities are
// those of the model's data (standardised, if they are).
func (m *Model) LOOLogDensities(u, out []float64) error {
	if m.h == nil {
		return errors.New("gp: leave-one-out: model is closed")
	}
	n := m.data.N
	if len(u) != m.Dim() || len(out) != n {
		return fmt.Errorf("gp: leave-one-out: len(u) = %d, len(out) = %d, want %d and %d", len(u), len(out), m.Dim(), n)
	}
	k := make([]float64, n*n)
	if err := m.h.Kernel(k, nil, u); err != nil {
		return fmt.Errorf("gp: leave-one-out at θ = %.4g: %w", Theta(nil, u), err)
	}
	a := blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: k}
	chol, ok := lapack64.Potrf(a)
	if !ok {
		return fmt.Errorf("gp: leave-one-out at θ = %.4g (jitter %g): kernel matrix not positive definite: %w", Theta(nil, u), m.jitter, linalg.ErrNotPositiveDefinite)
	}
	alpha := blas64.Vector{N: n, Inc: 1, Data: append([]float64(nil), m.data.Y...)}
	blas64.Trsv(blas.NoTrans, chol, alpha)
	blas64.Trsv(blas.Trans, chol, alpha)
	inv, ok := lapack64.Potri(chol) // lower triangle of A⁻¹, in k
	if !ok {
		return fmt.Errorf("gp: leave-one-out at θ = %.4g: inverting the kernel matrix failed: %w", Theta(nil, u), linalg.ErrNotPositiveDefinite)
	}
	for i := range n {
		q := inv.Data[i*inv.Stride+i] // [A⁻¹]_ii
		ai := alpha.Data[i]
		out[i] = -0.5*math.Log(2*math.Pi) + 0.5*math.Log(q) - 0.5*ai*ai/q
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) || !(q > 0) {
			return fmt.Errorf("gp: leave-one-out at θ = %.4g: observation %d: [A⁻¹]_ii = %v", Theta(nil, u), i, q)
		}
	}
	return nil
}
