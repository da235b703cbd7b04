// Package diag computes convergence diagnostics for Markov chain Monte Carlo
// draws: the potential scale reduction R̂ and the effective sample size (ESS).
//
// Two families are provided.
//
// The paper's diagnostics (eqs. 8 and 9 of "tempering by subsampling"):
// RhatPaper is the classic Gelman–Rubin R̂ of C chains of S draws,
//
//	B   = S/(C−1) Σ_c (mean_c − mean)²
//	W   = (1/C) Σ_c s²_c               (within-chain sample variances)
//	Var = (S−1)/S · W + B/S
//	R̂   = sqrt(Var/W)
//
// and ESSPaper is C·S·min(1, Var/B). (The paper's formula for W omits the
// square; W is the mean of the within-chain variances.)
//
// The modern diagnostics of Vehtari, Gelman, Simpson, Carpenter and Bürkner
// (2021), "Rank-normalization, folding, and localization: an improved R̂ for
// assessing convergence of MCMC", Bayesian Analysis 16(2), as the R package
// posterior 1.4 implements them: Rhat (the larger of RhatBulk and RhatTail,
// both rank-normalized split R̂, the tail one on draws folded about their
// median), ESSBulk, ESSTail, ESSQuantile, ESSMean and MCSEMean. Effective
// sample sizes use Geyer's initial monotone sequence estimator over
// autocovariances computed by FFT (gonum.org/v1/gonum/dsp/fourier), so
// every function is O(n log n) in the number of draws (ranks come from a
// radix sort). The functions agree with posterior 1.4 to within 3e-14
// relative on every case in testdata/, odd draw counts, ties, heavy tails,
// a single chain, short chains and infinite draws included (see
// testdata/reference.R and reference_data_test.go).
//
// # Input
//
// The draws of one variable are a [][]float64 indexed [chain][draw]; all
// chains must have the same number of draws. Validate reports, as an error,
// why a set of chains is structurally unusable (no chains, no draws,
// unequal lengths). The estimators themselves never panic and never return
// an error: they return NaN for any input they cannot estimate from, so a
// table of diagnostics can always be filled. Summarize validates first and
// returns an error for structurally bad input.
//
// # Edge cases
//
// The conventions follow posterior's, which returns NA where this package
// returns NaN:
//
//   - Structurally invalid input (no chains, an empty chain, chains of
//     unequal length): every estimator returns NaN; Validate and Summarize
//     return an error.
//   - A NaN anywhere in the draws: every R̂, ESS and MCSE is NaN, and so are
//     Mean, SD, Median, MAD and Quantile.
//   - ±Inf in the draws: the rank-based RhatBulk, RhatTail, Rhat and ESSBulk
//     are still computed (ranks are finite), as posterior does; ESSTail,
//     ESSQuantile, ESSMean, MCSEMean, RhatBasic, RhatPaper and ESSPaper are
//     NaN. Mean is ±Inf, or NaN when both signs occur, and SD is NaN, as
//     in R. Quantiles follow R's type-7 rule and may be ±Inf; MAD is NaN
//     when the median is infinite.
//   - Constant draws (max − min < 2.2e-16, the machine epsilon, over all
//     chains: posterior's is_constant): RhatBasic, RhatPaper, ESSPaper,
//     ESSMean, ESSTail, ESSQuantile and MCSEMean are NaN; SD and MAD are 0.
//     The rank-based RhatBulk and ESSBulk apply the test after rank
//     normalization, so they are NaN when all draws are equal, and RhatTail
//     (hence Rhat) when all folded draws are; Summary follows the same
//     rules. ESSQuantile applies it to the indicator draws as well: a
//     quantile with no draw above it gives NaN. Chains that are each
//     constant but differ from one another are not constant: R̂ is +Inf
//     (zero within-chain variance).
//   - A single chain: the split diagnostics work (the chain is split in
//     two); RhatPaper and ESSPaper need C ≥ 2 and return NaN.
//   - Short chains: split R̂ needs at least 4 draws per chain (two per half)
//     and returns NaN below that; the ESS functions need at least 3 draws
//     per half-chain, that is 6 draws per chain, and return NaN below that
//     (posterior returns NA when a split chain has fewer than 3 draws).
//     For 2 or 3 draws per chain posterior 1.4 returns numbers that come
//     from an accidental transposition in its chain splitting; this package
//     returns NaN instead. RhatPaper and ESSPaper need S ≥ 2.
//   - Odd numbers of draws: split chains drop each chain's middle draw, as
//     posterior does; ranks are then taken over the remaining draws, while
//     the folding median and the ESSQuantile threshold use all draws.
//   - Very small ESS: like posterior, the autocorrelation time is bounded
//     below by 1/log10(C·S), which caps ESS at C·S·log10(C·S).
//   - Very large or very small magnitudes (draws beyond 2^±448 ≈ 1e±135,
//     such as natural-unit draws of a model of huge data): the sums of
//     squares behind SD, MCSEMean and every R̂ and ESS are taken over the
//     draws scaled by a power of two, exactly, so they neither overflow nor
//     underflow: SD and MCSEMean are those of the scaled draws scaled back,
//     R̂ and ESS those of the scaled draws. Mean is finite for finite draws
//     whose sum exceeds the float64 range. Ordinary draws are not scaled.
//     (The constant-draws test above stays absolute, as in posterior: draws
//     whose range is below 2.2e-16 are constant at any magnitude.)
//
// # Reading draws
//
// ReadCSV reads draws in long form (a header, the label columns .chain,
// .iteration and .draw of R posterior's draws_df or the older chain and
// draw, one column per variable), the form the CLI writes and that
// posterior::as_draws_df reads as it is; its errors name the file, line and
// column at fault.
//
// # Leave-one-out
//
// PSIS smooths importance ratios by Pareto-smoothed importance sampling
// and PSISLOO estimates elpd_loo with its standard error, p_loo and each
// point's Pareto k̂ from per-draw log predictive densities (Vehtari,
// Gelman & Gabry 2017, as the R package loo); PSISLOOChains sizes each
// point's tail by its draws' relative efficiency across Markov chains
// (RelativeEff, loo's r_eff); ELPDDiff takes the paired
// difference of two models' pointwise terms, as loo_compare does.
package diag
