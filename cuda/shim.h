// shim.h: the C side of package cuda (build tag cuda), included by the
// preamble of every cgo file of the package. Static functions only, so
// each cgo translation unit gets its own copy and nothing is exported.

#ifndef SUBTEMPER_CUDA_SHIM_H
#define SUBTEMPER_CUDA_SHIM_H

#include <stdint.h>
#include <stdlib.h>
#include <cuda.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

// The few driver, cuBLAS and cuSOLVER calls the backend needs, wrapped so
// that Go passes device addresses as integers (CUdeviceptr) and never
// converts an integer to a Go pointer, and so that kernel arguments are
// packed on the C stack (cuLaunchKernel takes an array of pointers to
// them, which Go memory must not hold).

#define DP(p) ((double *)(uintptr_t)(p))
#define IP(p) ((int *)(uintptr_t)(p))

static CUresult st_memcpy_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
	return cuMemcpyHtoDAsync(dst, src, n, s);
}
static CUresult st_memcpy_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s) {
	return cuMemcpyDtoHAsync(dst, src, n, s);
}

// st_memcpy2d_dtod copies height rows of width bytes from src (rows spitch
// bytes apart) to dst (rows dpitch bytes apart), device to device; the
// regions must not overlap.
static CUresult st_memcpy2d_dtod(CUdeviceptr dst, size_t dpitch, CUdeviceptr src, size_t spitch,
		size_t width, size_t height, CUstream s) {
	CUDA_MEMCPY2D c = {0};
	c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = src;
	c.srcPitch = spitch;
	c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.dstDevice = dst;
	c.dstPitch = dpitch;
	c.WidthInBytes = width;
	c.Height = height;
	return cuMemcpy2DAsync(&c, s);
}

// ---- cuBLAS (column-major; see the Go callers for the row-major mapping)

static cublasStatus_t st_dgemm(cublasHandle_t h, int ta, int tb, int m, int n, int k,
		double alpha, CUdeviceptr a, int lda, CUdeviceptr b, int ldb,
		double beta, CUdeviceptr c, int ldc) {
	return cublasDgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
		m, n, k, &alpha, DP(a), lda, DP(b), ldb, &beta, DP(c), ldc);
}

// st_dsymm_right_lower: C (m×n) = B (m×n) · A (n×n, symmetric, lower).
static cublasStatus_t st_dsymm_right_lower(cublasHandle_t h, int m, int n,
		CUdeviceptr a, int lda, CUdeviceptr b, int ldb, CUdeviceptr c, int ldc) {
	double one = 1.0, zero = 0.0;
	return cublasDsymm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, m, n,
		&one, DP(a), lda, DP(b), ldb, &zero, DP(c), ldc);
}

// st_dtrmm_lower: B (m×n) = alpha·op(A)·B (left) or alpha·B·op(A) (right),
// A lower triangular, non-unit, op(A) = Aᵀ when trans; in place (cuBLAS
// computes in place when C is B).
static cublasStatus_t st_dtrmm_lower(cublasHandle_t h, int right, int trans, int m, int n,
		double alpha, CUdeviceptr a, int lda, CUdeviceptr b, int ldb) {
	return cublasDtrmm(h, right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
		trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n,
		&alpha, DP(a), lda, DP(b), ldb, DP(b), ldb);
}

// st_dtrsm_left_lower: B (m×n) = A⁻¹·B, A lower triangular, non-unit, in
// place.
static cublasStatus_t st_dtrsm_left_lower(cublasHandle_t h, int m, int n, CUdeviceptr a, int lda,
		CUdeviceptr b, int ldb) {
	double one = 1.0;
	return cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
		m, n, &one, DP(a), lda, DP(b), ldb);
}

// st_dsyrk_lower_t: C (n×n, lower) += Aᵀ·A, A k×n.
static cublasStatus_t st_dsyrk_lower_t(cublasHandle_t h, int n, int k, CUdeviceptr a, int lda,
		CUdeviceptr c, int ldc) {
	double one = 1.0;
	return cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, k, &one, DP(a), lda, &one, DP(c), ldc);
}

// st_dtrsv_lower: x = A⁻¹·x, A (n×n) lower triangular, non-unit.
static cublasStatus_t st_dtrsv_lower(cublasHandle_t h, int n, CUdeviceptr a, int lda, CUdeviceptr x) {
	return cublasDtrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, DP(a), lda, DP(x), 1);
}

// st_dcopy: y[i·incy] = x[i·incx], i < n (a strided gather, e.g. a diagonal).
static cublasStatus_t st_dcopy(cublasHandle_t h, int n, CUdeviceptr x, int incx, CUdeviceptr y, int incy) {
	return cublasDcopy(h, n, DP(x), incx, DP(y), incy);
}

// ---- cuSOLVER, always on the lower column-major triangle

static cusolverStatus_t st_potrf_bufsize(cusolverDnHandle_t h, int n, int *lwork) {
	return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, NULL, n, lwork);
}
static cusolverStatus_t st_potrf(cusolverDnHandle_t h, int n, CUdeviceptr a, int lda,
		CUdeviceptr work, int lwork, CUdeviceptr info) {
	return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, DP(a), lda, DP(work), lwork, IP(info));
}
static cusolverStatus_t st_potrs(cusolverDnHandle_t h, int n, int nrhs, CUdeviceptr a, int lda,
		CUdeviceptr b, int ldb, CUdeviceptr info) {
	return cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, DP(a), lda, DP(b), ldb, IP(info));
}

