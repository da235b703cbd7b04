//go:build cuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/subtemper/subtemper/linalg"
)

// NewGP uploads the inputs (centred column by column, as the CPU backend
// does, so that the gradient's z·(z·r − q) form loses nothing to a common
// offset) and the targets, and allocates every workspace for the full n:
// the n×n kernel/factor/inverse/P buffer, the scaled inputs and P·[Z 1],
// the vectors, the reduction partials, the cuSOLVER workspace and a pinned
// staging area. Steady-state evaluations allocate nothing.
func (b *backend) NewGP(x []float64, n, d int, y []float64) (linalg.GP, error) {
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("linalg/cuda: gp data of %d×%d", n, d)
	}
	if len(x) != n*d || len(y) != n {
		return nil, fmt.Errorf("linalg/cuda: gp data: len(x) = %d, len(y) = %d for %d×%d", len(x), len(y), n, d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/cuda: gp data: x[%d,%d] = %v", i/d, i%d, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/cuda: gp data: y[%d] = %v", i, v)
		}
	}
	dev, err := b.device()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new gp: %w", err)
	}
	xc := make([]float64, n*d)
	xmean, colMax2 := make([]float64, d), make([]float64, d)
	for j := 0; j < d; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += x[i*d+j]
		}
		mean /= float64(n)
		xmean[j] = mean
		for i := 0; i < n; i++ {
			v := x[i*d+j] - mean
			xc[i*d+j] = v
			colMax2[j] = max(colMax2[j], v*v)
		}
	}
	leave, err := dev.enter()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new gp: %w", err)
	}
	defer leave()
	g := &gp{n: n, d: d, ell: make([]float64, d), xmean: xmean, xc: xc, colMax2: colMax2,
		kept: kept{u: make([]float64, d+2), sub: make([]int, 0, n)}}
	if err := g.alloc(dev); err != nil {
		g.free()
		return nil, fmt.Errorf("linalg/cuda: new gp of %d×%d: %w", n, d, err)
	}
	if err := firstErr(
		htod(g.x, unsafe.Pointer(&xc[0]), 8*n*d, g.h.stream),
		htod(g.y, unsafe.Pointer(&y[0]), 8*n, g.h.stream),
		g.h.sync("upload"),
	); err != nil {
		g.free()
		return nil, fmt.Errorf("linalg/cuda: new gp of %d×%d: %w", n, d, err)
	}
	return g, nil
}

// gp is a linalg.GP on the device.
type gp struct {
	h      *handles
	n, d   int
	jitter float64

	x, y      devptr // resident data: n×d centred inputs, n targets
	in        devptr // per evaluation: ell (d float64), then the subset (n int32)
	z, q      devptr // n×(d+1): [Z 1] (scaled inputs, ones); P·[Z 1]
	a         devptr // n×n: K → L → K⁻¹ → P (lower row-major triangle)
	ys, alpha devptr // n
	w         devptr // n: diagonal of W = ααᵀ − K⁻¹
	partial   devptr // maxGradBlocks×(d+2)
	res       devptr // [quad, logdet, bad, grad (d+2)] float64, then 3 int32 infos
	stage     pinned // host side of in
	out       pinned // host side of res

	ell      []float64
	sf2, sn2 float64
	xmean    []float64 // the column means subtracted from the uploaded inputs
	xc       []float64 // the centred inputs, n×d, for checkScale
	colMax2  []float64 // per column, the largest squared centred input

	pred predictBufs // Predict's device buffers, allocated on first use

	kept  kept   // what the last evaluation without gradient left, for LogLikResume
	spare devptr // n×n: a prefix's factor is packed here, allocated on the first such resume
	pre   pinned // host side of L⁻¹y and diag(L), 2n float64, for LogLikPrefixes
}

// resBytes is the size of the result block; infoOff the byte offset of
// the status words (potrf, the inverse's pivot check, potrs) in it.
func (g *gp) infoOff() int  { return 8 * (g.d + 5) }
func (g *gp) resBytes() int { return g.infoOff() + 16 }

