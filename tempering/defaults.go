package tempering

import (
	"fmt"
	"math"
)

// The defaults of Settings' zero fields, and of the kernels' zero fields
// that the default kernel leaves zero. They are the one source of the
// library's defaults: subtemper.DefaultGPSettings and the CLI's flag
// defaults are built from them.
const (
	// DefaultWarmup is the number of warm-up iterations of a zero
	// Settings.Warmup.
	DefaultWarmup = 400
	// NoWarmup, as Settings.Warmup, asks for no warm-up at all (a zero
	// Warmup means DefaultWarmup).
	NoWarmup = -1
	// DefaultDraws is the number of draws per chain of a zero
	// Settings.Draws.
	DefaultDraws = 1000
	// DefaultChains is the number of chains of a zero Settings.Chains.
	DefaultChains = 3
	// DefaultBetaMin is the hottest level's β* (PT, TT) or subset
	// fraction (SPT, STT) of a zero Settings.BetaMin: the paper's 1/8.
	DefaultBetaMin = 1.0 / 8
)

const (
	// DefaultBaseSteps is the number of level-0 transitions per TT or STT
	// iteration of a zero Settings.BaseSteps.
	DefaultBaseSteps = 1
	// NoBaseSteps, as Settings.BaseSteps, asks for none (Neal's form; a
	// zero BaseSteps means DefaultBaseSteps).
	NoBaseSteps = -1
)

// DefaultStopEvery is the number of draws per chain between checks of a
// Settings.Stop rule when Settings.StopEvery is zero.
const DefaultStopEvery = 50

// Defaults of the gradient kernels' zero fields (HMC, NUTS) and of the
// default kernel's HMC.
const (
	// DefaultStepSize is the leapfrog step ε of a zero HMC.StepSize or
	// NUTS.StepSize (the fixed step with AdaptNone, the first one
	// otherwise): the paper's 0.01.
	DefaultStepSize = 0.01
	// DefaultTargetAccept is the acceptance statistic that the step-size
	// adaptation of HMC and NUTS aims at when TargetAccept is zero.
	DefaultTargetAccept = 0.8
	// DefaultMaxTreeDepth is NUTS' maximum tree depth when MaxTreeDepth
	// is zero.
	DefaultMaxTreeDepth = 10
	// DefaultLeapfrog is the number L of leapfrog steps of a zero
	// HMC.Steps, and the default kernel's.
	DefaultLeapfrog = 10
	// DefaultStepJitter is the default kernel's HMC.Jitter: each
	// transition's step drawn uniformly in ε·(1 ± 0.2). A zero Jitter
	// means none.
	DefaultStepJitter = 0.2
	// DefaultMHScale is MH's proposal scale σ at β = 1 of a zero
	// MH.Sigma: the paper's 0.1.
	DefaultMHScale = 0.1
)

// DefaultKernel returns the inner kernel of a nil Settings.Kernel:
// PerLevel{Target: HMC{Steps: DefaultLeapfrog, Jitter: DefaultStepJitter},
// Hot: MH{}}. The target level runs HMC with L = 10 leapfrog steps, each
// transition's step size jittered by ±20%; the levels above it run
// random-walk MH, one proposal per transition; both adapt during warm-up
// (step size or scale, and a diagonal metric or proposal sd: the zero
// Adapt, AdaptDiag). HMC gave more bulk-ESS per CPU-second than NUTS on
// the GP posteriors measured in docs/ADAPTATION.md; MH at the hotter
// levels made PT about seven times cheaper than HMC there, for the same
// mode switching on a bimodal GP posterior (docs/ADAPTATION.md).
func DefaultKernel() Kernel {
	return PerLevel{Target: HMC{Steps: DefaultLeapfrog, Jitter: DefaultStepJitter}, Hot: MH{}}
}

// DefaultLevels is the number M of levels above the target that a zero
// Settings.Levels gives: on a bimodal GP posterior, 10 levels placed by
// the adaptive ladder moved between the modes 146–216 times per 1000 draws
// where the ⌈2Λ⌉ = 3 of non-reversible PT's rule of thumb gave 30–87
// (docs/ADAPTATION.md). Pigeons.jl also defaults to 10 chains.
const DefaultLevels = 10

// LevelsFromBarrier, as Settings.Levels, lets an adaptive ladder choose M
// from the estimated global communication barrier Λ: ⌈2Λ⌉ for PT and SPT
// (at most MaxLevels), starting from a geometric ladder of
// BarrierStartLevels levels.
const LevelsFromBarrier = -1

// BarrierStartLevels is the number M of levels above the target of the
// geometric ladder that Settings.Levels = LevelsFromBarrier starts from
// (and keeps, with a fixed ladder): the paper's M.
const BarrierStartLevels = 6

