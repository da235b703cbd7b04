package tempering

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Settings configures Run (and NewChain). Zero fields take the documented
// defaults, so a nil or zero Settings is valid and is the measured best
// sampler (docs/ADAPTATION.md): PT with adapted HMC (L = 10 leapfrog steps, step
// jitter 0.2, step size and diagonal metric tuned in Stan's windows) at
// the target level and adapted random-walk MH at the 10 levels above it
// (DefaultKernel), the adaptive ladder, DEO swaps, 3 chains (DefaultChains)
// of 400 warm-up iterations (DefaultWarmup) and 1000 draws (DefaultDraws).
// defaults.go holds every default. The paper's settings are all explicit: a
// Driver, HMC or MH with Adapt AdaptNone, Ladder LadderFixed, Swap Sweep,
// and Warmup NoWarmup where the paper ran none.
type Settings struct {
	// Sampler describes the sampler: the path (the driver's power or
	// subset levels, the ladder), the scheme (swaps and their schedule,
	// or tempered transitions and their base steps) and the kernels.
	Sampler
	// Control is the run's control: chains, warm-up, draws, seed,
	// starting points, stop rule, recorder.
	Control

	// Set by resolve: adaptLadder, whether warm-up may adapt the ladder;
	// fixedM, the M the caller fixed (0: the adaptation chooses it).
	adaptLadder bool
	fixedM      int
	// variant, which only this package's tests set, replaces the path or
	// the scheme's ratio with a broken implementation of the tests' own,
	// to show that the exactness tests catch it.
	variant func(path, scheme) (path, scheme)
}

// Sampler describes a sampler, whatever the run: the levels the driver
// combines and how, and the inner kernels. Zero fields take the
// documented defaults (defaults.go).
type Sampler struct {
	// Driver combines the levels. Zero is PT; None runs the kernel alone.
	Driver Driver
	// Kernel is the inner kernel. Nil means DefaultKernel(): adapted HMC
	// (L = 10, jitter 0.2) at the target level and adapted random-walk MH
	// at the levels above it (PerLevel).
	Kernel Kernel
	// Levels is the number M of levels above the target: the ladder
	// starts geometric, β_m = BetaMin^{m/M}, and an adaptive ladder then
	// places the M levels. Zero means DefaultLevels (10);
	// LevelsFromBarrier lets an adaptive ladder choose M from the
	// estimated communication barrier (6 to start with, and for a fixed
	// ladder: BarrierStartLevels). Ignored when Betas is set or Driver
	// is None.
	Levels int
	// BetaMin is the smallest inverse temperature β* = β_M, in (0,1). Zero
	// means DefaultBetaMin (1/8).
	BetaMin float64
	// Betas, if non-empty, is an explicit ladder β_0 = 1 > β_1 > … > β_M > 0
	// and overrides Levels and BetaMin; the ladder is then fixed.
	Betas []float64
	// Ladder selects whether warm-up places the levels. Zero
	// (LadderAdaptive) adapts them during the first half of warm-up when
	// Betas is empty, the driver tempers and Warmup ≥ 48: rounds of 8,
	// 16, 32, … iterations (the last stretched to end at Warmup/2), after
	// each of which the levels are placed afresh so that each adjacent pair
	// has the same swap rejection rate (PT, SPT: non-reversible PT's
	// schedule optimisation, Syed et al. 2021) or each level's term of the
	// tempered transitions' log acceptance ratio the same variance (TT,
	// STT), on β (PT, TT) or on the subset fraction N_m/N (SPT, STT); the
	// ladder starts geometric, the hottest level stays at BetaMin, and all
	// of Run's chains pool their estimates and share one ladder. The
	// hotter levels' kernels adapt on each new ladder for the rest of
	// warm-up, level 0's (whose density every ladder shares) through the
	// whole warm-up; the ladder of the last round is kept for sampling. LadderFixed keeps the initial
	// ladder (the paper's setting).
	Ladder LadderMode
	// MaxLevels caps the number M of levels above the target that an
	// adaptive ladder chooses when Levels is LevelsFromBarrier: ⌈2Λ⌉ for PT and SPT
	// (Λ the estimated global communication barrier, NRPT's optimum of
	// about 2Λ + 1 levels), enough levels for a log acceptance ratio of
	// variance 2 or less for TT (acceptance about 0.5). STT keeps M (6 with
	// LevelsFromBarrier): its log ratio's variance does not fall with more
	// levels (see doc.go). Zero means 32. Any other Levels fixes M; the
	// adaptation then only places the levels.
	MaxLevels int
	// Swap is the swap schedule of PT and SPT. Zero is DEO; Sweep is the
	// paper's.
	Swap SwapSchedule
	// BaseSteps is the number of ordinary transitions at level 0 (the
	// target) that TT and STT run after each tempered transition. Zero
	// means DefaultBaseSteps (1): the paper's Algorithm 2 transition count,
	// a full-data transition every iteration, which adapted level kernels
	// need (docs/ADAPTATION.md). NoBaseSteps (−1) means none: Neal
	// (1996)'s form, in which level 0 moves only through accepted tempered
	// transitions. Ignored by the other drivers.
	BaseSteps int
	// Transform, if non-nil, is the space v the chains move in: they
	// sample Reparam(t, Transform), and each draw is mapped back, u =
	// g(v), before it is kept, so Result.Draws, the stop rule and Init
	// are in the target's space u as without it; InitTuning and
	// Result.Tunings are in v (CovInChainSpace maps a covariance there).
	Transform Transform
}