func (g *gp) alloc(dev *device) error {
	n, d := g.n, g.d
	var err error
	if g.h, err = newHandles(dev, n); err != nil {
		return err
	}
	// The cuSOLVER workspace, allocated with the handles, is already
	// out of the free memory.
	if err := fits(GPMemory(n, d), fmt.Sprintf("the %d×%d kernel matrix takes %s", n, n, gib(8*int64(n)*int64(n)))); err != nil {
		return err
	}
	for _, b := range []struct {
		p    *devptr
		size int
		what string
	}{
		{&g.x, 8 * n * d, "inputs"}, {&g.y, 8 * n, "targets"},
		{&g.in, 8*d + 4*n, "parameters and subset"},
		{&g.z, 8 * n * (d + 1), "scaled inputs"}, {&g.q, 8 * n * (d + 1), "P·[Z 1]"},
		{&g.a, 8 * n * n, "kernel matrix"},
		{&g.ys, 8 * n, "subset targets"}, {&g.alpha, 8 * n, "alpha"}, {&g.w, 8 * n, "diag W"},
		{&g.partial, 8 * maxGradBlocks * (d + 2), "gradient partials"},
		{&g.res, g.resBytes(), "results"},
	} {
		if *b.p, err = devAlloc(b.size, b.what); err != nil {
			return err
		}
	}
	if g.stage, err = pinnedAlloc(8*d + 4*n); err != nil {
		return err
	}
	g.out, err = pinnedAlloc(g.resBytes())
	return err
}

func (g *gp) free() {
	if g.h != nil && g.h.stream != nil {
		C.cuStreamSynchronize(g.h.stream)
	}
	for _, p := range []devptr{g.x, g.y, g.in, g.z, g.q, g.a, g.ys, g.alpha, g.w, g.partial, g.res, g.spare} {
		devFree(p)
	}
	g.pred.free()
	g.pre.free()
	g.stage.free()
	g.out.free()
	g.h.destroy()
	*g = gp{n: g.n, d: g.d}
}

func (g *gp) N() int                   { return g.n }
func (g *gp) D() int                   { return g.d }
func (g *gp) SetJitter(jitter float64) { g.jitter, g.kept.ok = jitter, false }

func (g *gp) Close() error {
	if g.h == nil {
		return nil
	}
	leave, err := g.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: close gp: %w", err)
	}
	defer leave()
	g.free()
	return nil
}

// params decodes u as the CPU backend does and checks every derived
// quantity.
func (g *gp) params(u []float64) error {
	if len(u) != g.d+2 {
		return fmt.Errorf("linalg/cuda: gp: %d hyperparameters, want %d", len(u), g.d+2)
	}
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/cuda: gp: log-hyperparameter %d is %v", i, v)
		}
	}
	for j := 0; j < g.d; j++ {
		g.ell[j] = math.Exp(u[j])
		if g.ell[j] == 0 || math.IsInf(g.ell[j], 0) {
			return fmt.Errorf("linalg/cuda: gp: length scale %d = exp(%v) out of range", j, u[j])
		}
	}
	g.sf2 = math.Exp(2 * u[g.d])
	g.sn2 = math.Exp(2 * u[g.d+1])
	if math.IsInf(g.sf2, 0) || math.IsInf(g.sn2, 0) {
		return fmt.Errorf("linalg/cuda: gp: signal or noise variance overflows")
	}
	return nil
}

// checkScale refuses, as the CPU backends do, an observation of the m in
// subset whose centred inputs divided by the length scales have a squared
// norm above MaxFloat64/4: the CPU backends' Gram form of the squared
// distances would overflow there, and the kernels here, which take direct
// differences, would return a kernel of exact zeros, so every backend
// refuses the same inputs. The bound Σ_j max_i x_ij²/ℓ_j² settles it in
// O(D) unless it is exceeded; then the rows are checked one by one.
func (g *gp) checkScale(subset []int, m int) error {
	var b float64
	for j, v := range g.colMax2 {
		b += v / (g.ell[j] * g.ell[j])
	}
	if b <= math.MaxFloat64/4 {
		return nil
	}
	d := g.d
	for k := range m {
		i := k
		if subset != nil {
			i = subset[k]
		}
		var s float64
		for j, x := range g.xc[i*d : i*d+d] {
			v := x / g.ell[j]
			s += v * v
		}
		if !(s <= math.MaxFloat64/4) {
			return fmt.Errorf("linalg/cuda: gp: observation %d's inputs divided by the length scales have squared norm %v, too large to form squared distances: the inputs are too large for the length scales (standardize them)", i, s)
		}
	}
	return nil
}

// prepare validates the call, fills the pinned staging area (length
// scales, subset) and returns the subset size and the device address of
// the index list (0 for all observations).
func (g *gp) prepare(subset []int, u []float64) (int, devptr, error) {
	if g.h == nil {
		return 0, 0, fmt.Errorf("linalg/cuda: gp: %w", errClosed)
	}
	m, err := checkSubset(subset, g.n)
	if err != nil {
		return 0, 0, err
	}
	if err := g.params(u); err != nil {
		return 0, 0, err
	}
	if err := g.checkScale(subset, m); err != nil {
		return 0, 0, err
	}
	copy(g.stage.f64(0, g.d), g.ell)
	if subset == nil {
		return m, 0, nil
	}
	idx := g.stage.i32(8*g.d, m)
	for k, i := range subset {
		idx[k] = int32(i)
	}
	return m, g.in + devptr(8*g.d), nil
}

