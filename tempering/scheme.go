package tempering

import (
	"fmt"
	"math"
)

// scheme is how the levels of a chain communicate (see path.go): one
// round per iteration, made of the levels' inner-kernel transitions and
// the moves between levels. It reports what happened through the
// chain's counters (tally.go) and leaves the levels' densities to the
// path.
type scheme interface {
	// round performs one iteration's transitions and communication.
	round(c *Chain)
	// replicas reports whether the chain keeps a state at every level
	// (otherwise at level 0 only).
	replicas() bool
	// transitions returns the number of inner-kernel transitions one
	// iteration makes at level m.
	transitions(c *Chain, m int) int

	// cost returns the cost, in the ladder's adaptation, of an interval
	// between two levels from its round's accumulators (sum, sum of
	// squares and count of what the scheme fed it), and the variance
	// of the log ratio it adds; ok is false without enough of them.
	cost(sum, sq, n float64) (cost, variance float64, ok bool)
	// levels returns the number M of levels above the target that the
	// ladder's adaptation chooses for a total cost over the current M
	// levels, at most maxM.
	levels(total float64, M, maxM int) int
}

var (
	_ scheme = (*swapScheme)(nil)
	_ scheme = (*transitionScheme)(nil)
)

// newPathScheme returns the path and scheme of s's driver for a target of
// dimension dim with n observations.
func newPathScheme(s *Settings, dim, n int) (path, scheme, error) {
	switch s.Driver {
	case None, PT:
		return &powerPath{}, &swapScheme{sched: s.Swap, ratio: exactRatio{}}, nil
	case TT:
		return &powerPath{}, newTransitionScheme(s.BaseSteps, dim, false), nil
	}
	if n < 1 {
		return nil, nil, fmt.Errorf("tempering: driver %v needs observations, target has %d", s.Driver, n)
	}
	if s.Driver == SPT {
		return newSubsetPath(n, false), &swapScheme{sched: s.Swap, ratio: exactRatio{}}, nil
	}
	return newSubsetPath(n, true), newTransitionScheme(s.BaseSteps, dim, true), nil
}

// acceptRatio sums the terms that a scheme has evaluated into the log
// acceptance ratio of its move. exactRatio is the only implementation
// outside this package's tests, which substitute broken ones
// (Settings.variant) to show that the exactness tests catch them.
type acceptRatio interface {
	// swap returns the log ratio of exchanging a at level m−1 and b at
	// level m: log h_m(a) + log h_{m−1}(b) − log h_m(b) − log h_{m−1}(a).
	swap(m int, aHi, bLo, bHi, aLo float64) float64
	// descend returns a tempered transition's log ratio r after the
	// descent's step from level m to m−1 at θ̌_{m−1}: r + log
	// h_{m−1}(θ̌_{m−1}) − log h_m(θ̌_{m−1}).
	descend(m int, r, lower, upper float64) float64
}

// exactRatio is the schemes' acceptance ratio as their docs state it.
type exactRatio struct{}

func (exactRatio) swap(_ int, aHi, bLo, bHi, aLo float64) float64 { return aHi + bLo - bHi - aLo }
func (exactRatio) descend(_ int, r, lower, upper float64) float64 { return r + lower - upper }

// swapScheme is parallel tempering: a transition at every level, then
// offers to swap the states of neighbouring levels by the schedule.
type swapScheme struct {
	sched SwapSchedule
	ratio acceptRatio
}

func (*swapScheme) replicas() bool              { return true }
func (*swapScheme) transitions(*Chain, int) int { return 1 }

// round is one PT or SPT iteration: a transition at every level, then
// the swaps of the schedule, then round-trip bookkeeping. With one level
// (None) there is nothing to swap.
func (s *swapScheme) round(c *Chain) {
	for m, st := range c.states {
		c.step(m, st)
	}
	M := len(c.states) - 1
	if M == 0 {
		return
	}
	switch s.sched {
	case DEO:
		for m := 1 + int(c.iter&1); m <= M; m += 2 {
			s.swap(c, m, true)
		}
	default:
		for m := M; m >= 1; m-- {
			s.swap(c, m, m == 1)
		}
	}
	c.afterSwaps()
}

