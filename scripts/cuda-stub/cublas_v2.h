/* Stub of cuBLAS's header: only what package cuda uses (see cuda.h here). */
#ifndef SUBTEMPER_STUB_CUBLAS_V2_H
#define SUBTEMPER_STUB_CUBLAS_V2_H
#include "cuda.h"

typedef struct CUstream_st *cudaStream_t;
typedef struct cublasContext *cublasHandle_t;
typedef enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
	int m, int n, int k, const double *alpha, const double *A, int lda, const double *B, int ldb,
	const double *beta, double *C, int ldc);
cublasStatus_t cublasDsymm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
	int m, int n, const double *alpha, const double *A, int lda, const double *B, int ldb,
	const double *beta, double *C, int ldc);
cublasStatus_t cublasDtrmm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
	cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const double *alpha,
	const double *A, int lda, const double *B, int ldb, double *C, int ldc);
cublasStatus_t cublasDtrsm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,
	cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const double *alpha,
	const double *A, int lda, double *B, int ldb);
cublasStatus_t cublasDtrsv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,
	cublasDiagType_t diag, int n, const double *A, int lda, double *x, int incx);
cublasStatus_t cublasDsyrk(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,
	int n, int k, const double *alpha, const double *A, int lda, const double *beta, double *C, int ldc);
cublasStatus_t cublasDcopy(cublasHandle_t handle, int n, const double *x, int incx, double *y, int incy);
#endif