// Control is the control of a run: how many chains, iterations and
// draws, from where, with which seed, when to stop and who hears of each
// iteration. Zero fields take the documented defaults (defaults.go).
type Control struct {
	// Chains is the number C of chains, run in parallel goroutines. Zero
	// means DefaultChains (3).
	Chains int
	// Warmup is the number of warm-up iterations per chain, discarded (and
	// the only ones during which kernels and the ladder adapt). Zero means
	// DefaultWarmup (400); NoWarmup (−1) means none: nothing adapts and
	// the first iteration is the first draw.
	Warmup int
	// Draws is the number of draws kept per chain. Zero means
	// DefaultDraws (1000).
	Draws int
	// Thin keeps one iteration in Thin after warm-up: each chain runs
	// Warmup + Draws·Thin iterations. Zero means 1.
	Thin int
	// Seed determines all randomness: chain c uses
	// rand.New(rand.NewPCG(Seed, uint64(c))), so the draws for a seed do not
	// depend on GOMAXPROCS or scheduling.
	Seed uint64
	// Init holds the starting points in the sampling space: one per chain,
	// or a single one for all chains. If empty, a Target that implements
	// Starter chooses them; otherwise each coordinate of chain c's start is
	// drawn uniformly in (−2, 2) from chain c's random stream (Stan's rule).
	Init [][]float64
	// Progress, if non-nil, is called by each chain's goroutine after each
	// iteration with the chain index, the number of iterations done (warm-up
	// included) and the total Warmup + Draws·Thin. It is called
	// concurrently from all chains and must be cheap (an atomic store).
	// It is the Recorder that reads Report.Chain, Iteration and Total,
	// called before Recorder.
	Progress func(chain, iter, total int)
	// Recorder, if non-nil, receives a Report after each iteration of
	// each chain (see Recorder).
	Recorder Recorder
	// OnStart, if non-nil, is called by each chain's goroutine once, when
	// the chain is set up (its clone of the target made, its starting
	// point evaluated) and about to iterate; from then on a cancellation
	// of the context stops it within an iteration. A caller that must
	// tell a run still setting up from one sampling (to abandon a set-up
	// that does not look at the context, or to say which of the two a
	// deadline cut short) watches it. It is called concurrently from all
	// chains and must be cheap (an atomic store).
	OnStart func(chain int)
	// RecordTimes records in Result.Times the wall-clock offset of each draw
	// from the start of Run.
	RecordTimes bool
	// Stop, if non-nil, lets the draws decide when sampling ends, with
	// Draws the most each chain makes: after every StopEvery draws of
	// each chain the chains wait for one another and Stop.Enough is called
	// once with all chains' draws so far; if it reports enough, every chain
	// ends there. The checkpoints fall on fixed draw counts and Enough sees
	// the same draws whatever the scheduling, so a seed still determines
	// the draws, and a run that stops after n draws per chain made exactly
	// the first n draws of the run that does not stop. diag.StopRule is
	// the rule of the CLI's --min-ess.
	Stop StopRule
	// StopEvery is the number of draws per chain between checks of Stop.
	// Zero means DefaultStopEvery (50).
	StopEvery int
	// InitTuning, if non-nil, is the target level's starting tuning in
	// every chain (LevelKernel.SetTuning, before warm-up): for example
	// WarmStart.Tuning(), the Laplace approximation's covariance as a
	// dense inverse metric. A gradient kernel that adapts only its step
	// size (AdaptStep) or nothing keeps that metric for the whole run.
	InitTuning *Tuning
	// Evidence, if non-nil, asks for an estimate of the log evidence
	// log p(y) in Result.Evidence (PT and SPT only; the target must be a
	// PriorSampler): see EvidenceSettings. It changes no draw: the swaps'
	// log ratios are recorded as they are computed, and the leg from the
	// prior runs after sampling on a random stream of its own.
	Evidence *EvidenceSettings
	// Checkpoints, if non-nil, takes checkpoints of the run: see
	// Checkpointing. They change no draw.
	Checkpoints *Checkpointing
	// Resume, if non-nil, continues the run from a checkpoint taken by a
	// run with the same settings (ReadCheckpoint): it makes exactly the
	// draws the uninterrupted run makes, the checkpoint's draws first.
	// With more Draws than the checkpoint's run, the end of a completed
	// run (Checkpointing.AtEnd) is extended to them, as a run made that
	// long in one go. The target must be the same: Run cannot check it
	// (Checkpointing.Meta can).
	Resume *Checkpoint
	// Shard, if set, runs only the chains Shard.From ≤ c < Shard.To of
	// the Chains chains: one process's share of a run spread over
	// several. Each chain makes the draws it makes in the whole run, its
	// random stream and starting point depending on the seed and its
	// index alone; Result holds these chains only, in order, and
	// MergeCheckpoints joins the shards' checkpoints (Checkpointing.AtEnd)
	// into the whole run's. A shard of fewer than all chains refuses a
	// Stop rule and an adaptive ladder: they pool every chain's draws or
	// estimates as the run goes.
	Shard Shard
}

