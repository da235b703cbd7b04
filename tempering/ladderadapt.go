package tempering

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// LadderMode selects whether warm-up adapts the ladder.
type LadderMode int

const (
	// LadderAdaptive places the levels during the first half of warm-up
	// (see Settings.Ladder) and then keeps them fixed. It is the zero
	// value; an explicit Settings.Betas overrides it (the ladder is then
	// fixed), and without warm-up (or with fewer than 48 warm-up
	// iterations) the initial ladder is kept.
	LadderAdaptive LadderMode = iota
	// LadderFixed keeps the initial ladder (Settings.Betas, or the
	// geometric ladder of Levels and BetaMin) for the whole run: the
	// paper's setting.
	LadderFixed
)

var ladderModeNames = [...]string{LadderAdaptive: "adaptive", LadderFixed: "fixed"}

// String returns the mode's lower-case name ("adaptive" or "fixed").
func (l LadderMode) String() string {
	if l < 0 || int(l) >= len(ladderModeNames) {
		return fmt.Sprintf("LadderMode(%d)", int(l))
	}
	return ladderModeNames[l]
}

// ParseLadderMode returns the mode named s (case-insensitive: adaptive, fixed).
func ParseLadderMode(s string) (LadderMode, error) {
	for i, n := range ladderModeNames {
		if strings.EqualFold(s, n) {
			return LadderMode(i), nil
		}
	}
	return 0, fmt.Errorf("tempering: unknown ladder mode %q (want adaptive or fixed)", s)
}

// Constants of the ladder adaptation.
const (
	// firstRound is the length in iterations of the first adaptation
	// round; each later round is twice as long as the one before, and the
	// last one also takes what is left of the first half of warm-up.
	firstRound = 8
	// minRounds is the least number of rounds worth adapting for: warm-up
	// needs 2·(8 + 16) = 48 iterations or more.
	minRounds = 2
	// DefaultMaxLevels caps the number M of levels above the target that
	// an adaptive ladder chooses when Settings.MaxLevels is zero.
	DefaultMaxLevels = 32
	// ttTargetVar is the variance of the log acceptance ratio of a
	// tempered transition that the choice of M for TT and STT aims at:
	// for a Gaussian log ratio with mean −v/2 and variance v (the
	// equilibrium shape), the acceptance E min(1, e^X) = 2Φ(−√v/2) is
	// 0.48 at v = 2.
	ttTargetVar = 2.0
)

// roundEnds returns the cumulative iteration counts (from the start of
// warm-up) at which the ladder-adaptation rounds of a warm-up of w
// iterations end: lengths 8, 16, 32, … while their total fits in w/2, the
// last one stretched to end at ⌊w/2⌋. It returns nil (no adaptation) when
// fewer than minRounds rounds fit.
func roundEnds(w int) []int {
	half := w / 2
	var ends []int
	total, length := 0, firstRound
	for total+length <= half {
		total += length
		ends = append(ends, total)
		length *= 2
	}
	if len(ends) < minRounds {
		return nil
	}
	ends[len(ends)-1] = half
	return ends
}

// ladderAdapt is a chain's ladder adaptation in progress: the rounds
// planned and this round's accumulators.
type ladderAdapt struct {
	start  int64 // warm-up iterations done when warm-up began
	total  int   // planned warm-up iterations
	ends   []int // round ends, iterations from start of warm-up
	round  int   // rounds completed
	active bool  // still in the rounds

	// Accumulators over the round, per pair (swaps: index m−1 for the
	// pair m−1, m) or per level (tempered transitions: index m−1 for
	// level m):
	// sum, sum of squares and count.
	sum, sq, n []float64 `ckpt:"-"` // views of vec
	vec        []float64 // the three concatenated, sent to the pool

	pool *ladderPool `ckpt:"-"`
	id   int         `ckpt:"-"`

	// estimates of the last completed round
	barrier, logRatioVar float64
	costs                []float64
}

