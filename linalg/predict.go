package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

// PredictGP is implemented by GP handles (those of the CPU backends) that
// compute the GP posterior predictive at test inputs on the backend: one
// Cholesky factorisation of the kernel over all N observations, then the
// test inputs in blocks, each block's cross-kernel K*ᵀ built and solved
// against the factor with one triangular solve of many right-hand sides
// (level-3 BLAS). Handles that do not implement it (the CUDA backend's)
// are served by a fallback in package gp that takes the kernel matrix from
// GP.Kernel and does the rest with gonum.
type PredictGP interface {
	// Predict sets, at u = log θ and for the nt test inputs xt (nt×D,
	// row-major, in the coordinates of the uploaded x), with
	// A = K + (σn² + jitter)·I over all N observations and k_i the kernel
	// vector between test input i and the observations:
	//
	//	mean[i] = k_iᵀ A⁻¹ y,   varf[i] = σf² − k_iᵀ A⁻¹ k_i  (clamped at 0),
	//
	// the mean and variance of the latent f at test input i (add σn² for a
	// new observation y). The cost is O(N³/3 + nt·N·D + nt·N²). A kernel
	// matrix that is not positive definite gives an error wrapping
	// ErrNotPositiveDefinite.
	Predict(xt []float64, nt int, u, mean, varf []float64) error
}

var _ PredictGP = (*cpuGP)(nil)

// predictBlockValues bounds the workspace of the cross-kernel block:
// block·N values (32 MiB).
const predictBlockValues = 1 << 22

// Predict implements PredictGP.
func (g *cpuGP) Predict(xt []float64, nt int, u, mean, varf []float64) error {
	n, d := g.n, g.d
	if nt < 0 || len(xt) != nt*d || len(mean) < nt || len(varf) < nt {
		return fmt.Errorf("linalg/%s: gp predict: %d test inputs of dimension %d: len(xt) = %d, len(mean) = %d, len(varf) = %d", g.be.name, nt, d, len(xt), len(mean), len(varf))
	}
	for i, v := range xt {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/%s: gp predict: test input x[%d,%d] = %v", g.be.name, i/d, i%d, v)
		}
	}
	if err := g.build(nil, u, false); err != nil {
		return fmt.Errorf("gp predict: %w", err)
	}
	a := g.a[:n*n]
	if err := cholesky(g.be.la, n, a); err != nil {
		return fmt.Errorf("linalg/%s: gp predict: cholesky of %d×%d kernel: %w", g.be.name, n, n, err)
	}
	alpha := g.alpha[:n]
	copy(alpha, g.y)
	g.be.bl.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, n, a, n, alpha, 1)
	g.be.bl.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, n, a, n, alpha, 1)
	for _, v := range alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/%s: gp predict: (K + σn²I)⁻¹y is not finite: the targets are too large for the kernel's scale (standardize them)", g.be.name)
		}
	}
	block := max(1, min(nt, predictBlockValues/n))
	if len(g.pk) < block*n {
		g.pk = make([]float64, block*n)
		g.pz = make([]float64, block*d)
	}
	// g.z rows hold x_i/ℓ (centred), g.sq their squared norms (build).
	ld := g.ld
	for lo := 0; lo < nt; lo += block {
		b := min(block, nt-lo)
		ks, zt := g.pk[:b*n], g.pz[:b*d]
		for t := 0; t < b; t++ {
			row := xt[(lo+t)*d : (lo+t)*d+d]
			for j, v := range row {
				zt[t*d+j] = (v - g.xmean[j]) / g.ell[j]
			}
		}
		// ks = zt·Zᵀ, then the squared distances and the kernel.
		g.be.bl.Dgemm(blas.NoTrans, blas.Trans, b, n, d, 1, zt, d, g.z[:n*ld], ld, 0, ks, n)
		for t := 0; t < b; t++ {
			var st float64
			for _, v := range zt[t*d : t*d+d] {
				st += v * v
			}
			if !(st <= math.MaxFloat64/4) {
				return fmt.Errorf("linalg/%s: gp predict: test input %d divided by the length scales has squared norm %v, too large to form squared distances (standardize the inputs)", g.be.name, lo+t, st)
			}
			row := ks[t*n : t*n+n]
			var mu float64
			for i, c := range row {
				d2 := st + g.sq[i] - 2*c
				if d2 < 0 {
					d2 = 0
				}
				k := g.sf2 * math.Exp(-0.5*d2)
				row[i] = k
				mu += k * alpha[i]
			}
			mean[lo+t] = mu
		}
		// Rows of ks become (L⁻¹k_t)ᵀ: ks·L⁻ᵀ.
		g.be.bl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, b, n, 1, a, n, ks, n)
		for t := 0; t < b; t++ {
			var q float64
			for _, v := range ks[t*n : t*n+n] {
				q += v * v
			}
			varf[lo+t] = max(g.sf2-q, 0)
		}
	}
	return nil
}
