// Package gp is Gaussian-process regression with an ARD kernel (the
// squared exponential, or Matérn 1/2, 3/2, 5/2: [Kernel]), as a Bayesian
// model whose hyperparameters are sampled: the log marginal likelihood of
// any subset of the observations and its gradient, the paper's priors,
// synthetic data (paper §4.2) and user data from CSV files.
//
// # Model
//
// For inputs X (N×D) and targets y (N),
//
//	k(x, x') = σf² exp(−Σ_d (x_d − x'_d)² / (2 ℓ_d²)),
//	y_S ~ N(0, K_SS + (σn² + jitter)·I),
//
// for the squared exponential (SE, the default); [Options].Kernel chooses
// a Matérn family instead, the same function of the scaled distance
// r² = Σ_d (x_d − x'_d)²/ℓ_d² as [linalg.Kernel] gives, with the same θ.
//
// with θ = (ℓ_1, …, ℓ_D, σf, σn), |θ| = D+2. The likelihood does not factor
// over observations: a subset S means the kernel matrix of that subset. The
// sampling space is u = log θ (every component is positive); [Model.LogPrior]
// includes the log-Jacobian Σ u of the transform, so that
// exp(LogPrior(u)+LogLik(u)) is a density in u.
//
// The priors are the paper's, every hyperparameter configurable through
// [Prior] (its zero value is the paper's prior):
//
//	ℓ_d ~ LogNormal(μ0 = 0.5, σ0 = 1)   (so u_d ~ N(μ0, σ0²))
//	σf  ~ Gamma(shape 4, rate 1)
//	σn  ~ Gamma(shape 2, rate 2)
//
// Chains start at θ*, θ*/2 and 2θ* with θ* the prior mean
// ([Prior.Mean], [Prior.StartPoints]).
//
// # Computation
//
// A [Model] evaluates through a [linalg.GP] handle of the backend the caller
// chooses (pure-Go gonum, OpenBLAS, CUDA): the data are uploaded once and a
// subset is an index list. The model keeps no N×N matrix of its own: the
// backend's two N×N workspaces are the whole O(N²) footprint, so peak memory
// is 2·N² float64 plus O(N·D). After the first evaluation at a given subset
// size, LogLik does not allocate (with the gonum backend this holds below
// the sizes at which gonum's parallel BLAS starts goroutines; the tests check
// it at N = 48).
//
// # Numerical trouble
//
// When K_SS + σn²I is not positive definite in floating point (duplicate
// inputs with tiny noise, very long length scales), LogLik returns −Inf and
// an error wrapping [ErrNotPositiveDefinite] (= [linalg.ErrNotPositiveDefinite]);
// samplers treat it as a rejected proposal and count it. No NaN is ever
// returned. No jitter is added unless asked for: [Options].Jitter adds a
// constant to the diagonal (on top of σn², outside the gradient), and
// [Model.Jitter] reports it.
//
// # Data
//
// [Synthetic] draws data as the paper §4.2 does: θ from the prior,
// X ~ N(0, (mean ℓ)² I_D), y ~ N(0, K + σn² I). For a given seed the first n
// observations are the same whatever N is (the paper's N sweeps rely on it):
// θ, the rows of X and the standard normals ε come from three independent
// streams, and y = L·ε with L the Cholesky factor of K + σn²I computed row by
// row, so that y_i depends only on rows ≤ i, bit for bit.
//
// [ReadCSV] reads user data: a header row, input columns and one target
// column (the last, or one chosen by name). [Standardize] centres and scales
// inputs and target, recording a [Standardization] that maps
// hyperparameters back to original units: ℓ_d,orig = ℓ_d·sd(x_d),
// σf,orig = σf·sd(y), σn,orig = σn·sd(y). [WriteCSV] writes a dataset.
//
// # Benchmarks
//
// BenchmarkLogLikGrad/<backend>/N=<n> times LogLik with the gradient at
// D = 18, N = 128…4096, on every compiled-in backend (-tags openblas adds
// OpenBLAS); BenchmarkCholeskyInverse/<backend>/N=<n> times the bare
// Cholesky + inverse at the same sizes, for the ratio. After the sizes of a
// backend, the sub-benchmark "fit" reports the exponent α of t ∝ N^α fitted
// by least squares on log–log (metric alpha, and alpha_large for
// N ≥ 1024), expected to approach 3.
//
// A *Model is a model.Target (and model.Starter, with the optional
// capabilities it has), so any of tempering's samplers runs on it as it
// is; the model imports only package model, not the samplers.
package gp