// resize clears the accumulators for a ladder of M levels above the
// target.
func (a *ladderAdapt) resize(M int) {
	a.vec = make([]float64, 3*M)
	a.sum, a.sq, a.n = a.vec[:M:M], a.vec[M:2*M:2*M], a.vec[2*M:]
}

// addSwap records the acceptance probability of a swap between levels m−1
// and m with log ratio logA.
func (a *ladderAdapt) addSwap(m int, logA float64) {
	p := 0.0
	switch {
	case logA >= 0:
		p = 1
	case logA > math.Inf(-1): // NaN counts as 0
		p = math.Exp(logA)
	}
	a.sum[m-1] += p
	a.n[m-1]++
}

// addTT records the per-level terms t_m (t[m−1]) of one completed
// tempered transition's log acceptance ratio.
func (a *ladderAdapt) addTT(t []float64) {
	for _, v := range t {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
	}
	for i, v := range t {
		a.sum[i] += v
		a.sq[i] += v * v
		a.n[i]++
	}
}

// ladderPool pools the accumulators of Run's chains at the end of each
// round, so that all chains adapt one ladder from all chains' estimates.
// The sum is taken in chain order once every chain has submitted (or
// left), so the result does not depend on scheduling.
type ladderPool struct {
	mu     sync.Mutex
	left   []bool
	rounds map[int]*poolRound
	done   <-chan struct{}
}

type poolRound struct {
	sub   [][]float64
	ready chan struct{}
	sum   []float64
}

func newLadderPool(chains int, done <-chan struct{}) *ladderPool {
	return &ladderPool{left: make([]bool, chains), rounds: map[int]*poolRound{}, done: done}
}

// roundLocked returns round r's record, creating it.
func (p *ladderPool) roundLocked(r int) *poolRound {
	pr := p.rounds[r]
	if pr == nil {
		pr = &poolRound{sub: make([][]float64, len(p.left)), ready: make(chan struct{})}
		p.rounds[r] = pr
	}
	return pr
}

// completeLocked closes round r if every chain has submitted or left.
func (p *ladderPool) completeLocked(pr *poolRound) {
	if pr.sum != nil {
		return
	}
	var sum []float64
	for i, s := range pr.sub {
		if s == nil {
			if !p.left[i] {
				return
			}
			continue
		}
		if sum == nil {
			sum = make([]float64, len(s))
		}
		for j, v := range s {
			sum[j] += v
		}
	}
	if sum == nil {
		sum = []float64{}
	}
	pr.sum = sum
	close(pr.ready)
}

// submit hands in chain id's accumulators of round r and waits for the
// pooled sum; ok is false if Run was cancelled first.
func (p *ladderPool) submit(r, id int, v []float64) (sum []float64, ok bool) {
	p.mu.Lock()
	pr := p.roundLocked(r)
	pr.sub[id] = append([]float64(nil), v...)
	p.completeLocked(pr)
	p.mu.Unlock()
	select {
	case <-pr.ready:
		return pr.sum, true
	case <-p.done:
		return nil, false
	}
}

// leave withdraws chain id from all rounds it has not submitted to.
func (p *ladderPool) leave(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left[id] {
		return
	}
	p.left[id] = true
	for _, pr := range p.rounds {
		p.completeLocked(pr)
	}
}

// ladderProposal is a new ladder computed from a round's estimates.
type ladderProposal struct {
	betas []float64
	sizes []int
	// barrier: swaps: Λ = Σ_m r_m; tempered transitions: Σ_m sd(t_m)
	// (Σ_m Var(t_m) on a subset path). logRatioVar: tempered
	// transitions: Σ_m Var(t_m). costs: the intervals' costs on the
	// ladder the round ran on.
	barrier, logRatioVar float64
	costs                []float64
}

