//go:build cuda

package cuda

/*
#include "shim.h"
*/
import "C"

// The inverse of a matrix from its Cholesky factor, A⁻¹ = L⁻ᵀ·L⁻¹, is
// computed here rather than with cusolverDnDpotri: on an H100 at
// n = 16384, potri took 222 ms (13 TFLOP/s; its trtri alone 183 ms), while
// the same 2n³/3 flops as GEMM-shaped cuBLAS calls run near the DGEMM
// rate. Both halves are recursive, in the manner of LAPACK's recursive
// dtrtri and dlauum, on the column-major lower triangle (leading
// dimension n):
//
//	trtri: X = L⁻¹. With L = [L11 0; L21 L22] split at a multiple of
//	       leaf, X11 = L11⁻¹ and X22 = L22⁻¹ recursively, then
//	       X21 = −X22·(L21·X11) by two in-place TRMMs. The leaves, the
//	       diagonal blocks of order ≤ leaf, are all inverted first by one
//	       launch of trtri_leaf.
//	lauum: A⁻¹ = XᵀX. With X = [X11 0; X21 X22], the lower blocks are
//	       X11ᵀX11 + X21ᵀX21 (recursion on X11, then SYRK), X22ᵀX21
//	       (TRMM, before X22 is overwritten) and X22ᵀX22 (recursion);
//	       leaves by lauum_leaf.
//
// Everything is enqueued on the handle's stream; nothing synchronises.

// leaf is LEAF of kernels.cu: the order of the blocks the leaf kernels
// handle in shared memory.
const leaf = 64

// lauumThreads is the block size of lauum_leaf.
const lauumThreads = 256

// split is the order of the leading block when an order-n problem
// (n > leaf) is split in two: about half, rounded up to a multiple of leaf
// (so that every leaf starts at a multiple of leaf), and less than n.
func split(n int) int { return (n/2 + leaf - 1) / leaf * leaf }

// at is the address of the element (r, c) of the column-major matrix at a
// with leading dimension ld.
func at(a devptr, ld, r, c int) devptr { return a + devptr(8*(c*ld+r)) }

// inverse replaces the Cholesky factor L of the n×n matrix at a (the
// column-major lower triangle, as potrf leaves it) by the lower
// column-major triangle of A⁻¹. The device int info[0] is potrf's status
// (the leaf kernels do nothing when it is not zero); info[1] is set when a
// pivot of L is not finite and positive.
func (h *handles) inverse(n int, a, info devptr) error {
	if err := cuErr(C.k_trtri_leaf(h.dev.fn.trtriLeaf, C.uint((n+leaf-1)/leaf), leaf, h.stream, a, C.int(n), info), "launch trtri_leaf"); err != nil {
		return err
	}
	if err := h.trtri(a, n, 0, n); err != nil {
		return err
	}
	return h.lauum(a, n, 0, n, info)
}

// trtri inverts the lower triangular block of order n at (off, off), whose
// diagonal leaves are already inverted.
func (h *handles) trtri(a devptr, ld, off, n int) error {
	if n <= leaf {
		return nil
	}
	n1 := split(n)
	n2 := n - n1
	if err := h.trtri(a, ld, off, n1); err != nil {
		return err
	}
	if err := h.trtri(a, ld, off+n1, n2); err != nil {
		return err
	}
	a11, a21, a22 := at(a, ld, off, off), at(a, ld, off+n1, off), at(a, ld, off+n1, off+n1)
	if err := h.trmm(true, false, n2, n1, 1, a11, ld, a21, ld); err != nil { // L21·X11
		return err
	}
	return h.trmm(false, false, n2, n1, -1, a22, ld, a21, ld) // −X22·(L21·X11)
}

// lauum replaces the lower triangular block X of order n at (off, off) by
// the lower triangle of XᵀX.
func (h *handles) lauum(a devptr, ld, off, n int, info devptr) error {
	if n <= leaf {
		return cuErr(C.k_lauum_leaf(h.dev.fn.lauumLeaf, lauumThreads, h.stream, a, C.int(ld), C.int(off), C.int(n), info), "launch lauum_leaf")
	}
	n1 := split(n)
	n2 := n - n1
	if err := h.lauum(a, ld, off, n1, info); err != nil {
		return err
	}
	a11, a21, a22 := at(a, ld, off, off), at(a, ld, off+n1, off), at(a, ld, off+n1, off+n1)
	if err := blasErr(C.st_dsyrk_lower_t(h.blas, C.int(n1), C.int(n2), a21, C.int(ld), a11, C.int(ld)), "dsyrk"); err != nil { // + X21ᵀX21
		return err
	}
	if err := h.trmm(false, true, n2, n1, 1, a22, ld, a21, ld); err != nil { // X22ᵀ·X21
		return err
	}
	return h.lauum(a, ld, off+n1, n2, info)
}

// trmm is B = alpha·op(A)·B (left) or alpha·B·op(A) (right) in place, for
// the m×n block B and the lower triangular, non-unit A.
func (h *handles) trmm(right, trans bool, m, n int, alpha float64, a devptr, lda int, b devptr, ldb int) error {
	return blasErr(C.st_dtrmm_lower(h.blas, cbool(right), cbool(trans), C.int(m), C.int(n), C.double(alpha), a, C.int(lda), b, C.int(ldb)), "dtrmm")
}