// swap offers to exchange the states of levels m−1 and m, accepted with
// log probability log h_m(θ_{m−1}) + log h_{m−1}(θ_m) − log h_m(θ_m) −
// log h_{m−1}(θ_{m−1}), the cross terms from the path (path.swapLiks);
// settled when no later swap of the iteration involves level m−1.
func (s *swapScheme) swap(c *Chain, m int, settled bool) {
	a, b := c.states[m-1], c.states[m]
	lo, hi := &c.dens[m-1], &c.dens[m]
	aLL, bLL := c.path.swapLiks(lo, hi, a, b)
	aHi := hi.combine(aLL, a.LogPrior) // log h_m(θ_{m−1})
	bLo := lo.combine(bLL, b.LogPrior) // log h_{m−1}(θ_m)
	logA := s.ratio.swap(m, aHi, bLo, b.LogDensity, a.LogDensity)
	c.observeSwap(m, logA, bLo-b.LogDensity, aHi-a.LogDensity)
	if !(logA >= 0 || math.Log(c.rng.Float64()) < logA) {
		c.path.kept(hi, b)
		return
	}
	c.countSwapAccepted(m)
	c.states[m-1], c.states[m] = b, a
	a.LogDensity, b.LogDensity = aHi, bLo
	c.path.swapped(lo, a, b, aLL, bLL, settled)
}

// cost is the interval's swap rejection rate r_m = 1 − mean acceptance
// probability.
func (*swapScheme) cost(sum, _, n float64) (float64, float64, bool) {
	if n < 1 {
		return 0, 0, false
	}
	return min(1, max(0, 1-sum/n)), 0, true
}

// levels is ⌈2Λ⌉ (NRPT's optimum of about 2Λ + 1 levels), between 1 and
// maxM and at most twice the current M.
func (*swapScheme) levels(total float64, M, maxM int) int {
	return clampLevels(int(math.Ceil(2*total)), M, maxM)
}

// clampLevels returns newM between 1 and maxM and at most 2M: the first
// rounds are short, and replicas or paths far from equilibrium overstate
// the barrier.
func clampLevels(newM, M, maxM int) int { return max(1, min(newM, maxM, 2*M)) }

// transitionScheme is Neal (1996)'s tempered transitions: an excursion
// up the ladder and down, accepted or rejected as a whole, then base
// ordinary transitions at level 0.
type transitionScheme struct {
	base int // level-0 transitions after each tempered transition
	// additive: the terms t_m are sums over the observations each level
	// drops (a subset path), whose variances add up along the ladder
	// (see proposeLadder).
	additive bool
	work     *State    // the path of a tempered transition
	terms    []float64 // the current transition's terms t_m
	ratio    acceptRatio
}

func newTransitionScheme(base, dim int, additive bool) *transitionScheme {
	return &transitionScheme{base: base, additive: additive, work: NewState(dim), ratio: exactRatio{}}
}

func (*transitionScheme) replicas() bool { return false }

// transitions: two (ascent and descent) at levels 1..M, baseCount at
// level 0.
func (s *transitionScheme) transitions(c *Chain, m int) int {
	if m == 0 {
		return s.baseCount(c)
	}
	return 2
}

// baseCount returns the number of level-0 transitions per iteration:
// base, and during a warm-up begun by BeginWarmup at least warmBase.
func (s *transitionScheme) baseCount(c *Chain) int {
	if c.warmingUp() {
		return max(s.base, warmBase)
	}
	return s.base
}

