// Package cuda is the CUDA backend of package linalg, registered as
// "cuda" when the module is built with the build tag cuda:
//
//	go build -tags cuda ./...
//	subtemper ... --backend cuda
//
// Without the tag the package compiles to a stub (Available returns
// ErrNotCompiled, nothing is registered) and imports nothing from CUDA, so
// `go build ./...` and `go test ./...` never need a GPU or a CUDA toolkit.
// A program may import the package unconditionally for its side effect.
//
// # Registration and devices
//
// With the tag, the backend is registered in init whether or not a device
// is present; the device is initialised lazily by the first constructor
// (NewMatrix, NewGP, NewMVN), once per process. Where no device is present
// (cuInit or cuDeviceGetCount fails, or reports none) every constructor
// returns an error wrapping ErrNoDevice, so `--backend cuda` on a machine
// without a GPU says "cuda: no CUDA device present: ..." instead of "not
// compiled in"; Available reports the same without creating a handle.
// The device is SUBTEMPER_CUDA_DEVICE (an ordinal, default 0); its primary
// context is used. SUBTEMPER_CUDA_SYNC says how a host thread waits for the
// device: blocking (the default: it sleeps until the device signals),
// spin (it busy-waits, a host core per waiting thread), yield, or auto
// (the driver's choice, which spins where it has the cores). A binary
// built with the tag links libcuda.so.1, libcublas and libcusolver
// dynamically and does not start where they are missing.
//
// # Design
//
// All data are resident on the device: a GP handle uploads its centred
// inputs and targets once; per evaluation the host computes ℓ = exp(u)
// (D numbers), writes ℓ and the subset's indices into pinned memory and
// one asynchronous copy sends them; everything else is enqueued on the
// handle's own stream, and one cuStreamSynchronize ends the evaluation
// after one copy brings back a block of (D+5)·8 + 16 bytes: the quadratic
// form, the log-determinant, a pivot check, the gradient and the status
// words. Workspaces are sized for the full data at creation (the n×n
// matrix, [Z 1] and P·[Z 1], vectors, reduction partials, the cuSOLVER
// workspace queried with the _bufferSize calls), so evaluations allocate
// nothing, on the device or in Go.
//
// Matrices are row-major in Go and column-major in cuBLAS and cuSOLVER.
// A row-major matrix read column-major is its transpose, so a symmetric
// matrix kept in its upper row-major triangle is the lower column-major
// triangle, and every cuSOLVER and cuBLAS call uses
// CUBLAS_FILL_MODE_LOWER on the untransposed buffer. The lower
// column-major triangle is chosen because cuSOLVER factors it much faster:
// on an H100 at n = 16384, Dpotrf took 41.4 ms (35.4 TFLOP/s; Xpotrf
// 37.3 ms) on the lower triangle and 62.5 ms (23.5 TFLOP/s) on the upper,
// against 63.9 TFLOP/s for DGEMM in the same run (cuda/testdata/probe.cu,
// output in docs/measurements/h100-2026-11-23/probe.txt). The factor is
// the column-major lower L, which reads row-major as Lᵀ in the upper
// triangle. The dense Matrix keeps the
// contract of the CPU backends (Cholesky reads the lower row-major
// triangle; Get then shows L there): Cholesky first mirrors the lower
// triangle into the upper one on the device, and Get after Cholesky
// mirrors the factor back into the lower one before downloading.
//
// The inverse from the factor, A⁻¹ = L⁻ᵀL⁻¹ (inverse.go), does not use
// cusolverDnDpotri, which took 222 ms at n = 16384 (13 TFLOP/s; its trtri
// alone 183 ms): a recursive trtri and lauum, as in LAPACK's recursive
// variants, spend the same 2n³/3 flops in cuBLAS TRMM and SYRK calls on
// blocks split at multiples of 64, with two custom kernels for the 64×64
// diagonal leaves (trtri_leaf, all leaves in one launch; lauum_leaf). At
// n = 16384 it takes 106.1 ms (BenchmarkInverse, same measurements).
//
// One GP evaluation, LogLik(subset, u, grad), on m = |subset| points:
//
//  1. gp_scale (custom): gather the subset through its index list and
//     scale, Z = X_S/ℓ, with a column of ones appended, [Z 1] (m×(D+1));
//     y_S.
//  2. gp_kernel (custom): the upper row-major triangle of
//     K = σf²·exp(−½|z_i−z_j|²) + (σn² + jitter)·I, from direct
//     differences (no Gram-matrix cancellation), one 32×32 tile per block
//     over the m(m+1)/2 upper tiles, D staged through shared memory 32
//     dimensions at a time, so any D works; stores are coalesced along
//     rows.
//  3. cusolverDnDpotrf; α = K⁻¹y by cusolverDnDpotrs; gp_quad_logdet
//     (custom, one block) reduces yᵀα and 2·Σ log L_ii on the device and
//     counts pivots that are not finite and positive.
//  4. With a gradient: the recursive inverse (K⁻¹ in the upper row-major
//     triangle); gp_pmat (custom) overwrites it with P = (ααᵀ − K⁻¹)∘Kf, recomputing
//     Kf from Z instead of storing it (an n×n buffer saved), and stores
//     the diagonal of W = ααᵀ − K⁻¹; cublasDsymm forms Q = P·[Z 1], whose
//     last column is r = P·1; gp_grad_partial (custom) reduces
//     g_d = Σ_i z_id(z_id·r_i − Q_id), Σ_i r_i = Σ P (∂/∂log σf) and tr W
//     over blocks of rows, writing per-block partial sums, and
//     gp_grad_final adds them in a fixed order (∂/∂log σn = σn²·tr W).
//
// No kernel uses atomics; every reduction is a fixed tree within a block
// followed by an ordered sum of per-block partials, so a result is bitwise
// reproducible for a given m. Everything is fp64. The kernels after potrf
// read the device-side info words and return at once when a factorisation
// failed; the host then reports an error wrapping
// linalg.ErrNotPositiveDefinite, and no NaN is ever returned as a value.
//
// The MVN batch (MVN.SumSq) gathers the subset rows of [W |w|²] on the
// device, forms G = W_S·Tᵀ with one cublasDgemm, reduces the columns of G
// and of [W_S |w|²] in two blocked stages and finishes on the device; only
// out (and resid) come back.
//
// Predictions at nt test inputs (GP.Predict, which implements
// linalg.PredictGP): the kernel over all N observations is built and
// factored, α = A⁻¹y solved and the factor's pivots checked
// (gp_quad_logdet), with one synchronisation; then, per block of up to
// 2²³/N test inputs (all 10 000 of a typical call at N = 442), the host
// scales the block's inputs and one copy sends them, gp_cross (custom)
// builds K*ᵀ (N×b, column-major, a test input's kernel vector per
// column), gp_coldot (custom, one block per column, a fixed tree) reduces
// its columns against α for the means, one cublasDtrsm overwrites it with
// L⁻¹K*ᵀ (all b right-hand sides at once), gp_coldot reduces the columns'
// squares (σf² − ‖L⁻¹k‖² is the latent variance), and one copy brings
// back 2b numbers: one synchronisation per block. gp.Model.PredictDraws
// gives each worker its own handle, so the draws' factorisations and
// solves overlap on as many streams.
//
// The dense Matrix runs potrf (with the log-determinant computed on the
// device in the same synchronisation), potrs, the recursive inverse (then
// a tiled transpose-copy fills the lower triangle) and cublasDgemm for
// Mul.
//
// Every handle (Matrix, GP, MVN) owns a non-blocking stream, a cuBLAS and
// a cuSOLVER handle; handles are not safe for concurrent use, the backend
// is. Every method locks its goroutine to its OS thread and makes the
// context current for its duration.
//
// # Bindings
//
// The package binds the driver API, cuBLAS and cuSOLVER directly with cgo
// (shim.h: a dozen static wrappers). gorgonia.org/cu v0.9.6 was not used
// because it does not compile against CUDA 13: built on the H100 machine
// (CUDA 13.0), its cuCtxCreate calls lack the CUctxCreateParams argument
// that CUDA 13 added, and cuMemAdvise, cuMemPrefetchAsync and
// cuGraphAddDependencies changed signature too. It also has no cuSOLVER,
// and the handful of calls needed here are simpler to audit as explicit C. Kernel arguments are packed on the C
// stack by the wrappers, so no Go pointer is ever stored in C memory.
//
// The build uses -I/usr/local/cuda/include and -L/usr/local/cuda/lib64
// (then lib64/stubs for libcuda.so, for linking where only the toolkit is
// installed). Elsewhere, set CGO_CFLAGS and CGO_LDFLAGS, whose flags come
// before the package's: for example
//
//	CGO_CFLAGS=-I/opt/cuda/include CGO_LDFLAGS=-L/opt/cuda/lib64 go test -tags cuda ./cuda/
//
// # Kernels
//
// kernels.cu holds the custom kernels; kernels.ptx, generated from it and
// committed, is embedded and loaded with cuModuleLoadData. Regenerate it
// after editing kernels.cu:
//
//	go generate -tags cuda ./cuda/    # gen_ptx.sh: nvcc -ptx -arch=compute_80, stamped PTX ISA 7.8
//
// gen_ptx.sh sets the PTX's ISA version to 7.8 (CUDA 11.8), which drivers
// from R520 on load, where nvcc 13 would stamp 9.0 and shut out drivers
// before R580; ptxas checks that the kernels need nothing newer.
// compute_80 PTX loads on Ampere and newer; on Hopper (sm_90) the driver
// compiles it to native code when the module is loaded. The kernels use no
// Hopper-only instruction, so nothing is lost against -arch=sm_90.
//
// # Working on a GPU machine without Go
//
// The GPU machines lent to this project have CUDA (nvcc, headers,
// libraries) but no Go toolchain. scripts/cuda-bundle.sh (make
// cuda-bundle) packs a minimal Go toolchain and the vendored module tree
// (about 24 MB and 4 MB as .tar.xz) into .cuda-bundle/, ignored by git,
// with run-on-device.sh, which unpacks them there, vets, runs the tests of
// ./cuda/ and ./linalg/... with -tags cuda, the benchmarks
// (Cholesky|Solve|Inverse|GEMM|GPStep/cuda/N=256…16384, GFLOP/s) and
// builds the CLI. It finds the toolkit through nvcc (else CUDA_HOME, else
// /usr/local/cuda). It also carries OpenBLAS as Debian packages, unpacked
// under /tmp/ob (never into /), for the openblas backend on the machine's
// own cores beside cuda. Stages can be named together; on an H100 the
// tests took 21 s, the benchmarks 68 s (COUNT=3), cpu 11 s and the STT
// run 173 s (150 iterations), so all four fit one 10-minute call:
//
//	make cuda-bundle
//	# device tool: carry [".cuda-bundle"], then
//	bash .cuda-bundle/run-on-device.sh test   # nvcc, vet, conformance suite
//	bash .cuda-bundle/run-on-device.sh bench  # Cholesky, Solve, Inverse, GEMM, GPStep to N=16384
//	bash .cuda-bundle/run-on-device.sh cpu    # GPStep N=4096: openblas beside cuda
//	bash .cuda-bundle/run-on-device.sh stt    # subtemper gp --backend cuda, STT, N=8192
//	bash .cuda-bundle/run-on-device.sh sanitize  # compute-sanitizer memcheck + racecheck (166 s)
//	bash .cuda-bundle/run-on-device.sh race      # go test -race -tags cuda ./cuda/ (43 s)
//	bash .cuda-bundle/run-on-device.sh test bench cpu stt  # all four
//	bash .cuda-bundle/run-on-device.sh fit        # subtemper gp --n 16384 --dims 8 --backend cuda
//	bash .cuda-bundle/run-on-device.sh large      # one gradient at LARGE_N (32768), D = 8
//	bash .cuda-bundle/run-on-device.sh concurrent # 1, 2, 4 handles evaluating at once
//
// BENCH narrows the benchmarks' -bench pattern, BENCHTIME and COUNT set
// -benchtime and -count, STT_N, STT_WARMUP and STT_DRAWS size the STT run,
// FIT_N, FIT_DIMS, FIT_FLAGS and FIT_TIMEOUT the fit, SAN_TOOLS and SAN_RUN
// narrow the sanitizer's tools and tests. scripts/cuda-vet.sh type-checks
// the package with the cuda tag on a machine without CUDA, against the stub
// headers in scripts/cuda-stub.
// Logs go to $OUT (else /tmp/cuda-out).
//
// cuda/testdata/probe.cu times the cuSOLVER and cuBLAS calls the design
// above was chosen from (potrf on either triangle, potri, trtri, SYRK,
// TRMM, DGEMM); build it with nvcc as its comment says.
//
// On any machine with CUDA and Go, simply:
//
//	go test -tags cuda ./cuda/ ./linalg/...
//	go test -tags cuda -run '^$' -bench . -benchtime 3x ./cuda/
//
// The tests skip (t.Skip) only where no CUDA device is present; a device
// that is present but cannot be set up fails them.
//
// # Performance
//
// On one H100 80GB HBM3 (CUDA 13.0; docs/measurements/h100-2026-11-23 in
// the repository holds the raw output): Cholesky at n = 16384 ran at
// 39.6 TFLOP/s, 70% of DGEMM's 56.6 in the same run; the inverse from the
// factor at 27.9 TFLOP/s (106 ms); a GP log-likelihood with gradient
// (D = 18) took 148.6 ms at n = 16384, 37.6 ms at 8192 and 12.6 ms at 4096
// (the openblas backend on the machine's 16 cores: 883 ms at 4096). Small
// problems are bound by launches and synchronisation: a GP step takes
// about 0.5 ms at n = 256 and 2.2 ms at 1024, so the GPU gains little
// below a few hundred points. Posterior-averaged predictions
// (gp.BenchmarkPredictDraws, medians of 3, docs/measurements/2026-11-26/gpu-predict):
// at N = 442, D = 10, 10 000 test inputs and 1 000 draws, 1.00 s against
// 17.7 s for openblas on the machine's 16 cores; at N = 4096 with 20
// draws, 0.24 s against 45 s. On one H200 (docs/GPU.md): a log-likelihood
// with gradient at D = 8 took 0.858 s at n = 32768 and 2.28 s at 46336;
// the CLI's default fit converged at N = 16384, D = 8 in 204 s wall.
//
// # Subsampling, memory
//
// As on the CPU backends, the GP handle gives the log-likelihoods of a
// subset's leading parts from one factorisation (model.PrefixLiker: one
// cublasDtrsv for v = L⁻¹y and a strided copy of L's diagonal, summed on
// the host) and resumes a gradient from the factor the last evaluation
// without one kept (model.GradResumer; on a strict prefix of k rows the
// factor's leading k×k block is packed into a second n×n buffer, allocated
// on first use, by one cuMemcpy2DAsync). The MVN handle reorders its rows
// on the device (model.Reorderer), reads a prefix of that order without
// a gather, and gives the sums over its leading parts (linalg.PrefixMVN).
//
// A handle needs GPMemory(n, d) bytes of device memory; NewGP refuses, before
// allocating, a handle that would not fit the free memory, with an error
// that says what is needed and what is free and wraps model.ErrOutOfMemory
// (as does any allocation the device refuses), so that the samplers' pools
// of model copies run with fewer copies instead. MemInfo reports the free
// and total memory.
package cuda