// proposeLadder computes the next ladder from pooled accumulators (sum,
// sq, n per pair or level, as ladderAdapt keeps them) over the current
// ladder (annealing coordinates x, x_0 = 1 > … > x_M, path.annealing).
// Each interval (x_m, x_{m−1}) gets a cost c_m from the scheme
// (scheme.cost): the swap rejection rate r_m = 1 − mean acceptance
// probability (swaps) or the standard deviation of the level's term t_m
// of the tempered-transition log ratio (tempered transitions on a power
// path), which both grow in proportion to the interval's width for
// narrow intervals, or the variance of t_m (tempered transitions on a
// subset path). That term is, for a model of independent observations,
// a sum over the observations that level m drops, log p(x_D | θ̌) −
// log p(x_D | θ̂), whose variance grows in proportion to their number
// |D_m|: the variances add up along the ladder to a total that more
// levels do not lower (measured on a 128-point MVN: TT acceptance 0.079
// with 7 levels, 0.077 with 33). So that scheme equalises the variances
// by cumulating them, and keeps its M unless fixedM is set.
// The cumulative cost, piecewise linear in −log x, is inverted at
// equally spaced values, so that every new interval has the same cost;
// the ends x_0 = 1 and x_M = β* stay. The new M is fixedM if positive,
// otherwise the scheme's (scheme.levels). The path turns the new
// coordinates into a ladder (path.place): on a subset path the sizes
// N_m = round(x_m N) are forced to decrease strictly (N_0 = N, N_M as
// before), with M lowered if N_0 − N_M is smaller. ok is false when the
// round gave no information (then the ladder should stay).
func proposeLadder(pa path, sc scheme, x []float64, n int, sum, sq, cnt []float64, fixedM, maxM int) (p ladderProposal, ok bool) {
	M := len(x) - 1
	cost := make([]float64, M)
	known, total := 0, 0.0
	for i := range M {
		c, v, ok := sc.cost(sum[i], sq[i], cnt[i])
		if !ok {
			cost[i] = math.NaN()
			continue
		}
		p.logRatioVar += v
		cost[i] = c
		total += cost[i]
		known++
	}
	if known == 0 {
		return p, false
	}
	for i := range cost { // an interval without offers costs the mean
		if math.IsNaN(cost[i]) {
			cost[i] = total / float64(known)
		}
	}
	total *= float64(M) / float64(known)
	p.barrier = total
	p.costs = append([]float64(nil), cost...)

	newM := fixedM
	if newM <= 0 {
		newM = sc.levels(total, M, maxM)
	}
	xs := equalCostLadder(x, cost, total, newM)
	p.betas, p.sizes, ok = pa.place(xs, x, n)
	return p, ok
}

// equalCostLadder returns newM+1 annealing parameters 1 = xs_0 > … >
// xs_newM = x_M that cut the cumulative cost of the intervals of x (cost
// per interval, total their sum) into equal parts: the cumulative cost,
// piecewise linear in u = −log x, is inverted at equally spaced values.
func equalCostLadder(x, cost []float64, total float64, newM int) []float64 {
	M := len(x) - 1
	// Cumulative cost at u_m = −log x_m, floored so that it increases
	// strictly (an interval with no measured cost still gets a share).
	u := make([]float64, M+1)
	cum := make([]float64, M+1)
	floor := max(0.01*total/float64(M), 1e-12)
	for m := 1; m <= M; m++ {
		u[m] = -math.Log(x[m])
		cum[m] = cum[m-1] + max(cost[m-1], floor)
	}
	xs := make([]float64, newM+1)
	xs[0], xs[newM] = 1, x[M]
	j := 1
	for k := 1; k < newM; k++ {
		c := cum[M] * float64(k) / float64(newM)
		for j < M && cum[j] < c {
			j++
		}
		f := (c - cum[j-1]) / (cum[j] - cum[j-1])
		xs[k] = math.Exp(-(u[j-1] + f*(u[j]-u[j-1])))
	}
	return xs
}

