package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

// PredictGP is implemented by GP handles that compute the GP posterior
// predictive at test inputs on the backend. Every built-in backend's
// handles do. The CPU backends factor the kernel over all N observations
// once, then take the test inputs in blocks small enough to stay in
// cache, each block's cross-kernel K*ᵀ built and solved with the factor
// in one triangular solve of many right-hand sides (level-3 BLAS); the
// CUDA backend does the same on the device (package cuda). A handle
// that does not implement it (a backend registered from elsewhere) is
// served by a fallback in package gp that takes the kernel matrix from
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
	// new observation y). The cost is O(N³ + nt·N·D + nt·N²). A kernel
	// matrix that is not positive definite gives an error wrapping
	// ErrNotPositiveDefinite.
	Predict(xt []float64, nt int, u, mean, varf []float64) error
}

var _ PredictGP = (*cpuGP)(nil)

// predictBlockValues bounds the cross-kernel block of Predict: block·N
// values (2 MiB), so that the block stays in cache through the kernel, the
// mean, the triangular product and the sums of squares. At N = 442 with
// OpenBLAS on one thread (BenchmarkPredictDraws, S = 100, 3 runs each),
// blocks of 296 to 1186 test inputs took alike (median 5.8 CPU-seconds),
// blocks of 74 15% longer and one block of all 10 000 6% longer.
const predictBlockValues = 1 << 18

// Predict implements PredictGP. The latent variance is σf² − ‖L⁻¹k_i‖², L
// the Cholesky factor of A: each block of test inputs costs one
// triangular solve with L of many right-hand sides (DTRSM on K*ᵀ, held
// N×b). An earlier version inverted L once (N³/3 flops) and took a
// triangular product (DTRMM) with L⁻¹ instead, after DTRMM ran at twice
// the rate of DTRSM on K* held b×N (BenchmarkPredictTriangular in
// linalg/openblas). In the layout Predict uses, the solve measured at
// least as fast with 20 draws on 2 cores (BenchmarkPredictDraws and
// BenchmarkPredictDrawsTestSize in package gp, two runs each): 0.76 s
// against 0.79 at N = 442 with 10 000 test inputs (gonum: 2.9 s against
// 3.0), 3.0 s against 3.9 at N = 2048 with 2048, and with a quarter as
// many test inputs as observations 1.60 s against 2.25 at N = 2048 and
// 11.0 s against 16.6 at N = 4096, where the inverse was most of the
// cost beyond the factorisation. TestPredictMatchesDense checks the
// variances against a dense computation on an ill-conditioned kernel.
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
	block := max(1, min(nt, predictBlockValues/n))
	if len(g.pk) < block*n {
		g.pk = make([]float64, block*n)
		g.pz = make([]float64, block*d)
		g.pq = make([]float64, block)
	}
	if g.pzo == nil {
		g.pzo = make([]float64, n*d)
	}
	// zo: the centred observations divided by the length scales, n×d.
	zo := g.pzo
	for k, v := range g.x[:n*d] {
		zo[k] = v / g.ell[k%d]
	}
	for lo := 0; lo < nt; lo += block {
		b := min(block, nt-lo)
		ks, ztT, q := g.pk[:n*b], g.pz[:d*b], g.pq[:b]
		// ztT: the block's test inputs, centred and divided by the length
		// scales, d×b.
		for t := range b {
			for j, v := range xt[(lo+t)*d : (lo+t)*d+d] {
				ztT[j*b+t] = (v - g.xmean[j]) / g.ell[j]
			}
		}
		// ks = K*ᵀ, n×b: the test inputs' kernel vectors in its columns,
		// the layout in which OpenBLAS's DTRMM ran fastest.
		switch rk := g.be.rk; {
		case g.kern != KernelSE && rk != nil:
			rk.MaternCross(g.kern, ks, zo, ztT, n, b, d, g.sf2)
		case g.kern != KernelSE:
			maternCross(g.kern, ks, zo, ztT, n, b, d, g.sf2)
		case rk != nil:
			rk.SECross(ks, zo, ztT, n, b, d, g.sf2)
		default:
			seCross(ks, zo, ztT, n, b, d, g.sf2)
		}
		g.be.bl.Dgemv(blas.Trans, n, b, 1, ks, b, alpha, 1, 0, mean[lo:lo+b], 1)
		// Columns of ks become L⁻¹k_t; cholesky checked that L's diagonal
		// is positive.
		g.be.bl.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, b, 1, a, n, ks, b)
		if rk := g.be.rk; rk != nil {
			rk.ColSumSquares(q, ks, n, b)
		} else {
			colSumSquares(q, ks, n, b)
		}
		for t, v := range q {
			varf[lo+t] = max(g.sf2-v, 0)
		}
	}
	return nil
}

// seCross is RowKernels.SECross in Go.
func seCross(c, za, zbT []float64, m, k, d int, sf2 float64) {
	for i := range m {
		row := c[i*k : i*k+k]
		sqDistRow(row, za[i*d:i*d+d], zbT, k)
		for t, d2 := range row {
			row[t] = sf2 * math.Exp(-0.5*d2)
		}
	}
}

// maternCross is RowKernels.MaternCross in Go.
func maternCross(fam Kernel, c, za, zbT []float64, m, k, d int, sf2 float64) {
	for i := range m {
		row := c[i*k : i*k+k]
		sqDistRow(row, za[i*d:i*d+d], zbT, k)
		for t, d2 := range row {
			row[t], _ = maternCov(fam, math.Sqrt(d2), sf2)
		}
	}
}

// sqDistRow sets row[t] to the squared distance between the point zi and
// column t of the d×k matrix zbT (d = len(zi)), k = len(row) points.
func sqDistRow(row, zi, zbT []float64, k int) {
	clear(row)
	for j, w := range zi {
		for t, v := range zbT[j*k : j*k+k] {
			r := w - v
			row[t] += r * r
		}
	}
}

// colSumSquares is RowKernels.ColSumSquares in Go.
func colSumSquares(dst, x []float64, m, k int) {
	dst = dst[:k]
	clear(dst)
	for i := range m {
		for t, v := range x[i*k : i*k+k] {
			dst[t] += v * v
		}
	}
}
