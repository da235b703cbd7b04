// Package openblas registers the "openblas" linear-algebra backend: the
// generic CPU backend of package linalg running on OpenBLAS, through
// gonum.org/v1/netlib's cblas bindings for BLAS, a recursive Cholesky
// factorisation and inverse in C on OpenBLAS's level-3 BLAS, and a small
// cgo shim that calls LAPACK's Fortran dpotrf_, dpotri_ and dtrtri_
// directly.
//
// The backend is compiled in only with the build tag openblas (it needs
// cgo and libopenblas-dev; on Debian `apt-get install libopenblas-dev
// liblapacke-dev`). Without the tag this package is empty and registers
// nothing, so a program may import it unconditionally:
//
//	import _ "github.com/subtemper/subtemper/linalg/openblas"
//
// and then choose the backend at run time with linalg.Get("openblas"),
// which reports an error naming the tag when it was not compiled in.
//
// # Why not gonum.org/v1/netlib/lapack/netlib
//
// netlib's LAPACK bindings call LAPACKE with row-major layout, which
// transposes the whole matrix into a column-major copy and back on every
// call: measured here 1.6–2.3× slower than dpotrf_ itself. A row-major
// matrix is the column-major storage of its transpose, so the lower
// triangle the backend factors is, to Fortran, the upper triangle of the
// same array: Dpotrf(Lower, row-major) is dpotrf_('U', ...) on the same
// memory, with no copy. Dpotri is mapped the same way.
//
// # Recursive Cholesky and inverse
//
// On the lower triangle, the one the backend uses, Dpotrf and Dpotri do not
// call dpotrf_ and dpotri_ but recursive versions (chol.go): the matrix is
// split into halves [A11 0; A21 A22] down to blocks of order 32, so that
// almost all of the n³ flops of the factorisation (L21 = A21·L11⁻ᵀ, A22 −
// L21·L21ᵀ), the triangular inverse and the product L⁻ᵀ·L⁻¹ run in OpenBLAS's
// GEMM, TRMM and SYRK on large blocks. The solve for L21 is itself split
// recursively into GEMM updates, and its 32-column leaves multiply by the
// inverted 32×32 diagonal block with GEMM: given only those leaves,
// OpenBLAS's TRSM kernel still took 29% of the factorisation's time at
// n = 512 (perf). OpenBLAS 0.3.21's own routines work in
// fixed panels and run far below its GEMM rate at the subset sizes of a
// temperature ladder. Side by side on one thread (AMD EPYC, Zen 4;
// BenchmarkPotrfPotriRecursive against BenchmarkPotrfPotriDirect, -benchtime
// 5x, medians of 3 and of 6), the recursive pair ran at 26.2 against 14.9
// GFLOP/s at n = 256, 36.5 against 22.2 at 512, 42.5 against 33.9 at 1024
// and 47.2 against 41.1 at 2048 (1.76×, 1.64×, 1.25×, 1.15×); with
// OpenBLAS's TRSM in the solve it had run at 20.8, 28.8, 38.3 and 44.1.
// TestRecursiveMatchesLAPACK holds both to dpotrf_ and dpotri_ to rounding,
// including the index of the first minor that is not positive definite.
//
// # Elementwise passes
//
// Besides BLAS and LAPACK, an evaluation of the GP log-likelihood makes two
// passes over the n×n kernel matrix: the squared-exponential kernel from
// the Gram matrix (n²/2 exponentials) and the gradient's P = (ααᵀ − K⁻¹)∘Kf
// with P·[Z 1]. In Go they took about 30% of the evaluation time at n = 2048;
// the backend runs them as vectorised C instead (Kernels, tested against
// math.Exp to 4 ulp and against a dense product), which leaves the
// evaluation within about 20% of the factorisation and inverse alone
// (BenchmarkPotrfPotriDirect, BenchmarkPotrfPotriRecursive).
//
// Predictions (linalg.PredictGP) make two more passes per block of test
// inputs, also in C: the cross-kernel straight from the differences of
// scaled inputs, with the same exponential (N·D subtractions and
// multiply-adds and N exponentials per test input), and the sums of
// squares of the rows of L⁻¹K*ᵀ. These two are also compiled for AVX-512,
// used when the CPU has it: on the AMD EPYC (Zen 4) here the cross-kernel
// took a median 1.47 ns per entry with AVX-512 and 1.92 with AVX2 at
// N = 442, D = 10 (BenchmarkSECross, -benchtime 2000x -count 5;
// docs/measurements/2026-11-25/predict-speed), where a GEMM for the Gram
// matrix followed by the AVX2 exponential had taken about 2.2.
//
// # Threads
//
// OpenBLAS runs its own pthreads, OPENBLAS_NUM_THREADS of them (default:
// one per core), independent of GOMAXPROCS; see the linalg package
// documentation for how the two interact. With the tag, Threads and
// SetThreads read and set OpenBLAS's thread count at run time.
package openblas
