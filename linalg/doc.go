// Package linalg is the swappable dense linear algebra under the GP and
// MVN models: a small Backend interface aimed at their hot paths, a
// registry of backends by name, and the generic CPU backend that the
// pure-Go "gonum" backend and the cgo "openblas" backend are built from
// (the latter with its own vectorised elementwise passes, RowKernels).
//
// # The backend contract
//
// A Backend hands out handles that own their memory: data are uploaded
// once when a handle is created (a GPU backend keeps inputs, targets and
// workspaces resident on the device), a subsample of the observations is
// an index list (repeats allowed, at most N long), and per evaluation only
// scalars and the gradient cross back. Workspaces are sized at creation
// for the largest subset, so steady-state calls do not allocate.
//
//   - Matrix: upload a square matrix, in-place Cholesky, log-determinant,
//     solve and inverse from the factor, GEMM.
//   - GP: an ARD kernel (squared exponential, or Matérn 1/2, 3/2, 5/2
//     through NewGPKernel on a KernelBackend) of a subset with the noise
//     variance (and an optional jitter) on the diagonal; the log-likelihood
//     and its gradient ½·Σ_ij (α_i α_j − (K⁻¹)_ij)·∂K_ij/∂u for all D+2
//     log-hyperparameters u.
//   - MVN: batched sums of squared distances between whitened
//     observations of a subset and a batch of parameter vectors, through
//     one GEMM.
//
// A matrix that is not positive definite in floating point gives an error
// wrapping ErrNotPositiveDefinite — never a panic, never a NaN that
// travels on — and the handle stays usable. Every backend passes the same
// conformance suite, package linalgtest, against the pure-gonum results.
// Backends are safe for concurrent use; handles are not: one per
// goroutine.
//
// # Choosing a backend
//
// Backends register themselves by name; Get(name) returns one and Names
// lists those compiled in. "gonum" (pure Go, gonum.org/v1/gonum) is always
// there and is the default (Get("")). The others need a build tag and a
// blank import (harmless without the tag):
//
//	import _ "github.com/subtemper/subtemper/linalg/openblas" // go build -tags openblas
//
// "openblas" needs cgo and libopenblas-dev; on the two shared cores here
// it factored a 4096×4096 matrix about ten times faster than "gonum" (see
// the benchmarks, `go test -tags openblas -bench . ./linalg/...`) and it
// is the choice for GP subsets above a few hundred points. For small
// matrices the cgo call and OpenBLAS's thread hand-off eat much of the
// gain. A CUDA backend (tag cuda) is for N in the thousands.
//
// # Threads: OPENBLAS_NUM_THREADS and GOMAXPROCS
//
// The two pools are independent and do not know of each other.
//
//   - gonum's BLAS parallelises Dgemm (and through it the blocked Dpotrf and
//     Dpotri) over goroutines, at most GOMAXPROCS at a time. The Go
//     scheduler multiplexes them with every other goroutine, so running
//     several chains in parallel on the "gonum" backend never uses more
//     than GOMAXPROCS threads: parallel chains and parallel BLAS share the
//     cores.
//   - OpenBLAS runs its own pthreads: OPENBLAS_NUM_THREADS of them (read
//     once, when the library loads; default: one per core; openblas.
//     SetThreads changes it at run time). Its worker threads spin while
//     they wait for work. A goroutine in a cgo call holds an OS thread
//     outside GOMAXPROCS' count, so k goroutines calling OpenBLAS at once
//     put k × OPENBLAS_NUM_THREADS busy threads on the cores, on top of the
//     GOMAXPROCS threads running Go code: with more than one caller the
//     cores are oversubscribed and spinning threads steal time from the
//     ones doing work, which costs far more than the parallelism gains.
//
// Recommended: with the openblas backend, either evaluate the likelihood
// of one chain at a time and let OpenBLAS have all cores (the default; the
// right choice for large subsets, where one factorisation saturates the
// machine), or run chains in parallel with OPENBLAS_NUM_THREADS=1 and
// GOMAXPROCS = number of cores (the right choice for many chains on small
// subsets). Never combine parallel chains with a multithreaded OpenBLAS.
// The library keeps OpenBLAS's own default (all cores); the command-line
// tool, which runs its chains in parallel goroutines, sets the OpenBLAS
// thread count to max(1, cores/chains) unless OPENBLAS_NUM_THREADS is set,
// and records it in summary.json; to predict, it runs the posterior draws
// in GOMAXPROCS goroutines and sets OpenBLAS to one thread (the same
// condition). The benchmarks evaluate one likelihood
// at a time and leave OpenBLAS on all cores. Results do
// not depend on GOMAXPROCS (gonum's Dgemm computes each output block in
// the same order whatever the number of workers); OpenBLAS results may
// differ in the last bits between thread counts.
package linalg
