// Package mvn is the multivariate-normal mean model of the paper §4.1, a
// target with a known Gaussian posterior and a likelihood whose cost is
// linear in the number of observations:
//
//	x_n ~ N(θ, Σ) iid, n = 1..N, with Σ known (D×D),
//	θ_d ~ N(0, σ0²) iid, d = 1..D.
//
// The sampling space is θ itself (u = θ, no transform, no Jacobian).
//
// # Computation
//
// Σ = L·Lᵀ is factored once and the observations whitened, w_n = L⁻¹x_n,
// and uploaded to a [linalg.MVN] handle of the backend the caller chooses.
// For a batch of B parameter vectors θ_b, t_b = L⁻¹θ_b and
//
//	log p(x_S | θ_b) = −½ Σ_{n∈S} |w_n − t_b|² − |S|/2·log|2πΣ|,
//	∇_θ = L⁻ᵀ · Σ_{n∈S} (w_n − t_b),
//
// evaluated observation by observation with one GEMM over the subset
// ([Model.LogLikBatch]) — deliberately not through sufficient statistics:
// the model exists to have cost ∝ |S| (α = 1 in the paper's cost model).
// [Model.LogLik] is the single-θ case. After the first call at a given
// batch size neither allocates.
//
// # Analytic posterior
//
// For a subset S (n = |S|) and a power β of the likelihood, the tempered
// posterior p(θ)·p(x_S|θ)^β is Gaussian with
//
//	precision P = I/σ0² + β·n·Σ⁻¹,  mean = P⁻¹·β·Σ⁻¹·Σ_{n∈S} x_n;
//
// [Model.Posterior] returns it (mean as a []float64, covariance as a
// *mat.SymDense), for the samplers' exactness tests.
//
// # Synthetic data: how Σ and σ0 are chosen
//
// The paper states neither Σ nor σ0. The defaults here are
//
//	Σ_ij = ρ^|i−j| with ρ = 0.5 (unit variances; [ARSigma]),  σ0 = 1.
//
// The AR(1) (Kac–Murdock–Szegő) matrix is correlated — neighbouring
// coordinates have correlation 0.5, so the posterior, whose covariance is
// ≈ Σ/N, is not axis-aligned — yet well conditioned for every D (its
// eigenvalues lie in ((1−ρ)/(1+ρ), (1+ρ)/(1−ρ)) = (1/3, 3)), deterministic
// (it does not depend on the seed), and nested: Σ for D = 5 is the leading
// block of Σ for D = 100. σ0 = 1 puts the prior on the scale of the data;
// with N ≥ 64 observations the likelihood dominates, while the hottest
// subsampled levels (a few observations) still feel the prior. Both are
// options of [Synthetic].
//
// [Synthetic] draws θ from the prior and x_n = θ + L·z_n with z_n iid
// standard normal. As for the GP, θ and the rows of X come from independent
// streams of the seed, and row n uses only the n-th block of its stream, so
// for a given seed the first n observations are the same whatever N is.
//
// # Files
//
// [ReadCSV] reads observations (a header row, then N rows of D finite
// numbers); [ReadSigmaCSV] reads Σ (D rows of D numbers, an optional header
// row; symmetric and positive definite); [WriteCSV] writes observations.
// Errors name the file, line and column.
//
// # Benchmarks
//
// BenchmarkLogLikBatch/<backend>/N=<n> times LogLikBatch with gradients for
// a batch of 8 parameter vectors at D = 50, N = 64…8192, on every
// compiled-in backend; the sub-benchmark "fit" reports the fitted exponent
// α of t ∝ N^α (metric alpha), expected ≈ 1. (With the gonum backend,
// gonum's GEMM starts goroutines above a size threshold, which shows as a
// few allocations per call at N ≥ 256; below it, and for the model's own
// code at every size, there are none.)
//
// A *Model is a model.Target (and model.Starter, with the optional
// capabilities it has), so any of tempering's samplers runs on it as it
// is; the model imports only package model, not the samplers.
package mvn
