package tempering

import "math"

// LevelStats counts what a chain did at one level of the ladder. Every
// evaluation the code performs is counted at the level whose density it
// evaluates, so that a cost model Σ_m (Evals_m·c(N_m) + EvalsGrad_m·c'(N_m))
// matches the work done.
type LevelStats struct {
	// Beta is the level's nominal inverse temperature β_m.
	Beta float64
	// SubsetSize is the number of observations N_m the level's
	// log-likelihood evaluations condition on (N for PT and TT).
	SubsetSize int
	// Evals counts log-likelihood evaluations without gradient.
	Evals int64
	// EvalsGrad counts log-likelihood evaluations with gradient.
	EvalsGrad int64
	// PrefixReuses counts log-likelihood values at this level taken, at
	// no cost, from an evaluation on a colder level's subset, of which
	// this level's subset is a prefix (SPT swaps, STT ascents; needs a
	// PrefixLiker target). They are not counted in Evals.
	PrefixReuses int64
	// GradResumes counts log-likelihood evaluations with gradient at this
	// level made from the work of the evaluation without gradient just
	// before it, on this or a colder level's subset (SPT swaps; needs a
	// GradResumer target). They are not counted in EvalsGrad: they cost
	// less.
	GradResumes int64
	// PriorEvals counts log-prior evaluations (with or without gradient).
	PriorEvals int64
	// Transitions counts inner-kernel transitions at the level.
	Transitions int64
	// Accepted counts accepted inner-kernel proposals.
	Accepted int64
	// Failed counts log-likelihood evaluations that returned an error
	// (for example a kernel matrix that is not positive definite).
	Failed int64
	// Invalid counts evaluations that gave NaN or +∞ (log prior,
	// log-likelihood or gradient), treated as −∞.
	Invalid int64
	// Divergent counts divergent HMC trajectories (energy error above the
	// threshold, or a point of log density −∞ reached).
	Divergent int64
	// LeapfrogSteps counts the leapfrog steps of HMC and NUTS transitions
	// (each is one evaluation with gradient, counted in EvalsGrad, which
	// also counts warm-up's step-size heuristic).
	LeapfrogSteps int64
	// MaxTreeDepthHits counts NUTS transitions whose trajectory stopped at
	// the maximum tree depth (many suggest a larger NUTS.MaxTreeDepth or a
	// better metric).
	MaxTreeDepthHits int64
	// SamplingTransitions, SamplingAcceptProb and SamplingDivergent
	// count the transitions after warm-up alone: their number, the sum of
	// their acceptance probabilities (StepInfo.AcceptProb: for NUTS the
	// mean over the tree) and the divergent ones. Divergences during
	// warm-up, while the step size is still being tuned, are expected;
	// those after it are a warning.
	SamplingTransitions int64
	SamplingAcceptProb  float64
	SamplingDivergent   int64
}

// Add adds o's counts to s (Beta and SubsetSize are taken from o when s has
// none).
func (s *LevelStats) Add(o *LevelStats) {
	if s.SubsetSize == 0 {
		s.Beta, s.SubsetSize = o.Beta, o.SubsetSize
	}
	s.Evals += o.Evals
	s.EvalsGrad += o.EvalsGrad
	s.PrefixReuses += o.PrefixReuses
	s.GradResumes += o.GradResumes
	s.PriorEvals += o.PriorEvals
	s.Transitions += o.Transitions
	s.Accepted += o.Accepted
	s.Failed += o.Failed
	s.Invalid += o.Invalid
	s.Divergent += o.Divergent
	s.LeapfrogSteps += o.LeapfrogSteps
	s.MaxTreeDepthHits += o.MaxTreeDepthHits
	s.SamplingTransitions += o.SamplingTransitions
	s.SamplingAcceptProb += o.SamplingAcceptProb
	s.SamplingDivergent += o.SamplingDivergent
}

// AcceptRate returns Accepted/Transitions (0 with no transitions).
func (s *LevelStats) AcceptRate() float64 { return ratio(s.Accepted, s.Transitions) }

// SamplingAcceptStat returns the mean acceptance probability of the
// transitions after warm-up (NaN with none): what step-size adaptation
// aimed at its target.
func (s *LevelStats) SamplingAcceptStat() float64 {
	if s.SamplingTransitions == 0 {
		return math.NaN()
	}
	return s.SamplingAcceptProb / float64(s.SamplingTransitions)
}

// Stats holds the counters of one chain, or of several merged with Merge.
// They cover all iterations, warm-up included.
type Stats struct {
	// Levels holds one entry per level m = 0..M (one for the None driver).
	Levels []LevelStats
	// SwapProposed[m-1] and SwapAccepted[m-1] count swaps offered and
	// accepted between levels m−1 and m (PT, SPT).
	SwapProposed, SwapAccepted []int64
	// TTProposed and TTAccepted count tempered-transition proposals and
	// acceptances (TT, STT).
	TTProposed, TTAccepted int64
	// TTAborted counts tempered transitions rejected early because an
	// evaluation on the path failed (included in TTProposed).
	TTAborted int64
	// RoundTrips counts completed round trips of replicas from the bottom
	// level to the top level and back (PT, SPT).
	RoundTrips int64
	// Reorders counts calls of the target's Reorder (SPT, STT with a
	// Reorderer target): one pass over the data each.
	Reorders int64
	// WarmupIterations and Iterations count driver iterations during and
	// after warm-up.
	WarmupIterations, Iterations int64

	// --- Ladder adaptation and sampling-phase counts (ladderadapt.go) ---

	// Retired holds the per-level counters of the ladders that an
	// adaptive warm-up built and then replaced, one entry per level of
	// each, in order, each with its own Beta and SubsetSize, so that
	// the cost of the whole run is priced by Levels and Retired together.
	// Levels, SwapProposed and SwapAccepted count on the final ladder
	// only, from the moment it was built (for a fixed ladder: all
	// iterations). The ladder-independent counters (TT, round trips,
	// iterations, reorders) run on through ladder changes.
	Retired []LevelStats
	// Sampling repeats the swap, tempered-transition and round-trip
	// counts for the sampling phase alone (after EndWarmup), on which
	// the reported swap rates, TT acceptance and round trips are based.
	Sampling PhaseCounts
}

