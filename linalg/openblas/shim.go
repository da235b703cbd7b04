//go:build openblas

package openblas

/*
#cgo LDFLAGS: -lopenblas
#include <stddef.h>

// Fortran LAPACK entry points from libopenblas (32-bit integers in
// Debian's libopenblas0; the trailing size_t is the hidden length of the
// character argument that gfortran passes).
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
extern void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda, int *info, size_t uplo_len, size_t diag_len);
extern int openblas_get_num_threads(void);
extern void openblas_set_num_threads(int);

// The wrappers take their scalars by value so that no Go pointer other
// than the matrix crosses into C (a Go local whose address is passed to C
// escapes to the heap: one allocation per call).
static int subtemper_dpotrf(char uplo, int n, double *a, int lda) {
	int info = 0;
	dpotrf_(&uplo, &n, a, &lda, &info, 1);
	return info;
}

static int subtemper_dpotri(char uplo, int n, double *a, int lda) {
	int info = 0;
	dpotri_(&uplo, &n, a, &lda, &info, 1);
	return info;
}
static int subtemper_dtrtri(char uplo, char diag, int n, double *a, int lda) {
	int info = 0;
	dtrtri_(&uplo, &diag, &n, a, &lda, &info, 1, 1);
	return info;
}
*/
import "C"

func dpotrf(uplo byte, n int, a []float64, lda int) int {
	return int(C.subtemper_dpotrf(C.char(uplo), C.int(n), (*C.double)(&a[0]), C.int(lda)))
}

func dpotri(uplo byte, n int, a []float64, lda int) int {
	return int(C.subtemper_dpotri(C.char(uplo), C.int(n), (*C.double)(&a[0]), C.int(lda)))
}

func dtrtri(uplo, diag byte, n int, a []float64, lda int) int {
	return int(C.subtemper_dtrtri(C.char(uplo), C.char(diag), C.int(n), (*C.double)(&a[0]), C.int(lda)))
}

// Threads returns the number of threads OpenBLAS runs its routines on.
func Threads() int { return int(C.openblas_get_num_threads()) }

// SetThreads sets the number of threads OpenBLAS runs its routines on
// (n < 1 is treated as 1). It overrides OPENBLAS_NUM_THREADS for the rest
// of the process and affects every caller of OpenBLAS in it.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(max(n, 1))) }