// resolve returns a copy of s with defaults applied, or an error.
func (s *Settings) resolve() (Settings, error) {
	var r Settings
	if s != nil {
		r = *s
	}
	if err := r.check(); err != nil {
		return r, err
	}
	r.adaptLadder = r.Ladder == LadderAdaptive && len(r.Betas) == 0 && r.Driver.tempered()
	r.applyDefaults()
	if r.Evidence != nil {
		if !r.Driver.swaps() {
			return r, fmt.Errorf("tempering: the evidence is estimated by PT and SPT only, not %v", r.Driver)
		}
		es, err := r.Evidence.resolve()
		if err != nil {
			return r, err
		}
		r.Evidence = &es
	}
	if r.Draws > (math.MaxInt-r.Warmup)/r.Thin {
		return r, fmt.Errorf("tempering: %d warm-up iterations + %d draws × thin %d overflows an int", r.Warmup, r.Draws, r.Thin)
	}
	if err := r.resolveLadder(); err != nil {
		return r, err
	}
	return r, nil
}

// check validates the settings' enumerations and counts as given.
func (r *Settings) check() error {
	if !r.Driver.valid() {
		return fmt.Errorf("tempering: unknown driver %d", int(r.Driver))
	}
	if !r.Swap.valid() {
		return fmt.Errorf("tempering: unknown swap schedule %d", int(r.Swap))
	}
	switch {
	case r.Chains < 0:
		return fmt.Errorf("tempering: number of chains must be ≥ 0, got %d", r.Chains)
	case r.Warmup < NoWarmup:
		return fmt.Errorf("tempering: number of warm-up iterations must be ≥ 0 (or NoWarmup, −1), got %d", r.Warmup)
	case r.Draws < 0:
		return fmt.Errorf("tempering: number of draws must be ≥ 0, got %d", r.Draws)
	case r.Thin < 0:
		return fmt.Errorf("tempering: thinning must be ≥ 0, got %d", r.Thin)
	case r.BaseSteps < NoBaseSteps:
		return fmt.Errorf("tempering: number of base steps must be ≥ 0 (or NoBaseSteps, −1), got %d", r.BaseSteps)
	case r.Levels < LevelsFromBarrier:
		return fmt.Errorf("tempering: number of levels M must be ≥ 1 (or LevelsFromBarrier), got %d", r.Levels)
	case r.MaxLevels < 0:
		return fmt.Errorf("tempering: maximum number of levels must be ≥ 0, got %d", r.MaxLevels)
	case r.Ladder < LadderAdaptive || r.Ladder > LadderFixed:
		return fmt.Errorf("tempering: unknown ladder mode %d", int(r.Ladder))
	case r.StopEvery < 0:
		return fmt.Errorf("tempering: StopEvery must be ≥ 0, got %d", r.StopEvery)
	}
	return nil
}

// applyDefaults gives the zero fields their defaults and turns the "none"
// sentinels into counts: Levels becomes the M the caller fixed (0 when an
// adaptive ladder chooses it, recorded in fixedM), Warmup and BaseSteps
// the number to run.
func (r *Settings) applyDefaults() {
	if r.Kernel == nil {
		r.Kernel = DefaultKernel()
	}
	switch r.Levels {
	case 0:
		r.Levels = DefaultLevels
	case LevelsFromBarrier:
		r.Levels = 0
	}
	r.fixedM = r.Levels
	switch r.Warmup {
	case 0:
		r.Warmup = DefaultWarmup
	case NoWarmup:
		r.Warmup = 0
	}
	switch r.BaseSteps {
	case 0:
		r.BaseSteps = DefaultBaseSteps
	case NoBaseSteps:
		r.BaseSteps = 0
	}
	if r.Chains == 0 {
		r.Chains = DefaultChains
	}
	if r.Draws == 0 {
		r.Draws = DefaultDraws
	}
	if r.Thin == 0 {
		r.Thin = 1
	}
	if r.StopEvery == 0 {
		r.StopEvery = DefaultStopEvery
	}
}

// resolveLadder sets the initial ladder: Betas as given (checked and
// copied), or geometric from Levels (BarrierStartLevels when an adaptive
// ladder chooses M) and BetaMin; then Levels and BetaMin from it, and
// just [1] for None.
func (r *Settings) resolveLadder() error {
	if len(r.Betas) > 0 {
		if err := checkBetas(r.Betas); err != nil {
			return err
		}
		r.Betas = append([]float64(nil), r.Betas...)
	} else {
		if r.Levels == 0 {
			r.Levels = BarrierStartLevels
		}
		if r.BetaMin == 0 {
			r.BetaMin = DefaultBetaMin
		}
		b, err := Ladder(r.Levels, r.BetaMin)
		if err != nil {
			return err
		}
		r.Betas = b
	}
	r.Levels = len(r.Betas) - 1
	r.BetaMin = r.Betas[r.Levels]
	if r.Driver == None {
		r.Betas = []float64{1}
	}
	return nil
}
