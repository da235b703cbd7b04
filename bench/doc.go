// Package bench is the cost model of tempering by subsampling and the
// harness that reproduces the paper's experiments (§4).
//
// # Cost model
//
// The paper (§3.1) assumes one transition on n observations costs
// τ*·n^α and derives closed forms for the cost of an iteration of each
// driver relative to the inner kernel alone. ClosedForm gives them in
// three families: the paper's as printed (Paper…: its STT formula has
// β*^{α/M} where β*^α belongs, PT is M and TT 2(M−1)), the same count done
// right for Algorithm 2's placement (Corrected…: PT M+1, TT 2M, STT
// 2·τ^SPT − 1 − β*^α), and the count for Neal (1996)'s form of tempered
// transitions that package tempering implements (Neal…: ascending and
// descending transitions both at levels 1..M, so TT 2M and STT
// 2·Σ_{m=1}^M β_m^α). With β* = 1/8, M = 6: paper STT 4.52 (α = 1) and
// 1.74 (α = 3), corrected 5.10 and 2.09, Neal form 4.22 and 1.09.
//
// Closed forms count transitions only, and assume one power law. The
// prediction the benchmarks check does neither: Predict multiplies the
// drivers' own counters (tempering.LevelStats: evaluations with and
// without gradient, gradient resumes, and prior evaluations, per level and
// subset size) by c_val(n), c_grad(n), c_resume(n) and c_prior measured by
// MeasureCost on the target
// itself, at octave sizes N, N/2, …, β*N, and interpolated piecewise on
// log–log axes (CostCurve). A single fitted power law (CostCurve.Fit) is
// reported beside it; it predicts worse wherever the local exponent
// drifts with n, which it does for both models at the paper's sizes.
//
// # Benchmarks
//
// BenchmarkIteration/<model>/N=<n>/<driver> times one chain of each driver
// (none, pt, tt, spt, stt, and spt-deo: SPT with the DEO swap schedule)
// with the paper's HMC against one chain of HMC alone, interleaved (Pair),
// on the MVN (D = 50, L = 10, N = 64…2048) and GP (D = 18, L = 5,
// N = 64…1024) models, and reports s/iter, ratio_measured, ratio_median,
// ratio_predicted (count-based), ratio_powerlaw, ratio_alpha_paper (the
// same counts priced at the paper's α, CostCurve.Anchored) and
// ratio_transitions (the transitions alone, Pair.TransitionRatio: what the
// driver would cost if its swaps and re-evaluations were free). Run them with
//
//	go test -tags openblas -run '^$' -bench Iteration -benchtime 3x ./bench/
//
// (SUBTEMPER_BACKEND picks the backend, default the fastest compiled in;
// OpenBLAS runs on one thread unless SUBTEMPER_BLAS_THREADS says otherwise;
// SUBTEMPER_BENCH_MAXN caps N).
//
// # Reproduction
//
// Grid lists the cells of the paper's grid for a Budget (quick, full):
// runtime cells (all five samplers timed on one model and N) and ESS cells
// (all five samplers, three chains each from θ*, θ*/2, 2θ*, on one model,
// kernel, N and dimension, run in blocks until the median R-hat < 1.1 or
// the budget ends). RunCell runs one, seeded from the run's seed and the
// cell's key, so that results do not depend on sharding; Reproduce runs a
// shard of the grid and writes one JSON file per cell; Merge reads the
// shards back, reports missing and duplicate cells, and WriteReport writes
// the tables (CSV and Markdown, shaped like the paper's Tables 1–2) and
// figures (PNG and SVG, like its Figs. 1–3) deterministically.
//
// ESS per second is the median over parameters of the paper's ESS (eq. 9)
// on the second half of the draws of the three chains, divided by the
// compute seconds the three chains spent on those draws (each chain timed
// alone, one after the other). A sampler whose median R-hat on those
// draws is ≥ 1.1 is marked as not converged.
package bench