// Shard is Control.Shard: the chains From ≤ c < To. The zero Shard is
// every chain.
type Shard struct{ From, To int }

// StopRule decides, at the checkpoints of a run with Settings.Stop,
// whether the draws so far suffice.
type StopRule interface {
	// Enough reports whether sampling may end with draws, draws[c][s] the
	// draw s of chain c at level 0 in the sampling space (every chain
	// holding the same number of draws). It must not keep or change
	// draws, and it is called from one goroutine at a time.
	Enough(draws [][][]float64) bool
}

// Result is the outcome of Run.
type Result struct {
	// Draws[c][s] is draw s (len Dim, in the sampling space) of chain c at
	// level 0. Each chain's draws share one contiguous backing array. After
	// an interruption chains may hold different numbers of draws.
	Draws [][][]float64
	// Times[c][s] is the wall-clock offset of Draws[c][s] from the start of
	// Run (only with Settings.RecordTimes; not reproducible).
	Times [][]time.Duration
	// Energy[c][s] is the Hamiltonian (StepInfo.Energy, Stan's energy__)
	// at the end of the last level-0 transition before Draws[c][s], for
	// the E-BFMI (diag.EBFMI); nil unless level 0's kernel is HMC or NUTS,
	// NaN for an iteration that made no level-0 transition. With PT and
	// SPT the swaps after that transition may replace the draw, and move
	// the state between consecutive transitions, which the E-BFMI then
	// reflects besides the momentum resampling.
	// Divergent[c][s] counts level 0's divergent transitions after
	// warm-up since the draw before Draws[c][s] (they sum to level 0's
	// LevelStats.SamplingDivergent over the iterations that made draws).
	Energy    [][]float64
	Divergent [][]int
	// Stats merges the counters of all chains; ChainStats holds each
	// chain's.
	Stats      Stats
	ChainStats []Stats
	// ChainTimes is the wall-clock time each chain's goroutine spent
	// (construction, warm-up and sampling; not reproducible).
	ChainTimes []time.Duration
	// ChainCPU is the CPU time of each chain's goroutine, which runs
	// locked to one OS thread (Linux; nil elsewhere). It excludes work
	// done on other threads, such as a multithreaded BLAS's helpers.
	ChainCPU []time.Duration
	// Status says how sampling ended: with every draw made, stopped by
	// Settings.Stop, interrupted, or at the context's deadline.
	Status Status
	// Interrupted reports that the context was cancelled (Status
	// StatusInterrupted or StatusTimeLimit) before all draws were made;
	// Draws then holds the draws made so far. A cancellation while the
	// evidence's leg from the prior runs (Settings.Evidence, after the
	// last draw) sets it too: Draws are then complete and Evidence is nil.
	Interrupted bool
	// StoppedAt is the number of draws per chain after which
	// Settings.Stop reported enough, or 0 if it never did (or there was
	// no Stop): every chain then holds StoppedAt draws.
	StoppedAt int
	// Betas is the ladder used (just [1] for None) and SubsetSizes the
	// number of observations each level conditions on.
	Betas       []float64
	SubsetSizes []int

	// --- Ladder adaptation and tunings (ladderadapt.go) ---

	// Ladder describes the ladder sampled with and how well it
	// communicated during sampling.
	Ladder LadderInfo
	// Tunings[c][m] is the tuning of chain c's level-m kernel at the end
	// of the run (frozen since the end of warm-up).
	Tunings [][]Tuning
	// SamplingTimes[c] is the wall-clock time chain c spent after warm-up
	// (not reproducible).
	SamplingTimes []time.Duration
	// Evidence is the estimate of the log evidence (Settings.Evidence);
	// nil without it, or when the run was interrupted.
	Evidence *Evidence
	// CheckpointErr is the error that stopped the checkpoints
	// (Settings.Checkpoints), if any; sampling went on without them.
	CheckpointErr error
}