// build enqueues the upload of the staging area, the gather and scaling of
// the subset (gp_scale) and the kernel matrix (gp_kernel, upper row-major
// triangle).
func (g *gp) build(m int, idx devptr) error {
	h, fn, d := g.h, &g.h.dev.fn, g.d
	nbytes := 8 * d
	if idx != 0 {
		nbytes += 4 * m
	}
	return firstErr(
		htod(g.in, g.stage.p, nbytes, h.stream),
		cuErr(C.k_gp_scale(fn.gpScale, grid1(m*(d+1)), flatBlk, h.stream, g.x, idx, g.y, g.in,
			C.int(m), C.int(d), g.z, g.ys), "launch gp_scale"),
		cuErr(C.k_gp_kernel(fn.gpKernel, C.uint(tiles(m)), tile, rows, h.stream, g.z, C.int(m), C.int(d),
			C.double(g.sf2), C.double(g.sf2+g.sn2+g.jitter), g.a), "launch gp_kernel"),
	)
}

func (g *gp) Kernel(dst []float64, subset []int, u []float64) error {
	g.kept.ok = false
	m, idx, err := g.prepare(subset, u)
	if err != nil {
		return fmt.Errorf("gp kernel: %w", err)
	}
	if len(dst) < m*m {
		return fmt.Errorf("linalg/cuda: gp kernel: dst has %d values, need %d", len(dst), m*m)
	}
	leave, err := g.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: gp kernel: %w", err)
	}
	defer leave()
	if err := firstErr(
		g.build(m, idx),
		g.h.mirror(m, g.a, true),
		dtoh(unsafe.Pointer(&dst[0]), g.a, 8*m*m, g.h.stream),
		g.h.sync("gp kernel"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: gp kernel of order %d: %w", m, err)
	}
	return nil
}

// enqueueFactor enqueues, after zeroing the three status words, the build
// of the kernel over the m observations at idx (0: all), its Cholesky
// factorisation, α = A⁻¹y, and gp_quad_logdet's quadratic form,
// log-determinant and pivot check into the result block.
func (g *gp) enqueueFactor(m int, idx devptr) error {
	h, fn := g.h, &g.h.dev.fn
	info := g.res + devptr(g.infoOff())
	return firstErr(
		cuErr(C.cuMemsetD32Async(info, 0, 3, h.stream), "cuMemsetD32Async"),
		g.build(m, idx),
		h.potrf(m, g.a, info),
		cuErr(C.cuMemcpyDtoDAsync(g.alpha, g.ys, C.size_t(8*m), h.stream), "cuMemcpyDtoDAsync"),
		h.potrs(m, 1, g.a, g.alpha, info+8),
		cuErr(C.k_gp_quad_logdet(fn.gpQuadLogdet, redBlock, h.stream, g.a, C.int(m), g.ys, g.alpha, info, g.res), "launch gp_quad_logdet"),
	)
}

// factorErr reports, from the result block copied to the host after
// enqueueFactor, a factorisation (potrf or the pivot check) or a solve
// that failed.
func (g *gp) factorErr(m int) error {
	r := g.out.f64(0, 3)
	infos := g.out.i32(g.infoOff(), 3)
	if infos[0] != 0 || r[2] != 0 {
		return fmt.Errorf("cholesky of %d×%d kernel (potrf info %d): %w", m, m, infos[0], linalg.ErrNotPositiveDefinite)
	}
	if infos[2] != 0 {
		return fmt.Errorf("solve with %d×%d kernel: potrs info %d", m, m, infos[2])
	}
	return nil
}

// LogLik enqueues the whole evaluation on the handle's stream — upload of
// ℓ and the subset, kernel build, potrf, potrs, the quadratic form and log
// determinant, and with a gradient the inverse (inverse.go), P, P·[Z 1]
// (cublasDsymm) and the two-stage gradient reduction — then copies the
// result block (a few scalars, the gradient and the status words) back and
// synchronises once.
func (g *gp) LogLik(subset []int, u, grad []float64) (float64, error) {
	return g.logLik(subset, u, grad, nil, nil)
}

