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

// NewMatrix returns a device-resident square workspace for matrices up to
// maxN×maxN, with its own stream, cuBLAS and cuSOLVER handles and a
// cuSOLVER workspace sized for maxN.
func (b *backend) NewMatrix(maxN int) (linalg.Matrix, error) {
	if maxN < 1 {
		return nil, fmt.Errorf("linalg/cuda: matrix workspace of order %d", maxN)
	}
	d, err := b.device()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new matrix: %w", err)
	}
	leave, err := d.enter()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new matrix: %w", err)
	}
	defer leave()
	m := &matrix{max: maxN}
	if m.h, err = newHandles(d, maxN); err != nil {
		return nil, fmt.Errorf("linalg/cuda: new matrix of order %d: %w", maxN, err)
	}
	if m.a, err = devAlloc(8*maxN*maxN, "matrix"); err == nil {
		if m.v, err = devAlloc(8*maxN, "vector"); err == nil {
			m.aux, err = devAlloc(64, "scalars")
		}
	}
	if err == nil {
		m.host, err = pinnedAlloc(64)
	}
	if err != nil {
		m.free()
		return nil, fmt.Errorf("linalg/cuda: new matrix of order %d: %w", maxN, err)
	}
	return m, nil
}

// matrix is a linalg.Matrix on the device: a compact n×n row-major buffer
// (leading dimension n), used by cuSOLVER as its column-major transpose,
// so that the upper row-major triangle is cuSOLVER's lower triangle. The
// contract has Cholesky read the lower row-major triangle, so Cholesky
// first mirrors it into the upper one; the factor, the column-major lower
// L, is then Lᵀ in the upper row-major triangle, and Get mirrors it back
// into the lower one before downloading.
type matrix struct {
	h        *handles
	a, v     devptr // the matrix; a vector for Solve
	aux      devptr // info (int, offset 0) and log-det results (float64, offset 16)
	host     pinned // copies of aux
	n, max   int
	factored bool
	logdet   float64
}

func (m *matrix) Cap() int { return m.max }
func (m *matrix) N() int   { return m.n }

// enter makes the context current (see device.enter).
func (m *matrix) enter(what string) (func(), error) {
	if m.h == nil {
		return nil, fmt.Errorf("linalg/cuda: %s: %w", what, errClosed)
	}
	leave, err := m.h.dev.enter()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: %s: %w", what, err)
	}
	return leave, nil
}