// nestedSizes returns strictly decreasing subset sizes N_0 = n > N_1 > … >
// N_M = last ≥ 1 close to round(x_m·n), with fewer levels than x has when
// n − last is smaller than M (the duplicates are dropped).
func nestedSizes(x []float64, n, last int) []int {
	last = max(1, min(last, n-1))
	M := len(x) - 1
	if n-last < M {
		// Too few observations for M distinct sizes: keep every size
		// from last to n once, spread over the wanted positions.
		M = n - last
		if M < 1 {
			return []int{n}
		}
		y := make([]float64, M+1)
		for k := range y {
			y[k] = x[int(math.Round(float64(k)*float64(len(x)-1)/float64(M)))]
		}
		x = y
	}
	s := make([]int, M+1)
	s[0], s[M] = n, last
	for m := 1; m < M; m++ {
		v := int(math.Round(x[m] * float64(n)))
		// Leave room for the levels below and above.
		s[m] = min(max(v, last+(M-m)), s[m-1]-1)
	}
	return s
}

// endRound ends the current ladder-adaptation round: it pools the round's
// estimates (over Run's chains), places the next ladder and rebuilds the
// chain on it, restarting every level kernel's adaptation for the rest of
// warm-up. After the last round the ladder stays.
func (c *Chain) endRound() {
	a := c.lad
	r := a.round
	a.round++
	if a.round == len(a.ends) {
		a.active = false
	}
	sum := a.vec
	if a.pool != nil {
		var ok bool
		if sum, ok = a.pool.submit(r, a.id, a.vec); !ok {
			a.active = false // cancelled: Run stops this chain anyway
			return
		}
	}
	M := len(c.betas) - 1
	n := c.target.NumObs()
	maxM := c.maxM
	if maxM <= 0 {
		maxM = DefaultMaxLevels
	}
	remaining := a.total - int(c.stats.WarmupIterations-a.start)
	x := c.path.annealing(c.betas, c.sizes, n)
	if p, ok := proposeLadder(c.path, c.scheme, x, n, sum[:M], sum[M:2*M], sum[2*M:3*M], c.fixedM, maxM); ok && c.rebuild(p.betas, p.sizes, remaining) {
		a.barrier, a.logRatioVar, a.costs = p.barrier, p.logRatioVar, p.costs
	} else {
		for m, k := range c.kern {
			k.Adapt(remaining * c.scheme.transitions(c, m))
		}
	}
	a.resize(len(c.betas) - 1)
	if c.halt.stop != nil {
		c.snap = c.stats.Clone()
	}
}

// nearestLevel returns the index of the value in x closest to v on a log
// scale (x decreasing, positive).
func nearestLevel(x []float64, v float64) int {
	best, bd := 0, math.Inf(1)
	for j, y := range x {
		if d := math.Abs(math.Log(y / v)); d < bd {
			best, bd = j, d
		}
	}
	return best
}