// logLik is LogLik that, with ks, also sets the prefix log-likelihoods
// pre (see LogLikPrefixes). An evaluation without gradient that succeeds
// keeps its factor for LogLikResume; any other call uses it up.
func (g *gp) logLik(subset []int, u, grad []float64, ks []int, pre []float64) (float64, error) {
	g.kept.ok = false
	if grad != nil && len(grad) != g.d+2 {
		return 0, fmt.Errorf("linalg/cuda: gp: gradient of length %d, want %d", len(grad), g.d+2)
	}
	m, idx, err := g.prepare(subset, u)
	if err != nil {
		return 0, err
	}
	kmax, err := checkPrefixes("gp", ks, pre, m)
	if err != nil {
		return 0, err
	}
	leave, err := g.h.dev.enter()
	if err != nil {
		return 0, fmt.Errorf("linalg/cuda: gp: %w", err)
	}
	defer leave()
	if err := g.enqueueFactor(m, idx); err != nil {
		return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: evaluation of order %d: %w", m, err)
	}
	if kmax > 0 {
		if err := g.enqueuePrefixes(m, kmax); err != nil {
			return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: prefixes of order %d: %w", m, err)
		}
	}
	if grad != nil {
		if err := g.enqueueGrad(m); err != nil {
			return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: gradient of order %d: %w", m, err)
		}
	}
	ll, err := g.finish(m, grad)
	if err != nil {
		return ll, err
	}
	if kmax > 0 {
		g.prefixValues(kmax, ks, pre)
	}
	if grad == nil {
		g.keep(subset, u, m)
	}
	return ll, nil
}

// enqueueGrad enqueues the gradient's work on the factor of the m×m
// kernel at a and α: the inverse, P, P·[Z 1] and the two-stage reduction
// into the result block.
func (g *gp) enqueueGrad(m int) error {
	h, fn, d := g.h, &g.h.dev.fn, g.d
	info := g.res + devptr(g.infoOff())
	rpb, nb := chunks(m, maxGradBlocks)
	return firstErr(
		h.inverse(m, g.a, info),
		cuErr(C.k_gp_pmat(fn.gpPmat, C.uint(tiles(m)), tile, rows, h.stream, g.a, g.z, C.int(m), C.int(d),
			C.double(g.sf2), g.alpha, g.w, info), "launch gp_pmat"),
		// Row-major Q = P·[Z 1] (m×(d+1)) is the column-major
		// Qᵀ = [Z 1]ᵀ·P, with P's upper row-major triangle its
		// lower column-major one.
		blasErr(C.st_dsymm_right_lower(h.blas, C.int(d+1), C.int(m), g.a, C.int(m), g.z, C.int(d+1), g.q, C.int(d+1)), "dsymm"),
		cuErr(C.k_gp_grad_partial(fn.gpGradPartial, C.uint(nb), tile, rows, h.stream, g.z, g.q, g.w,
			C.int(m), C.int(d), C.int(rpb), info, g.partial), "launch gp_grad_partial"),
		cuErr(C.k_gp_grad_final(fn.gpGradFinal, tile, h.stream, g.partial, C.int(nb), C.int(d),
			C.double(g.sn2), info, g.res+24), "launch gp_grad_final"),
	)
}

// finish copies the result block back, synchronises, and returns the
// log-likelihood of order m and, with grad, writes the gradient.
func (g *gp) finish(m int, grad []float64) (float64, error) {
	d := g.d
	if err := firstErr(
		dtoh(g.out.p, g.res, g.resBytes(), g.h.stream),
		g.h.sync("gp log-likelihood"),
	); err != nil {
		return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: evaluation of order %d: %w", m, err)
	}
	if err := g.factorErr(m); err != nil {
		return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: %w", err)
	}
	r := g.out.f64(0, d+5)
	infos := g.out.i32(g.infoOff(), 3)
	ll := -0.5*r[0] - 0.5*r[1] - 0.5*float64(m)*math.Log(2*math.Pi)
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: log-likelihood of %d×%d kernel is %v: %w", m, m, ll, linalg.ErrNotPositiveDefinite)
	}
	if grad == nil {
		return ll, nil
	}
	if infos[1] != 0 {
		return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: inverse of %d×%d kernel (a pivot of its factor is not positive, info %d): %w", m, m, infos[1], linalg.ErrNotPositiveDefinite)
	}
	copy(grad, r[3:3+d+2])
	for j, v := range grad {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.Inf(-1), fmt.Errorf("linalg/cuda: gp: gradient component %d is %v", j, v)
		}
	}
	return ll, nil
}

// checkSubset validates subset indices against n observations and returns
// the subset size (n for nil).
func checkSubset(subset []int, n int) (int, error) {
	if subset == nil {
		return n, nil
	}
	if len(subset) == 0 {
		return 0, fmt.Errorf("linalg/cuda: empty subset")
	}
	if len(subset) > n {
		return 0, fmt.Errorf("linalg/cuda: subset of %d indices for %d observations", len(subset), n)
	}
	for k, i := range subset {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("linalg/cuda: subset[%d] = %d outside 0..%d", k, i, n-1)
		}
	}
	return len(subset), nil
}