// warmBase is the least number of ordinary level-0 transitions per
// iteration of TT and STT during warm-up. With none (NoBaseSteps,
// Neal's form) level 0 moves only through accepted tempered
// transitions: while the ladder and the level kernels are still
// untuned these are rarely accepted, the chain stays where it started,
// and every level kernel adapts on paths that start from that point
// instead of the posterior's typical set. Warm-up iterations are
// discarded, so this changes no draw's distribution.
const warmBase = 1

// round is a tempered transition, then the ordinary transitions at
// level 0 (whatever its outcome).
func (s *transitionScheme) round(c *Chain) {
	s.excursion(c)
	for range s.baseCount(c) {
		c.step(0, c.states[0])
	}
}

// excursion is one tempered transition in Neal (1996)'s form: from θ̂_0 =
// θ, for m = 1..M the transition T̂_m at level m gives θ̂_m from θ̂_{m−1};
// then for m = M..1 the transition Ť_m at level m gives θ̌_{m−1} from θ̌_m
// (θ̌_M = θ̂_M). θ̌_0 is accepted with log probability
//
//	Σ_m [log h_m(θ̂_{m−1}) − log h_{m−1}(θ̂_{m−1}) + log h_{m−1}(θ̌_{m−1}) − log h_m(θ̌_{m−1})].
//
// The ascent and the descent see the same levels (a fresh subset path
// drew them as the iteration began). A path point with log density −∞
// makes the ratio 0: the move is rejected at once.
func (s *transitionScheme) excursion(c *Chain) {
	cur, w := c.states[0], s.work
	M := len(c.betas) - 1
	if len(s.terms) != M {
		s.terms = make([]float64, M) // a new ladder
	}
	w.CopyFrom(cur)
	w.preOK = false // values on the previous iteration's subsets
	logR := 0.0
	for m := 1; m <= M; m++ {
		lower := w.LogDensity      // log h_{m−1}(θ̂_{m−1})
		c.moveTo(m, w, c.needGrad) // log h_m(θ̂_{m−1})
		if math.IsInf(w.LogDensity, -1) {
			c.countTT(ttAborted, nil)
			return
		}
		s.terms[m-1] = w.LogDensity - lower
		logR += s.terms[m-1]
		c.step(m, w)
	}
	for m := M; m >= 1; m-- {
		c.step(m, w)
		upper := w.LogDensity // log h_m(θ̌_{m−1})
		// log h_{m−1}(θ̌_{m−1}). No transition runs at level 0 in this
		// form: its value is enough, and a gradient there would cost a
		// full-data evaluation with gradient every iteration.
		c.moveTo(m-1, w, c.needGrad && m > 1)
		if math.IsInf(w.LogDensity, -1) {
			c.countTT(ttAborted, nil)
			return
		}
		logR = s.ratio.descend(m, logR, w.LogDensity, upper)
		s.terms[m-1] += w.LogDensity - upper
	}
	if !(logR >= 0 || math.Log(c.rng.Float64()) < logR) {
		c.countTT(ttRejected, s.terms)
		return
	}
	c.countTT(ttAccepted, s.terms)
	cur.CopyFrom(w)
}

// cost is the standard deviation of the level's term t_m, or, when the
// terms are additive, its variance, which the ladder then equalises by
// cumulating (see proposeLadder).
func (s *transitionScheme) cost(sum, sq, n float64) (float64, float64, bool) {
	if n < 2 {
		return 0, 0, false
	}
	mean := sum / n
	v := max(0, sq/n-mean*mean) * n / (n - 1)
	if s.additive {
		return v, v, true
	}
	return math.Sqrt(v), v, true
}

// levels is ⌈S²/2⌉ with S = Σ sd(t_m) (equal variances S²/M² per level
// give a log ratio of variance S²/M, 2 or less), between 1 and maxM and at
// most twice the current M; with additive terms, more levels do not lower
// the total variance, and M stays.
func (s *transitionScheme) levels(total float64, M, maxM int) int {
	if s.additive {
		return M
	}
	return clampLevels(int(math.Ceil(total*total/ttTargetVar)), M, maxM)
}
