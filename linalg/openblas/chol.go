//go:build openblas

package openblas

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lm
#include <math.h>

// The three level-3 BLAS routines the recursion is built on, from
// libopenblas (32-bit integers, as dpotrf_ in shim.go). The enums are
// CBLAS's values.
enum { RowMajor = 101, NoTrans = 111, Trans = 112, Lower = 122, NonUnit = 131, Left = 141, Right = 142 };
extern void cblas_dtrsm(int order, int side, int uplo, int trans, int diag, int m, int n,
	double alpha, const double *a, int lda, double *b, int ldb);
extern void cblas_dtrmm(int order, int side, int uplo, int trans, int diag, int m, int n,
	double alpha, const double *a, int lda, double *b, int ldb);
extern void cblas_dsyrk(int order, int uplo, int trans, int n, int k,
	double alpha, const double *a, int lda, double beta, double *c, int ldc);
extern void cblas_dgemm(int order, int transa, int transb, int m, int n, int k,
	double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);

// Every routine here works on the lower triangle of a row-major n×n
// matrix a with leading dimension lda, in place, and splits it as
// [A11 0; A21 A22] with A11 of order n1 ≈ n/2 (a multiple of 8) until the
// order is at most LEAF, where a loop over contiguous rows finishes it.
// Almost all flops then run in OpenBLAS's GEMM (the factorisation's
// solves, below), TRMM and SYRK on blocks of order n/2, n/4, …, at or
// near its GEMM rate; its own dpotrf_/dpotri_ work in fixed panels and
// stay far below it at small n.
#define LEAF 32

static inline int split(int n) { return ((n / 2) + 7) & ~7; }

// The solve L21 = A21·L11⁻ᵀ of the factorisation is split recursively
// too, until the triangular order is at most BLK, so that all its flops
// but O(m·n·BLK) run in GEMM; and the leaves do not call OpenBLAS's TRSM
// either, whose kernel took 30% of the factorisation's time at n = 512
// (perf) with the whole solve, and still 29% with only these m×32 leaves
// left to it: they invert the BLK×BLK
// diagonal block (trtri_leaf, O(BLK³)) and multiply by it with GEMM, as
// GPU BLAS libraries do. This is 23–26% faster at n = 256…1024 and, on a
// matrix of condition 1e10, moves the factor from OpenBLAS's dpotrf_ by at
// most twice as much as substitution did (8e-12 against 4.5e-12 of the
// largest entry; well-conditioned: the same, 2–3e-16).
#define BLK LEAF // the leaves invert with trtri_leaf, whose buffer holds LEAF
#define CHUNK 64

static int trtri_leaf(int n, double *a, int lda);

// trsm_rlt_leaf is trsm_rlt for n ≤ BLK: B ← B·(L⁻¹)ᵀ by GEMM, CHUNK rows
// of B at a time through a buffer.
static void trsm_rlt_leaf(int m, int n, const double *l, int lda, double *b, int ldb) {
	double inv[BLK * BLK], t[CHUNK * BLK];
	for (int i = 0; i < n; i++) {
		for (int j = 0; j <= i; j++) inv[i * n + j] = l[(long)i * lda + j];
		for (int j = i + 1; j < n; j++) inv[i * n + j] = 0;
	}
	trtri_leaf(n, inv, n); // L11 has a positive diagonal: potrf_rec checked it
	for (int r = 0; r < m; r += CHUNK) {
		int k = m - r < CHUNK ? m - r : CHUNK;
		double *br = b + (long)r * ldb;
		cblas_dgemm(RowMajor, NoTrans, Trans, k, n, n, 1.0, br, ldb, inv, n, 0.0, t, n);
		for (int i = 0; i < k; i++)
			for (int j = 0; j < n; j++) br[(long)i * ldb + j] = t[i * n + j];
	}
}

// trsm_rlt: B ← B·L⁻ᵀ for B m×n, L n×n lower. With L = [L11 0; L21 L22]
// and X = [X1 X2]: X1·L11ᵀ = B1, then X2·L22ᵀ = B2 − X1·L21ᵀ.
static void trsm_rlt(int m, int n, const double *l, int lda, double *b, int ldb) {
	if (n <= BLK) {
		trsm_rlt_leaf(m, n, l, lda, b, ldb);
		return;
	}
	int n1 = split(n), n2 = n - n1;
	const double *l21 = l + (long)n1 * lda;
	trsm_rlt(m, n1, l, lda, b, ldb);
	cblas_dgemm(RowMajor, NoTrans, Trans, m, n2, n1, -1.0, b, ldb, l21, lda, 1.0, b + n1, ldb);
	trsm_rlt(m, n2, l21 + n1, lda, b + n1, ldb);
}

// dot returns Σ_{k<n} x_k·y_k with four partial sums.
static inline double dot(const double *x, const double *y, int n) {
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int k = 0;
	for (; k + 4 <= n; k += 4) {
		s0 += x[k] * y[k];
		s1 += x[k + 1] * y[k + 1];
		s2 += x[k + 2] * y[k + 2];
		s3 += x[k + 3] * y[k + 3];
	}
	for (; k < n; k++) s0 += x[k] * y[k];
	return (s0 + s1) + (s2 + s3);
}

// Cholesky–Crout on a leaf: row j of L from dot products of contiguous
// rows. Returns j+1 at the first pivot that is not positive (or NaN).
static int potrf_leaf(int n, double *a, int lda) {
	for (int j = 0; j < n; j++) {
		double *rj = a + (long)j * lda;
		double s = rj[j] - dot(rj, rj, j);
		if (!(s > 0)) return j + 1;
		double d = sqrt(s);
		rj[j] = d;
		for (int i = j + 1; i < n; i++) {
			double *ri = a + (long)i * lda;
			ri[j] = (ri[j] - dot(ri, rj, j)) / d;
		}
	}
	return 0;
}

