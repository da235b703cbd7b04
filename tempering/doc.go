// Package tempering implements tempered MCMC samplers, among them the
// tempering-by-subsampling methods, whose hotter levels condition on
// subsamples of the data and so cost less.
//
// # Model
//
// A model satisfies Target: its log prior and the log-likelihood of any
// subset of its observations, both with optional gradients. The ladder has
// levels m = 0..M with inverse temperatures 1 = β_0 > β_1 > … > β_M = β*,
// geometric to begin with (β_m = β*^{m/M}; by default M = DefaultLevels = 10
// and β* = DefaultBetaMin = 1/8) and placed
// during warm-up unless fixed (see Adaptive ladder). Level m targets
//
//	PT, TT:    log h_m(θ) = β_m·log p(X | θ) + log p(θ)
//	SPT, STT:  log h_m(θ) = log p(X_m | θ) + log p(θ),  |X_m| = max(1, round(β_m·N))
//
// with recursive subsets X_M ⊂ … ⊂ X_1 ⊂ X_0 = X drawn without replacement:
// once per chain for SPT, afresh at every iteration for STT (shared by the
// ascent and the descent of a tempered transition). Only level 0, the full
// posterior, is returned.
//
// # Kernels and drivers
//
// An inner Kernel (MH: Gaussian random walk with scale σ·β_m^{-1/2}; HMC:
// L leapfrog steps with a Euclidean metric and a divergence check; NUTS:
// Betancourt's multinomial No-U-Turn Sampler with the generalized U-turn
// criterion, as in Stan and BlackJAX) is built per level as a LevelKernel
// with Init and Step, each Step returning a StepInfo. During warm-up only,
// HMC and NUTS adapt at each level separately, in Stan's windowed scheme
// (see Adaptation): the step size by dual averaging and, by default, a
// diagonal inverse metric from the level's states; at the end of warm-up
// the tuning is frozen, so the draws come from fixed, exact kernels.
// AdaptNone keeps the paper's fixed step. Independence (independence MH
// from a Student-t or split-t, for large data after WarmStart.FitProposal)
// and SurrogateTransition (MH steps on a cheap Surrogate, corrected by the
// exact ratio) use log densities only and adapt nothing. A Driver combines levels: None
// (kernel alone), PT, the default, and SPT (a transition at every level,
// then swaps of adjacent levels by the DEO schedule, the default, or the
// paper's Sweep), TT and STT (Neal 1996's tempered transitions: ascend
// with a transition at each level m = 1..M, descend at each level
// m = M..1, accept by a ratio accumulated as a sum of logs), followed by
// Settings.BaseSteps ordinary level-0 transitions: one by default, the
// transition count of the paper's Algorithm 2. With NoBaseSteps level 0
// moves only through accepted tempered transitions (Neal's form); during
// warm-up TT and STT still run at least one level-0 transition per
// iteration, so that the chain leaves its starting point while the
// tempered transitions are still rarely accepted.
//
// A driver is a path, the levels' densities (tempered full-data
// densities for PT and TT, nested subsets for SPT and STT, the target
// alone for None), times a communication scheme, how the levels
// exchange states (swaps for None, PT and SPT; tempered transitions for
// TT and STT), as in Pigeons.jl; the chain keeps the counts, the
// warm-up's bookkeeping and the ladder's adaptation apart from both.
//
// # Adaptive ladder
//
// With Settings.Ladder zero (LadderAdaptive), no explicit Betas and a
// warm-up of 48 iterations or more (the default is DefaultWarmup, 400), the first half of warm-up runs
// rounds of 8, 16, 32, … iterations (the last stretched to end at half
// of warm-up). After each round the levels are placed afresh between
// x_0 = 1 and the hottest level x_M = β*, on the annealing parameter x:
// β for PT and TT, the subset fraction N_m/N for SPT and STT (subsets
// stay nested prefixes of one permutation, sizes strictly decreasing).
// PT and SPT follow non-reversible PT's schedule optimisation (Syed,
// Bouchard-Côté, Deligiannidis & Doucet 2021): the pairs' swap rejection
// rates r_m (mean rejection probabilities) add up to the cumulative
// barrier Λ(x), piecewise linear in log x, which is inverted at equal
// spacings, so that every pair gets the same rejection rate; M is
// ⌈2Λ⌉ (about 2Λ + 1 levels, NRPT's optimum) unless Settings.Levels
// fixes it, at most Settings.MaxLevels. TT does the same with the
// standard deviation of each level's term t_m = log h_m(θ̂_{m−1}) −
// log h_{m−1}(θ̂_{m−1}) + log h_{m−1}(θ̌_{m−1}) − log h_m(θ̌_{m−1}) of
// the log acceptance ratio, which equalises the terms' variances; M is
// then chosen so that the variance of the log ratio, S²/M for
// S = Σ_m sd(t_m), is 2 or less. STT's terms are sums over the
// observations each level drops, whose variances grow with their number
// and so add up along the ladder to a total that more levels do not
// lower: STT equalises the variances themselves (cumulated) and keeps
// its M (Settings.Levels: DefaultLevels, or BarrierStartLevels = 6 with
// LevelsFromBarrier). All of
// Run's chains pool their estimates (in chain order, so results do not
// depend on scheduling) and share one ladder. At each change the hotter
// levels' kernels are rebuilt from the tunings of the nearest old levels and
// adapt for the rest of warm-up (level 0's kernel, whose density is the
// same on every ladder, adapts on through the whole warm-up); PT and SPT copy each new level's state
// from the nearest old level. Counters of replaced ladders move to
// Stats.Retired; Stats.Sampling counts swaps, tempered transitions and
// round trips after warm-up; Result.Ladder reports the ladder, Λ, the
// swap rates and round trips per second. Everything is frozen at the end
// of warm-up, so the draws come from a fixed, exact sampler.
//
// # Cost accounting
//
// Each State caches its level's log density, log-likelihood, log prior and
// (for HMC) gradients, so nothing is evaluated twice: PT swaps and TT ratios
// reuse cached full-data log-likelihoods; SPT swaps need two evaluations on
// the other level's subset; STT needs one evaluation per level on the way up
// and one on the way down (at level 0 a value without gradient). Stats
// counts every evaluation per level, with and without gradient, with the
// level's subset size, so that the cost of a run is Σ_m counts_m·c(N_m).
// Evaluation errors, NaN and +∞ count as log density −∞ (the proposal is
// rejected) and are counted.
//
// The subsets are prefixes X_m = perm[:N_m] of one permutation. A Target
// that implements Reorderer lays its data out in that order (SPT once, STT
// every iteration, counted in Stats.Reorders), so that a subset is read
// contiguously. A Target that implements PrefixLiker gives, with each
// evaluation on X_m, the values on the hotter levels' subsets X_{m+1}, …,
// X_M, which are its prefixes; the state keeps them. An SPT swap then
// evaluates only the hotter state on the colder level's subset (the
// colder state's value on X_m is kept), and an STT ascent with a kernel
// that needs no gradient evaluates only on X_1. Values so reused are
// counted in LevelStats.PrefixReuses, not as evaluations; the draws are
// those the chain makes without them, up to rounding. A Target that
// implements GradResumer (the GP on the CPU backends) completes the
// gradient from its last evaluation without gradient, which costs less
// than a new evaluation: the state an SPT swap brings down to a colder
// level, evaluated there for the swap, gets the gradient its next
// transition needs that way (counted in LevelStats.GradResumes, not in
// EvalsGrad).
//
// # Defaults
//
// The zero Settings is the sampler that measured best on GP posteriors
// (docs/ADAPTATION.md): PT (Driver's zero value) with DefaultKernel,
// PerLevel{Target: HMC{Steps: 10, Jitter: 0.2}, Hot: MH{}}: HMC at the
// target level and gradient-free random-walk MH at the levels above it,
// whose zero Adapt tunes the step size (MH's scale) and a diagonal metric
// (MH's proposal sd) at every level in Stan's windows; DefaultLevels = 10
// levels above the target placed by the adaptive ladder (LadderAdaptive);
// DEO swaps (SwapSchedule's zero value); for TT and STT,
// DefaultBaseSteps = 1 level-0 transition after each tempered transition;
// DefaultWarmup = 400 warm-up
// iterations, then 1000 draws in each of 3 chains (Settings.Stop, which
// can end sampling once the draws suffice, is nil: the CLI and
// subtemper.DefaultGPSettings set diag.StopRule). Warmup: NoWarmup runs
// no warm-up (nothing adapts). The paper's settings are all explicit:
//
//	Settings{
//	    Sampler: Sampler{Driver: d, Kernel: HMC{StepSize: 0.01, Steps: L, Adapt: AdaptNone}
//	        (or MH{Sigma: σ, Adapt: AdaptNone}), Levels: 6, BetaMin: 1.0/8, Ladder: LadderFixed,
//	        Swap: Sweep, BaseSteps: NoBaseSteps},
//	    Control: Control{Warmup: w (NoWarmup for none)},
//	}
//
// Settings holds the two apart: its Sampler describes the sampler (the
// driver's levels, the ladder, the swaps or tempered transitions, the
// kernels), its Control the run (chains, warm-up, draws, seed, starting
// points, stop rule, recorder).
//
// # Running
//
// Run is shaped like gonum's optimize.Minimize: a Target, a Settings whose
// zero fields have documented defaults, and a Result with draws, Stats,
// per-chain compute times and a Status (completed, stopped by the rule,
// interrupted, time limit). Chains run in parallel
// goroutines, each with its own clone of the Target and its own random
// stream derived from Settings.Seed, so results do not depend on
// GOMAXPROCS. One loop runs every driver's chains (warm-up, thinning, the
// stop rule, cancellation), and a Settings.Recorder hears of every
// iteration (a Report: the chain, its iteration, warm-up or not, the
// draws kept, the ladder's rounds, its counters), as gonum's
// optimize.Recorder does; Settings.OnStart hears when each chain is set
// up and about to iterate. Chain exposes a single chain for stepping by
// hand. In the steady state no driver allocates.
//
// # Evidence
//
// With Settings.Evidence, PT and SPT also estimate the log evidence
// log p(y) (Result.Evidence, see EvidenceSettings): stepping stone along
// the ladder from the log density ratios that the swaps compute anyway,
// forward and backward as Pigeons.jl does (for SPT the prequential
// decomposition p(y) = p(y_{X_M}) ∏_m p(y_{X_{m−1}∖X_m} | y_{X_m})), and
// annealed importance sampling from the prior (PriorSampler) to the
// hottest level. The draws are the same with and without it.
package tempering
