package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

// PredictGP is implemented by GP handles (those of the CPU backends) that
// compute the GP posterior predictive at test inputs on the backend: one
// Cholesky factorisation of the kernel over all N observations and the
// inverse of its factor, then the test inputs in blocks small enough to
// stay in cache, each block's cross-kernel K*ᵀ built and multiplied by the
// inverse factor with one triangular matrix product of many right-hand
// sides (level-3 BLAS). Handles that do not implement it (the CUDA
// backend's) are served by a fallback in package gp that takes the kernel
// matrix from GP.Kernel and does the rest with gonum.
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

// predictBlockValues bounds the cross-kernel block of Predict: block·N
// values (2 MiB), so that the block stays in cache through the kernel, the
// mean, the triangular product and the sums of squares. Measured at
// N = 442 with OpenBLAS on one thread (BenchmarkPredictDraws, S = 100),
// blocks of 296 to 1186 rows ran alike, and 74 rows or one block of all
// 10 000 test inputs 10% slower.
const predictBlockValues = 1 << 18

// Predict implements PredictGP. The latent variance is σf² − ‖L⁻¹k_i‖², L
// the Cholesky factor of A: L is inverted once (N³/3 flops), and each
// block of test inputs then costs one triangular matrix product (DTRMM)
// with L⁻¹, which OpenBLAS 0.3.21 runs at twice the rate of the
// triangular solve with L (DTRSM) that it replaces (one thread, N = 442,
// 10 000 right-hand sides: 42 ms against 80 ms). TestPredictMatchesDense
// holds both forms to the same dense computation: on its ill-conditioned
// kernel (condition number 1.3e6) the variances differ from it by at most
// 1.6e-14 of σf² with the inverse and 1.9e-14 with the solve.
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
	cholSolve(g.be.bl, n, a, alpha)
	for _, v := range alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/%s: gp predict: (K + σn²I)⁻¹y is not finite: the targets are too large for the kernel's scale (standardize them)", g.be.name)
		}
	}
	// a ← L⁻¹ (lower); cholesky checked that L's diagonal is positive.
	if !g.be.la.Dtrtri(blas.Lower, blas.NonUnit, n, a, n) {
		return fmt.Errorf("linalg/%s: gp predict: inverse of the %d×%d Cholesky factor: %w", g.be.name, n, n, ErrNotPositiveDefinite)
	}
	block := max(1, min(nt, predictBlockValues/n))
	if len(g.pk) < block*n {
		g.pk = make([]float64, block*n)
		g.pz = make([]float64, block*d)
		g.pq = make([]float64, block)
	}
	if g.pzT == nil {
		g.pzT = make([]float64, d*n)
	}
	// zT: the centred observations divided by the length scales, d×n.
	zT := g.pzT
	for i := range n {
		for j, v := range g.x[i*d : i*d+d] {
			zT[j*n+i] = v / g.ell[j]
		}
	}
	for lo := 0; lo < nt; lo += block {
		b := min(block, nt-lo)
		ks, zt, q := g.pk[:b*n], g.pz[:b*d], g.pq[:b]
		for k, v := range xt[lo*d : (lo+b)*d] {
			j := k % d
			zt[k] = (v - g.xmean[j]) / g.ell[j]
		}
		if rk := g.be.rk; rk != nil {
			rk.SECross(ks, zt, zT, b, n, d, g.sf2)
		} else {
			seCross(ks, zt, zT, b, n, d, g.sf2)
		}
		g.be.bl.Dgemv(blas.NoTrans, b, n, 1, ks, n, alpha, 1, 0, mean[lo:lo+b], 1)
		// Rows of ks become (L⁻¹k_t)ᵀ: ks·L⁻ᵀ.
		g.be.bl.Dtrmm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, b, n, 1, a, n, ks, n)
		if rk := g.be.rk; rk != nil {
			rk.SumSquares(q, ks, b, n)
		} else {
			for t := range b {
				q[t] = sumSquares(ks[t*n : t*n+n])
			}
		}
		for t, v := range q {
			varf[lo+t] = max(g.sf2-v, 0)
		}
	}
	return nil
}

// seCross is RowKernels.SECross in Go.
func seCross(c, zt, zT []float64, b, n, d int, sf2 float64) {
	for t := range b {
		row := c[t*n : t*n+n]
		clear(row)
		for j, w := range zt[t*d : t*d+d] {
			for i, v := range zT[j*n : j*n+n] {
				r := w - v
				row[i] += r * r
			}
		}
		for i, d2 := range row {
			row[i] = sf2 * math.Exp(-0.5*d2)
		}
	}
}

// sumSquares returns Σ x_i², with four partial sums.
func sumSquares(x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * x[i]
		s1 += x[i+1] * x[i+1]
		s2 += x[i+2] * x[i+2]
		s3 += x[i+3] * x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}