// potrf_rec factors A = L·Lᵀ: L11, then L21 = A21·L11⁻ᵀ, then the Schur
// complement A22 − L21·L21ᵀ. Returns 0, or the 1-based index of the first
// non-positive pivot.
static int potrf_rec(int n, double *a, int lda) {
	if (n <= LEAF) return potrf_leaf(n, a, lda);
	int n1 = split(n), n2 = n - n1;
	double *a21 = a + (long)n1 * lda, *a22 = a21 + n1;
	int info = potrf_rec(n1, a, lda);
	if (info) return info;
	trsm_rlt(n2, n1, a, lda, a21, lda);
	cblas_dsyrk(RowMajor, Lower, NoTrans, n2, n1, -1.0, a21, lda, 1.0, a22, lda);
	info = potrf_rec(n2, a22, lda);
	return info ? info + n1 : 0;
}

// L⁻¹ on a leaf, row by row: row i of M = L⁻¹ is (e_i − Σ_{k<i} l_ik·row k
// of M)/l_ii, a sum of contiguous rows already inverted in place.
static int trtri_leaf(int n, double *a, int lda) {
	double t[LEAF];
	for (int i = 0; i < n; i++) {
		double *ri = a + (long)i * lda;
		if (ri[i] == 0) return i + 1;
		for (int j = 0; j < i; j++) t[j] = 0;
		for (int k = 0; k < i; k++) {
			double c = ri[k];
			const double *mk = a + (long)k * lda;
			for (int j = 0; j <= k; j++) t[j] += c * mk[j];
		}
		double inv = 1 / ri[i];
		for (int j = 0; j < i; j++) ri[j] = -t[j] * inv;
		ri[i] = inv;
	}
	return 0;
}

// trtri_rec inverts L in place: M11 = L11⁻¹, M22 = L22⁻¹ and
// M21 = −M22·L21·M11.
static int trtri_rec(int n, double *a, int lda) {
	if (n <= LEAF) return trtri_leaf(n, a, lda);
	int n1 = split(n), n2 = n - n1;
	double *a21 = a + (long)n1 * lda, *a22 = a21 + n1;
	int info = trtri_rec(n1, a, lda);
	if (info) return info;
	cblas_dtrmm(RowMajor, Right, Lower, NoTrans, NonUnit, n2, n1, -1.0, a, lda, a21, lda);
	info = trtri_rec(n2, a22, lda);
	if (info) return info + n1;
	cblas_dtrmm(RowMajor, Left, Lower, NoTrans, NonUnit, n2, n1, 1.0, a22, lda, a21, lda);
	return 0;
}

// MᵀM on a leaf, row by row in increasing order: row i of the result is
// Σ_{k≥i} m_ki·(row k of M)[0..i], which reads only rows k ≥ i — not yet
// overwritten.
static void lauum_leaf(int n, double *a, int lda) {
	double t[LEAF];
	for (int i = 0; i < n; i++) {
		for (int j = 0; j <= i; j++) t[j] = 0;
		for (int k = i; k < n; k++) {
			const double *mk = a + (long)k * lda;
			double c = mk[i];
			for (int j = 0; j <= i; j++) t[j] += c * mk[j];
		}
		double *ri = a + (long)i * lda;
		for (int j = 0; j <= i; j++) ri[j] = t[j];
	}
}

// lauum_rec sets the lower triangle of a to MᵀM, M the lower triangle of
// a: M11ᵀM11 + M21ᵀM21, then M22ᵀM21, then M22ᵀM22.
static void lauum_rec(int n, double *a, int lda) {
	if (n <= LEAF) {
		lauum_leaf(n, a, lda);
		return;
	}
	int n1 = split(n), n2 = n - n1;
	double *a21 = a + (long)n1 * lda, *a22 = a21 + n1;
	lauum_rec(n1, a, lda);
	cblas_dsyrk(RowMajor, Lower, Trans, n1, n2, 1.0, a21, lda, 1.0, a, lda);
	cblas_dtrmm(RowMajor, Left, Lower, Trans, NonUnit, n2, n1, 1.0, a22, lda, a21, lda);
	lauum_rec(n2, a22, lda);
}

static int subtemper_rpotrf(int n, double *a, int lda) { return potrf_rec(n, a, lda); }

static int subtemper_rtrtri(int n, double *a, int lda) { return trtri_rec(n, a, lda); }

static int subtemper_rpotri(int n, double *a, int lda) {
	int info = trtri_rec(n, a, lda);
	if (info) return info;
	lauum_rec(n, a, lda);
	return 0;
}
*/
import "C"

// rpotrf factors the lower triangle of the row-major n×n matrix a in place
// by the recursive algorithm; it returns 0 or the 1-based order of the
// first leading minor that is not positive definite.
func rpotrf(n int, a []float64, lda int) int {
	return int(C.subtemper_rpotrf(C.int(n), (*C.double)(&a[0]), C.int(lda)))
}

// rpotri replaces the lower Cholesky factor L in a by the lower triangle
// of (L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹; it returns 0 or the 1-based index of a zero
// diagonal element of L.
func rpotri(n int, a []float64, lda int) int {
	return int(C.subtemper_rpotri(C.int(n), (*C.double)(&a[0]), C.int(lda)))
}

// rtrtri replaces the lower triangle L of the row-major n×n matrix a by
// L⁻¹ (non-unit diagonal); it returns 0 or the 1-based index of a zero
// diagonal element of L.
func rtrtri(n int, a []float64, lda int) int {
	return int(C.subtemper_rtrtri(C.int(n), (*C.double)(&a[0]), C.int(lda)))
}
