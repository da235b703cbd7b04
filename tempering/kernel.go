package tempering

import "math/rand/v2"

// Kernel configures an inner MCMC kernel (MH, HMC or NUTS). It is a plain value
// whose zero fields have documented defaults; NewLevel builds the kernel's
// per-level transition, with its own workspaces.
type Kernel interface {
	// NewLevel returns the kernel's transition for a level with nominal
	// inverse temperature beta (β_m; 1 at the target level), for a target of
	// dimension dim.
	NewLevel(dim int, beta float64) (LevelKernel, error)
	// NeedsGrad reports whether the kernel uses gradients, so that drivers
	// evaluate them when they move a state onto a new level's density.
	NeedsGrad() bool
}

// LevelKernel is a kernel's transition at one level, shaped as init + step
// (as in BlackJAX). It holds workspaces and adaptation state and is not safe
// for concurrent use.
type LevelKernel interface {
	// Init evaluates d at s.U and fills s's caches (with gradients if the
	// kernel needs them).
	Init(d *Density, s *State)
	// Step performs one transition from s, which must hold valid caches
	// for d (s.LogDensity finite), leaving d invariant, and updates s in
	// place. Evaluations through d are counted; the driver counts the
	// transition and its outcome from the returned StepInfo.
	Step(rng *rand.Rand, d *Density, s *State) StepInfo
	// Adapt starts (or restarts) warm-up adaptation planned to last n of
	// this level's transitions from now, starting from the current tuning.
	// The chain calls it at the start of warm-up (and again when it
	// rebuilds the ladder); a kernel with nothing to adapt ignores it.
	Adapt(n int)
	// EndWarmup ends any adaptation: later steps use fixed parameters, so
	// that the chain is a time-homogeneous Markov chain.
	EndWarmup()
	// Tuning returns the kernel's current parameters (a copy).
	Tuning() Tuning
	// SetTuning replaces the kernel's parameters, for example to start a
	// new level of an adapted ladder from a neighbour's. Fields the kernel
	// does not use are ignored; nil or zero fields leave the kernel's own.
	SetTuning(t Tuning)
}

// Tuning is what a level kernel's warm-up adapts and its sampling then keeps
// fixed.
type Tuning struct {
	// StepSize is HMC's leapfrog step ε or MH's proposal scale σ_m.
	StepSize float64
	// InvMetric is the diagonal of the inverse metric (HMC, NUTS); nil
	// means the identity.
	InvMetric []float64
	// InvMetricDense is a dense inverse metric, row-major Dim×Dim (HMC and
	// NUTS with a dense metric); nil otherwise.
	InvMetricDense []float64
}

// StepInfo is the record of one transition of an inner kernel.
type StepInfo struct {
	// Accepted reports whether the proposal was accepted.
	Accepted bool
	// AcceptProb is the MH acceptance probability min(1, exp(log α)) of the
	// proposal (0 if it failed or diverged).
	AcceptProb float64
	// Failed reports that an evaluation of the proposal failed (error, NaN
	// or +∞), so the proposal was rejected.
	Failed bool
	// Divergent reports an HMC trajectory whose energy error exceeded the
	// threshold, or that reached a point of log density −∞ (infinite energy
	// error); it is rejected.
	Divergent bool
	// EnergyError is HMC's H(proposal) − H(current) (0 for MH).
	EnergyError float64
	// Energy is the Hamiltonian H = −log density + ½·pᵀM⁻¹p of the point
	// the transition ends at, with its momentum: the proposal's if it
	// was accepted, the starting point's with its fresh momentum if not
	// (Stan's energy__). HMC and NUTS only (0 for the others; NaN if the
	// transition failed before drawing a momentum).
	Energy float64
	// StepSize is the MH proposal scale σ_m or the HMC or NUTS leapfrog
	// step ε used.
	StepSize float64
	// Leapfrogs is the number of leapfrog steps the transition made (HMC,
	// NUTS; each costs a log density evaluation with gradient). Warm-up's
	// step-size heuristic is not included.
	Leapfrogs int
	// TreeDepth is the depth of NUTS's trajectory tree: it has up to
	// 2^TreeDepth − 1 leapfrog steps (0 for the other kernels).
	TreeDepth int
	// MaxTreeDepth reports that NUTS stopped its trajectory at the maximum
	// tree depth rather than at a U-turn or a divergence.
	MaxTreeDepth bool
}

// record counts a transition's outcome in d's stats.
func (d *Density) record(info StepInfo) {
	st := d.stats
	st.Transitions++
	if info.Accepted {
		st.Accepted++
	}
	if info.Divergent {
		st.Divergent++
	}
	st.LeapfrogSteps += int64(info.Leapfrogs)
	if info.MaxTreeDepth {
		st.MaxTreeDepthHits++
	}
}