// PhaseCounts are the counters of a driver's moves between levels during
// one phase of a run.
type PhaseCounts struct {
	// SwapProposed[m-1] and SwapAccepted[m-1] count swaps offered and
	// accepted between levels m−1 and m (PT, SPT).
	SwapProposed, SwapAccepted []int64
	// TTProposed and TTAccepted count tempered transitions (TT, STT).
	TTProposed, TTAccepted int64
	// RoundTrips counts completed round trips (PT, SPT).
	RoundTrips int64
}

// SwapRate returns the acceptance rate of swaps between levels m−1 and m
// (1 ≤ m ≤ M; 0 if none were offered).
func (p *PhaseCounts) SwapRate(m int) float64 { return ratio(p.SwapAccepted[m-1], p.SwapProposed[m-1]) }

// TTRate returns the acceptance rate of tempered transitions.
func (p *PhaseCounts) TTRate() float64 { return ratio(p.TTAccepted, p.TTProposed) }

// clone returns a deep copy of p.
func (p *PhaseCounts) clone() PhaseCounts {
	c := *p
	c.SwapProposed = append([]int64(nil), p.SwapProposed...)
	c.SwapAccepted = append([]int64(nil), p.SwapAccepted...)
	return c
}

// merge adds o's counts to p, which must have o's shape.
func (p *PhaseCounts) merge(o *PhaseCounts) {
	for i := range p.SwapProposed {
		p.SwapProposed[i] += o.SwapProposed[i]
		p.SwapAccepted[i] += o.SwapAccepted[i]
	}
	p.TTProposed += o.TTProposed
	p.TTAccepted += o.TTAccepted
	p.RoundTrips += o.RoundTrips
}

// --- end of ladder additions ---

// Clone returns a deep copy of s.
func (s *Stats) Clone() Stats {
	c := *s
	c.Levels = append([]LevelStats(nil), s.Levels...)
	c.SwapProposed = append([]int64(nil), s.SwapProposed...)
	c.SwapAccepted = append([]int64(nil), s.SwapAccepted...)
	c.Retired = append([]LevelStats(nil), s.Retired...) // ladder
	c.Sampling = s.Sampling.clone()                     // ladder
	return c
}

// copyFrom makes s a copy of o, which has s's shape, in s's own slices
// (Densities point into s.Levels).
func (s *Stats) copyFrom(o *Stats) {
	lv, sp, sa := s.Levels, s.SwapProposed, s.SwapAccepted
	ssp, ssa := s.Sampling.SwapProposed, s.Sampling.SwapAccepted // ladder
	*s = *o
	s.Levels = lv[:copy(lv, o.Levels)]
	s.SwapProposed = sp[:copy(sp, o.SwapProposed)]
	s.SwapAccepted = sa[:copy(sa, o.SwapAccepted)]
	s.Sampling.SwapProposed = ssp[:copy(ssp, o.Sampling.SwapProposed)] // ladder
	s.Sampling.SwapAccepted = ssa[:copy(ssa, o.Sampling.SwapAccepted)] // ladder
}

// Merge adds o's counts to s. If s is empty it takes o's shape; otherwise
// both must have the same number of levels, or Merge panics.
func (s *Stats) Merge(o *Stats) {
	if s.Levels == nil && s.SwapProposed == nil {
		*s = o.Clone()
		return
	}
	if len(s.Levels) != len(o.Levels) || len(s.SwapProposed) != len(o.SwapProposed) {
		panic("tempering: merging Stats of different ladders")
	}
	for i := range s.Levels {
		s.Levels[i].Add(&o.Levels[i])
	}
	for i := range s.SwapProposed {
		s.SwapProposed[i] += o.SwapProposed[i]
		s.SwapAccepted[i] += o.SwapAccepted[i]
	}
	s.TTProposed += o.TTProposed
	s.TTAccepted += o.TTAccepted
	s.TTAborted += o.TTAborted
	s.RoundTrips += o.RoundTrips
	s.Reorders += o.Reorders
	s.WarmupIterations += o.WarmupIterations
	s.Iterations += o.Iterations
	s.Retired = append(s.Retired, o.Retired...) // ladder
	s.Sampling.merge(&o.Sampling)               // ladder
}

// SwapRate returns the acceptance rate of swaps between levels m−1 and m
// (1 ≤ m ≤ M; 0 if none were offered).
func (s *Stats) SwapRate(m int) float64 { return ratio(s.SwapAccepted[m-1], s.SwapProposed[m-1]) }

// TTRate returns the acceptance rate of tempered transitions.
func (s *Stats) TTRate() float64 { return ratio(s.TTAccepted, s.TTProposed) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
