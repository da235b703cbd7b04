/* Stub of cuSOLVER's dense header: only what package cuda uses (see cuda.h here). */
#ifndef SUBTEMPER_STUB_CUSOLVERDN_H
#define SUBTEMPER_STUB_CUSOLVERDN_H
#include "cublas_v2.h"

typedef struct cusolverDnContext *cusolverDnHandle_t;
typedef enum {
	CUSOLVER_STATUS_SUCCESS = 0,
	CUSOLVER_STATUS_NOT_INITIALIZED = 1,
	CUSOLVER_STATUS_ALLOC_FAILED = 2,
	CUSOLVER_STATUS_INVALID_VALUE = 3,
	CUSOLVER_STATUS_ARCH_MISMATCH = 4,
	CUSOLVER_STATUS_EXECUTION_FAILED = 6,
	CUSOLVER_STATUS_INTERNAL_ERROR = 7,
	CUSOLVER_STATUS_NOT_SUPPORTED = 9
} cusolverStatus_t;

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId);
cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
	double *A, int lda, int *Lwork);
cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,
	int lda, double *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnDpotrs(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs,
	const double *A, int lda, double *B, int ldb, int *devInfo);
#endif