// ---- kernel launches (signatures as in kernels.cu)

static CUresult st_launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
		CUstream s, void **args) {
	return cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, s, args, NULL);
}
static CUresult k_gp_scale(CUfunction f, unsigned g, unsigned b, CUstream s, CUdeviceptr x,
		CUdeviceptr idx, CUdeviceptr y, CUdeviceptr ell, int m, int d, CUdeviceptr z, CUdeviceptr ys) {
	void *args[] = {&x, &idx, &y, &ell, &m, &d, &z, &ys};
	return st_launch(f, g, 1, b, 1, s, args);
}
static CUresult k_gp_kernel(CUfunction f, unsigned g, unsigned bx, unsigned by, CUstream s,
		CUdeviceptr z, int m, int d, double sf2, double diag, CUdeviceptr a) {
	void *args[] = {&z, &m, &d, &sf2, &diag, &a};
	return st_launch(f, g, 1, bx, by, s, args);
}
static CUresult k_gp_pmat(CUfunction f, unsigned g, unsigned bx, unsigned by, CUstream s,
		CUdeviceptr a, CUdeviceptr z, int m, int d, double sf2, CUdeviceptr alpha, CUdeviceptr w,
		CUdeviceptr info) {
	void *args[] = {&a, &z, &m, &d, &sf2, &alpha, &w, &info};
	return st_launch(f, g, 1, bx, by, s, args);
}
static CUresult k_gp_quad_logdet(CUfunction f, unsigned b, CUstream s, CUdeviceptr l, int m,
		CUdeviceptr ys, CUdeviceptr alpha, CUdeviceptr info, CUdeviceptr out) {
	void *args[] = {&l, &m, &ys, &alpha, &info, &out};
	return st_launch(f, 1, 1, b, 1, s, args);
}
static CUresult k_gp_grad_partial(CUfunction f, unsigned g, unsigned bx, unsigned by, CUstream s,
		CUdeviceptr z, CUdeviceptr q, CUdeviceptr w, int m, int d, int rpb, CUdeviceptr info,
		CUdeviceptr partial) {
	void *args[] = {&z, &q, &w, &m, &d, &rpb, &info, &partial};
	return st_launch(f, g, 1, bx, by, s, args);
}
static CUresult k_gp_grad_final(CUfunction f, unsigned b, CUstream s, CUdeviceptr partial, int nb,
		int d, double sn2, CUdeviceptr info, CUdeviceptr out) {
	void *args[] = {&partial, &nb, &d, &sn2, &info, &out};
	return st_launch(f, 1, 1, b, 1, s, args);
}
static CUresult k_mirror(CUfunction f, unsigned g, unsigned bx, unsigned by, CUstream s,
		CUdeviceptr a, int n, int up) {
	void *args[] = {&a, &n, &up};
	return st_launch(f, g, 1, bx, by, s, args);
}
static CUresult k_trtri_leaf(CUfunction f, unsigned g, unsigned b, CUstream s, CUdeviceptr a,
		int n, CUdeviceptr info) {
	void *args[] = {&a, &n, &info};
	return st_launch(f, g, 1, b, 1, s, args);
}
static CUresult k_lauum_leaf(CUfunction f, unsigned b, CUstream s, CUdeviceptr a, int n, int off,
		int nb, CUdeviceptr info) {
	void *args[] = {&a, &n, &off, &nb, &info};
	return st_launch(f, 1, 1, b, 1, s, args);
}
static CUresult k_colsum_partial(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
		CUstream s, CUdeviceptr a, int rows, int cols, int lda, int rpb, CUdeviceptr partial) {
	void *args[] = {&a, &rows, &cols, &lda, &rpb, &partial};
	return st_launch(f, gx, gy, bx, by, s, args);
}
static CUresult k_gather_rows(CUfunction f, unsigned g, unsigned b, CUstream s, CUdeviceptr src,
		CUdeviceptr idx, int rows, int cols, int ld, CUdeviceptr dst) {
	void *args[] = {&src, &idx, &rows, &cols, &ld, &dst};
	return st_launch(f, g, 1, b, 1, s, args);
}
static CUresult k_mvn_final(CUfunction f, unsigned g, unsigned b, CUstream s, CUdeviceptr pg,
		int nbg, CUdeviceptr pw, int nbw, CUdeviceptr t, int B, int d, int k, CUdeviceptr out,
		CUdeviceptr resid) {
	void *args[] = {&pg, &nbg, &pw, &nbw, &t, &B, &d, &k, &out, &resid};
	return st_launch(f, g, 1, b, 1, s, args);
}
static CUresult k_logdet_diag(CUfunction f, unsigned b, CUstream s, CUdeviceptr l, int m,
		CUdeviceptr info, CUdeviceptr out) {
	void *args[] = {&l, &m, &info, &out};
	return st_launch(f, 1, 1, b, 1, s, args);
}

static CUresult k_gp_cross(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
		CUstream s, CUdeviceptr z, int n, int d, CUdeviceptr zt, int b, double sf2, CUdeviceptr ks) {
	void *args[] = {&z, &n, &d, &zt, &b, &sf2, &ks};
	return st_launch(f, gx, gy, bx, by, s, args);
}
static CUresult k_gp_coldot(CUfunction f, unsigned g, unsigned b, CUstream s, CUdeviceptr a, int n,
		int cols, CUdeviceptr v, CUdeviceptr out) {
	void *args[] = {&a, &n, &cols, &v, &out};
	return st_launch(f, g, 1, b, 1, s, args);
}

#endif