// Status says how a run ended.
type Status int

const (
	// StatusCompleted: every chain made Settings.Draws draws.
	StatusCompleted Status = iota
	// StatusStopped: Settings.Stop reported enough draws, after
	// Result.StoppedAt draws per chain.
	StatusStopped
	// StatusInterrupted: the context was cancelled before all draws were
	// made.
	StatusInterrupted
	// StatusTimeLimit: the context's deadline passed before all draws
	// were made.
	StatusTimeLimit
)

var statusNames = [...]string{
	StatusCompleted: "completed", StatusStopped: "stopped by the rule",
	StatusInterrupted: "interrupted", StatusTimeLimit: "time limit",
}

// String returns the status in words ("completed", "stopped by the
// rule", "interrupted", "time limit").
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// runStatus returns the status of a run whose context is ctx.
func runStatus(ctx context.Context, res *Result) Status {
	switch {
	case res.Interrupted && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return StatusTimeLimit
	case res.Interrupted:
		return StatusInterrupted
	case res.StoppedAt > 0:
		return StatusStopped
	}
	return StatusCompleted
}

// LadderInfo describes a run's ladder: where its levels were placed and
// how replicas or tempered transitions moved through it while sampling
// (counts after warm-up, all chains together).
type LadderInfo struct {
	// Adaptive reports that warm-up placed the levels, in Rounds rounds.
	Adaptive bool
	Rounds   int
	// Betas and SubsetSizes are the final ladder (as Result's).
	Betas       []float64
	SubsetSizes []int
	// Barrier (PT, SPT) is the global communication barrier Λ estimated
	// from the sampling phase's swaps: Σ_m (1 − a_m), a_m the acceptance
	// rate of the pair m−1, m.
	Barrier float64
	// WarmupBarrier is the last adaptation round's estimate: Λ = Σ_m r_m
	// from the swaps' mean acceptance probabilities (PT, SPT), or
	// Σ_m sd(t_m) over the terms t_m of the tempered transitions' log
	// acceptance ratio (TT, STT). LogRatioVar (TT, STT) is that round's
	// Σ_m Var(t_m), the variance of the log ratio if the terms were
	// independent. Zero without adaptation.
	WarmupBarrier, LogRatioVar float64
	// WarmupCosts[m-1] is that round's estimate for the interval between
	// levels m−1 and m of the ladder it ran on (the one before the final
	// ladder): the rejection rate r_m (PT, SPT) or sd(t_m) (TT, STT).
	WarmupCosts []float64
	// SwapRates[m-1] is the sampling-phase swap acceptance rate between
	// levels m−1 and m (PT, SPT).
	SwapRates []float64
	// TTRate is the sampling-phase acceptance rate of tempered
	// transitions (TT, STT).
	TTRate float64
	// RoundTrips counts the sampling phase's round trips (PT, SPT) and
	// RoundTripsPerSecond divides them by the chains' total sampling time
	// (Σ_c SamplingTimes[c]): round trips per second of one chain.
	RoundTrips          int64
	RoundTripsPerSecond float64
}