// rebuild replaces the chain's ladder by betas and subset sizes sizes
// for the last remaining warm-up iterations. Level 0 keeps its kernel
// and the adaptation under way; each hotter new level's kernel starts
// from the tuning of the old level nearest in annealing parameter,
// rescaled to its own (scaleTuning), and adapts for the rest of warm-up;
// where the scheme keeps a state at every level (swaps) its state is a copy of that level's (or, if its density is −∞ there,
// of the next nearest), evaluated on the new level, with a fresh replica
// number (round-trip tracking restarts). It reports false, changing
// nothing, if it cannot.
func (c *Chain) rebuild(betas []float64, sizes []int, remaining int) bool {
	n := c.target.NumObs()
	oldX := c.path.annealing(c.betas, c.sizes, n)
	newX := c.path.annealing(betas, sizes, n)
	lv, err := c.newLevels(betas, sizes)
	if err != nil {
		return false
	}
	// Level 0's density (β = 1, every observation) is the same on every
	// ladder: its kernel carries on, adapting on the plan it began with
	// warm-up, so that its windows span the whole warm-up as Stan's do
	// instead of restarting with each round of the ladder.
	lv.kern[0] = c.kern[0]
	L := len(betas)
	var states []*State
	if c.scheme.replicas() {
		states = make([]*State, L)
		dim := c.target.Dim()
		for k := range L {
			// Old levels by nearness to the new one.
			order := make([]int, len(oldX))
			for j := range order {
				order[j] = j
			}
			v := newX[k]
			for i := 1; i < len(order); i++ {
				for j := i; j > 0 && math.Abs(math.Log(oldX[order[j]]/v)) < math.Abs(math.Log(oldX[order[j-1]]/v)); j-- {
					order[j], order[j-1] = order[j-1], order[j]
				}
			}
			st := NewState(dim)
			for _, j := range order {
				st.CopyFrom(c.states[j])
				st.Replica = k
				lv.kern[k].Init(&lv.dens[k], st)
				if !math.IsInf(st.LogDensity, -1) {
					break
				}
			}
			if math.IsInf(st.LogDensity, -1) {
				return false
			}
			states[k] = st
		}
	}
	// TT, STT: the chain's state stays at level 0, whose density (all
	// observations, β = 1) is the same on every ladder.
	tunings := c.Tunings()
	c.setLevels(lv)
	if states != nil {
		c.states = states
		c.phase = make([]uint8, L)
		c.phase[0] = rtBottom
	}
	for k, kern := range c.kern[1:] {
		k++
		j := nearestLevel(oldX, newX[k])
		kern.SetTuning(scaleTuning(tunings[j], oldX[j]/newX[k]))
		kern.Adapt(remaining * c.scheme.transitions(c, k))
	}
	return true
}

// scaleTuning returns a copy of t for a level whose annealing parameter is
// 1/r times that of t's level: a likelihood-dominated posterior's
// variances scale as 1/x, so the inverse metric is multiplied by r, or,
// without a metric, the step size (MH's scale, HMC's ε) by √r. MH's scale
// σ·β^{-1/2} is then exactly the new level's.
func scaleTuning(t Tuning, r float64) Tuning {
	if t.InvMetric == nil && t.InvMetricDense == nil {
		t.StepSize *= math.Sqrt(r)
		return t
	}
	scale := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		w := make([]float64, len(v))
		for i, x := range v {
			w[i] = r * x
		}
		return w
	}
	t.InvMetric, t.InvMetricDense = scale(t.InvMetric), scale(t.InvMetricDense)
	return t
}

// ladderInfo summarises res's ladder; lad is chain 0's adaptation (nil
// without one).
func ladderInfo(cfg *Settings, res *Result, lad *ladderAdapt) LadderInfo {
	li := LadderInfo{
		Betas:       append([]float64(nil), res.Betas...),
		SubsetSizes: append([]int(nil), res.SubsetSizes...),
	}
	if lad != nil {
		li.Adaptive = lad.round > 0
		li.Rounds = lad.round
		li.WarmupBarrier, li.LogRatioVar = lad.barrier, lad.logRatioVar
		li.WarmupCosts = lad.costs
	}
	sp := &res.Stats.Sampling
	if cfg.Driver.swaps() && len(sp.SwapProposed) > 0 {
		li.SwapRates = make([]float64, len(sp.SwapProposed))
		for m := range li.SwapRates {
			li.SwapRates[m] = sp.SwapRate(m + 1)
			if sp.SwapProposed[m] > 0 {
				li.Barrier += 1 - li.SwapRates[m]
			}
		}
		li.RoundTrips = sp.RoundTrips
		var sec float64
		for _, d := range res.SamplingTimes {
			sec += d.Seconds()
		}
		if sec > 0 {
			li.RoundTripsPerSecond = float64(sp.RoundTrips) / sec
		}
	}
	if cfg.Driver == TT || cfg.Driver == STT {
		li.TTRate = sp.TTRate()
	}
	return li
}