func (m *matrix) Set(n int, a []float64) error {
	if n < 1 || n > m.max {
		return fmt.Errorf("linalg/cuda: set: order %d outside 1..%d", n, m.max)
	}
	if len(a) < n*n {
		return fmt.Errorf("linalg/cuda: set: %d values for a %d×%d matrix", len(a), n, n)
	}
	m.factored = false
	leave, err := m.enter("set")
	if err != nil {
		return err
	}
	defer leave()
	if err := firstErr(
		htod(m.a, unsafe.Pointer(&a[0]), 8*n*n, m.h.stream),
		m.h.sync("upload"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: set: %w", err)
	}
	m.n = n
	return nil
}

func (m *matrix) Get(dst []float64) error {
	if len(dst) < m.n*m.n {
		return fmt.Errorf("linalg/cuda: get: dst has %d values, need %d", len(dst), m.n*m.n)
	}
	if m.n == 0 {
		return nil
	}
	leave, err := m.enter("get")
	if err != nil {
		return err
	}
	defer leave()
	var mirror error
	if m.factored {
		mirror = m.h.mirror(m.n, m.a, true)
	}
	if err := firstErr(
		mirror,
		dtoh(unsafe.Pointer(&dst[0]), m.a, 8*m.n*m.n, m.h.stream),
		m.h.sync("download"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: get: %w", err)
	}
	return nil
}

// Cholesky mirrors the lower triangle into the upper one, factors in
// place with cusolverDnDpotrf (lower column-major) and computes the log
// determinant on the device (2·Σ log L_ii, with a check that every pivot
// is finite and positive); one synchronisation brings back the info word
// and the log determinant.
func (m *matrix) Cholesky() error {
	if m.n == 0 {
		return fmt.Errorf("linalg/cuda: cholesky of an empty workspace")
	}
	m.factored = false
	n := m.n
	leave, err := m.enter("cholesky")
	if err != nil {
		return err
	}
	defer leave()
	h := m.h
	if err := firstErr(
		cuErr(C.cuMemsetD32Async(m.aux, 0, 4, h.stream), "cuMemsetD32Async"),
		h.mirror(n, m.a, false),
		h.potrf(n, m.a, m.aux),
		cuErr(C.k_logdet_diag(h.dev.fn.logdetDiag, redBlock, h.stream, m.a, C.int(n), m.aux, m.aux+16), "launch logdet_diag"),
		dtoh(m.host.p, m.aux, 32, h.stream),
		h.sync("potrf"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: cholesky of %d×%d matrix: %w", n, n, err)
	}
	info := m.host.i32(0, 1)[0]
	r := m.host.f64(16, 2)
	m.logdet = r[0]
	if info != 0 || r[1] != 0 || math.IsNaN(m.logdet) || math.IsInf(m.logdet, 0) {
		return fmt.Errorf("linalg/cuda: cholesky of %d×%d matrix (potrf info %d): %w", n, n, info, linalg.ErrNotPositiveDefinite)
	}
	m.factored = true
	return nil
}

func (m *matrix) LogDet() (float64, error) {
	if !m.factored {
		return 0, fmt.Errorf("linalg/cuda: logdet: %w", linalg.ErrNotFactored)
	}
	return m.logdet, nil
}

func (m *matrix) Solve(b, x []float64) error {
	if !m.factored {
		return fmt.Errorf("linalg/cuda: solve: %w", linalg.ErrNotFactored)
	}
	n := m.n
	if len(b) < n || len(x) < n {
		return fmt.Errorf("linalg/cuda: solve: vectors of length %d, %d for order %d", len(b), len(x), n)
	}
	leave, err := m.enter("solve")
	if err != nil {
		return err
	}
	defer leave()
	h := m.h
	if err := firstErr(
		htod(m.v, unsafe.Pointer(&b[0]), 8*n, h.stream),
		h.potrs(n, 1, m.a, m.v, m.aux),
		dtoh(m.host.p, m.aux, 4, h.stream),
		dtoh(unsafe.Pointer(&x[0]), m.v, 8*n, h.stream),
		h.sync("potrs"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: solve of order %d: %w", n, err)
	}
	if info := m.host.i32(0, 1)[0]; info != 0 {
		return fmt.Errorf("linalg/cuda: solve of order %d: potrs info %d", n, info)
	}
	return nil
}

// Inverse computes A⁻¹ from the factor (inverse.go) and mirrors its
// triangle into the other on the device.
func (m *matrix) Inverse() error {
	if !m.factored {
		return fmt.Errorf("linalg/cuda: inverse: %w", linalg.ErrNotFactored)
	}
	n := m.n
	m.factored = false
	leave, err := m.enter("inverse")
	if err != nil {
		return err
	}
	defer leave()
	h := m.h
	if err := firstErr(
		cuErr(C.cuMemsetD32Async(m.aux, 0, 2, h.stream), "cuMemsetD32Async"),
		h.inverse(n, m.a, m.aux),
		h.mirror(n, m.a, true),
		dtoh(m.host.p, m.aux, 8, h.stream),
		h.sync("inverse"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: inverse of %d×%d matrix: %w", n, n, err)
	}
	if info := m.host.i32(0, 2)[1]; info != 0 {
		return fmt.Errorf("linalg/cuda: inverse of %d×%d matrix: a pivot of the factor is not positive: %w", n, n, linalg.ErrNotPositiveDefinite)
	}
	return nil
}

// Mul sets the receiver to a·b with cublasDgemm. Row-major C = A·B is the
// column-major Cᵀ = Bᵀ·Aᵀ, and a row-major matrix is its own transpose
// read column-major, so the call is gemm(N, N, B, A).
func (m *matrix) Mul(a, b linalg.Matrix) error {
	ca, ok1 := a.(*matrix)
	cb, ok2 := b.(*matrix)
	if !ok1 || !ok2 {
		return fmt.Errorf("linalg/cuda: mul: operands from another backend")
	}
	if ca == m || cb == m {
		return fmt.Errorf("linalg/cuda: mul: receiver aliases an operand")
	}
	if ca.h == nil || cb.h == nil {
		return fmt.Errorf("linalg/cuda: mul: %w", errClosed)
	}
	n := ca.n
	if n == 0 || cb.n != n || n > m.max {
		return fmt.Errorf("linalg/cuda: mul: orders %d and %d into capacity %d", ca.n, cb.n, m.max)
	}
	m.factored = false
	leave, err := m.enter("mul")
	if err != nil {
		return err
	}
	defer leave()
	// The operands' own streams were synchronised when their last
	// operation returned, so their data are ready.
	if err := firstErr(
		m.h.gemm(false, false, n, n, n, 1, cb.a, n, ca.a, n, 0, m.a, n),
		m.h.sync("gemm"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: mul of order %d: %w", n, err)
	}
	m.n = n
	return nil
}

func (m *matrix) Close() error {
	if m.h == nil {
		return nil
	}
	leave, err := m.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: close matrix: %w", err)
	}
	defer leave()
	m.free()
	return nil
}

// free releases everything; the context must be current.
func (m *matrix) free() {
	if m.h != nil {
		C.cuStreamSynchronize(m.h.stream)
	}
	devFree(m.a)
	devFree(m.v)
	devFree(m.aux)
	m.host.free()
	m.h.destroy()
	*m = matrix{}
}

// gemm is cublasDgemm in column-major terms.
func (h *handles) gemm(ta, tb bool, mm, n, k int, alpha float64, a devptr, lda int, b devptr, ldb int, beta float64, c devptr, ldc int) error {
	return blasErr(C.st_dgemm(h.blas, cbool(ta), cbool(tb), C.int(mm), C.int(n), C.int(k),
		C.double(alpha), a, C.int(lda), b, C.int(ldb), C.double(beta), c, C.int(ldc)), "dgemm")
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