// --- end of ladder additions ---

// Run samples the posterior of t with s's driver and kernel in s.Chains
// parallel chains, each on its own clone of t and its own random stream, and
// returns the draws at level 0. Each chain's goroutine is locked to an OS
// thread (for its CPU clock, Result.ChainCPU): give the process at least
// as many processors (runtime.GOMAXPROCS) as chains, as the CLI does, or
// a chain that returns from a cgo call (OpenBLAS) waits for a processor
// to be handed to its thread (3 chains on GOMAXPROCS 2 kept 1.5 of 2 cores
// busy). s may be nil (defaults). If ctx is
// cancelled, Run stops every chain without waiting for the end of its
// current iteration (the evaluation of the target under way finishes;
// the rest of the iteration is skipped, and neither it nor its counts are
// kept) and returns the draws of the completed iterations with
// Result.Interrupted set and a nil error. An error
// is returned for invalid settings or starting points, or a failed Clone.
// The per-chain clones of t that implement io.Closer are closed before Run
// returns.
func Run(ctx context.Context, t Target, s *Settings) (*Result, error) {
	cfg, err := s.resolve()
	if err != nil {
		return nil, err
	}
	if err := checkShard(&cfg); err != nil {
		return nil, err
	}
	if cfg.Resume != nil {
		if err := checkResume(cfg.Resume, &cfg); err != nil {
			return nil, err
		}
	}
	r, err := newRunner(ctx, t, &cfg)
	if r != nil {
		// Clones hold workspaces (device memory, for a GPU backend):
		// release those that can be released once the chains are done.
		defer r.closeTargets()
	}
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	if r.ck != nil {
		go r.ck.watch(stop)
	}
	if r.ck != nil && r.ck.halt != nil {
		go r.ck.onCancel(stop)
	}
	var wg sync.WaitGroup
	for c := range r.targets {
		wg.Go(func() { r.runChain(c) })
	}
	wg.Wait()
	close(stop)
	return r.finish(ctx)
}

// checkShard checks Control.Shard against the settings, a zero Shard
// becoming every chain.
func checkShard(cfg *Settings) error {
	sh, C := &cfg.Shard, cfg.Chains
	if *sh == (Shard{}) {
		*sh = Shard{0, C}
		return nil
	}
	switch {
	case sh.From < 0 || sh.From >= sh.To || sh.To > C:
		return fmt.Errorf("tempering: shard of chains %d to %d of %d: want 0 ≤ from < to ≤ %d", sh.From, sh.To-1, C, C)
	case sh.To-sh.From == C:
		return nil
	case cfg.Stop != nil:
		return errors.New("tempering: a stop rule needs every chain's draws: a shard of the chains cannot have one")
	case cfg.adaptLadder && roundEnds(cfg.Warmup) != nil:
		return errors.New("tempering: the adaptive ladder pools the estimates of every chain: a shard of the chains needs a fixed ladder")
	}
	return nil
}
