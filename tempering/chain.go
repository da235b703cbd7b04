package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Chain is one Markov chain of a driver: the states, densities and inner
// kernels of all its levels, its random stream and its counters. Run builds
// one per chain; a Chain can also be stepped by hand. A Chain is not safe for
// concurrent use. After NewChain it is in warm-up until EndWarmup is called.
type Chain struct {
	driver   Driver
	sched    SwapSchedule
	rng      *rand.Rand `ckpt:"-"`
	target   Target     `ckpt:"-"`
	kernel   Kernel     `ckpt:"-"`
	betas    []float64  `ckpt:"-"` // may be Settings.Betas itself: a checkpoint saves the ladder apart
	sizes    []int      `ckpt:"-"`
	dens     []Density  `ckpt:"-"`
	kern     []LevelKernel
	states   []*State // PT, SPT: the state at each level; otherwise states[0] only
	work     *State   // TT, STT: the path of a tempered transition
	perm     []int    // SPT, STT: backing array of the recursive subsets
	needGrad bool
	base     int       // TT, STT: level-0 transitions after each tempered transition
	reorder  Reorderer `ckpt:"-"` // SPT, STT: the target, if it lays out data by perm
	iter     int64
	warm     bool
	phase    []uint8 // round-trip phase per replica (PT, SPT)
	stats    Stats
	energy   float64 // StepInfo.Energy of level 0's last transition in this iteration (NaN: none)

	// Ladder adaptation (ladderadapt.go): adaptive if warm-up may place
	// the levels, fixedM the user's M (0: chosen), maxM the cap on a
	// chosen M (0: default), lad the rounds once BeginWarmup planned
	// them, pool Run's pooling of all chains' estimates (nil: this
	// chain's own), tterm the current tempered transition's terms t_m.
	adaptive     bool
	fixedM, maxM int
	lad          *ladderAdapt
	pool         *ladderPool `ckpt:"-"`
	poolID       int         `ckpt:"-"`
	tterm        []float64
	begun        bool // BeginWarmup was called during warm-up

	// Run's stop: with halt.stop set, Step keeps the counts from before
	// the iteration in snap, to restore them if the iteration is cut.
	halt halt  `ckpt:"-"`
	snap Stats `ckpt:"-"`

	// ev records the swaps' log ratios while sampling, for the evidence
	// (evidence.go); nil unless evOn.
	evOn bool
	ev   *evidenceRec

	drop dropHook // Settings.drop: a broken variant for the tests
}

// halt lets Run stop a chain inside an iteration, which on a large GP can
// take minutes: once stop is closed, the chain's densities evaluate to −∞
// without calling the target, so the iteration in progress runs out at
// once (every move rejected), and Step discards it.
type halt struct {
	stop <-chan struct{}
	cut  bool // an evaluation was skipped: the iteration is void
}

// stopped reports whether the chain has been told to stop, marking the
// iteration cut if so.
func (h *halt) stopped() bool {
	if h.stop == nil {
		return false
	}
	if !h.cut {
		select {
		case <-h.stop:
			h.cut = true
		default:
		}
	}
	return h.cut
}

// StopOn makes the chain stop inside an iteration once done is closed
// (a context's Done channel): evaluations of the target not yet begun are
// skipped, Step returns at once, and the iteration is dropped with its
// counts; Stopped then reports true. A stopped chain must not be stepped
// again: its states are those of a partial iteration. Run does this for
// its chains; call it before the first Step.
func (c *Chain) StopOn(done <-chan struct{}) {
	c.halt.stop = done
	c.snap = c.stats.Clone()
}

// Stopped reports whether a Step was cut short by StopOn's channel.
func (c *Chain) Stopped() bool { return c.halt.cut }

// Round-trip phases of a replica.
const (
	rtNone   = iota // not yet at the bottom level
	rtBottom        // last extreme visited: bottom
	rtTop           // visited the top since it last left the bottom
)

// NewChain builds a chain of s's driver on t, started at start (len
// t.Dim()), using rng for all its randomness. It uses t directly (give each
// chain its own Target: see Target.Clone). s may be nil (defaults).
// Of s.Control only InitTuning and Evidence are used: the caller runs
// warm-up with BeginWarmup and EndWarmup. It returns an error if the
// settings are invalid or the starting point has log density −∞ at some
// level.
func NewChain(t Target, s *Settings, rng *rand.Rand, start []float64) (*Chain, error) {
	cfg, err := s.resolve()
	if err != nil {
		return nil, err
	}
	return newChain(t, &cfg, rng, start)
}

func newChain(t Target, s *Settings, rng *rand.Rand, start []float64) (*Chain, error) {
	dim, n := t.Dim(), t.NumObs()
	if dim < 1 {
		return nil, fmt.Errorf("tempering: target dimension must be ≥ 1, got %d", dim)
	}
	if len(start) != dim {
		return nil, fmt.Errorf("tempering: starting point has length %d, target dimension is %d", len(start), dim)
	}
	if s.Driver.subsampled() && n < 1 {
		return nil, fmt.Errorf("tempering: driver %v needs observations, target has %d", s.Driver, n)
	}
	betas := []float64{1}
	if s.Driver.tempered() {
		betas = s.Betas
	}
	L := len(betas)
	c := &Chain{
		driver:   s.Driver,
		sched:    s.Swap,
		rng:      rng,
		target:   t,
		kernel:   s.Kernel,
		needGrad: s.Kernel.NeedsGrad(),
		base:     s.BaseSteps,
		warm:     true,
		adaptive: s.adaptLadder && s.Driver.tempered(),
		fixedM:   s.fixedM,
		maxM:     s.MaxLevels,
		evOn:     s.Evidence != nil,
		drop:     s.drop,
	}
	var sizes []int
	if s.Driver.subsampled() {
		sizes = SubsetSizes(betas, n)
		sizes[0] = n
		c.perm = make([]int, n)
		for i := range c.perm {
			c.perm[i] = i
		}
	} else {
		sizes = make([]int, L)
		for m := range sizes {
			sizes[m] = n
		}
	}
	lv, err := c.newLevels(betas, sizes)
	if err != nil {
		return nil, err
	}
	c.setLevels(lv)
	if s.InitTuning != nil {
		c.kern[0].SetTuning(*s.InitTuning)
	}
	if s.Driver.subsampled() {
		c.reorder, _ = t.(Reorderer)
		c.drawSubsets()
	}
	switch s.Driver {
	case PT, SPT:
		c.states = make([]*State, L)
		c.phase = make([]uint8, L)
		c.phase[0] = rtBottom
	default:
		c.states = make([]*State, 1)
		c.work = NewState(dim)
	}
	for m := range c.states {
		st := NewState(dim)
		copy(st.U, start)
		st.Replica = m
		c.kern[m].Init(&c.dens[m], st)
		if math.IsInf(st.LogDensity, -1) {
			return nil, fmt.Errorf("tempering: starting point %v has log density −∞ at level %d", start, m)
		}
		c.states[m] = st
	}
	return c, nil
}

// levels is a ladder's per-level machinery, built by newLevels and
// installed by setLevels.
type levels struct {
	betas []float64
	sizes []int
	dens  []Density
	kern  []LevelKernel
	stats []LevelStats
}

// newLevels builds the densities, level kernels and counters of the
// ladder betas with subset sizes sizes (N at every level for PT and TT).
// The subsampled levels' subsets are prefixes of c.perm, which must
// exist.
func (c *Chain) newLevels(betas []float64, sizes []int) (*levels, error) {
	t := c.target
	L := len(betas)
	lv := &levels{
		betas: betas, sizes: sizes,
		dens:  make([]Density, L),
		kern:  make([]LevelKernel, L),
		stats: make([]LevelStats, L),
	}
	for m := range L {
		st := &lv.stats[m]
		st.Beta, st.SubsetSize = betas[m], sizes[m]
		d := &lv.dens[m]
		d.target, d.level, d.stats, d.beta, d.halt = t, m, st, betas[m], &c.halt
		if c.driver.subsampled() {
			d.beta = 1
			if m > 0 {
				d.subset = c.perm[:sizes[m]]
			} else if c.driver == SPT {
				// All observations, in the order whose prefixes are the
				// hotter levels' subsets, so that level 0's evaluations
				// give their values too. (STT redraws the order every
				// iteration, which level 0's cached values would not
				// survive.)
				d.subset = c.perm
			}
			// STT looks values up only when it moves a state without
			// gradient: with a kernel that needs gradients, never.
			if pl, ok := t.(PrefixLiker); ok && d.subset != nil && (c.driver == SPT || !c.needGrad) {
				d.pl, d.preK, d.levels = pl, sizes[m+1:], L
			}
			// Only a level whose kernel uses gradients has one completed
			// (with PerLevel's MH above the target, level 0 alone).
			if gr, ok := t.(GradResumer); ok && c.driver == SPT && c.levelNeedsGrad(m) {
				d.gr = gr
			}
		}
		k, err := c.kernel.NewLevel(t.Dim(), betas[m])
		if err != nil {
			return nil, err
		}
		lv.kern[m] = k
	}
	return lv, nil
}

// levelNeedsGrad reports whether the kernel of level m (0: the target)
// uses gradients.
func (c *Chain) levelNeedsGrad(m int) bool {
	if pl, ok := c.kernel.(PerLevel); ok && pl.Target != nil {
		if m == 0 {
			return pl.Target.NeedsGrad()
		}
		return pl.hot().NeedsGrad()
	}
	return c.needGrad
}

// setLevels installs lv as the chain's ladder. The counters of a ladder it
// replaces go to Stats.Retired; swap counters start afresh.
func (c *Chain) setLevels(lv *levels) {
	if c.stats.Levels != nil {
		c.stats.Retired = append(c.stats.Retired, c.stats.Levels...)
	}
	L := len(lv.betas)
	c.betas, c.sizes, c.dens, c.kern = lv.betas, lv.sizes, lv.dens, lv.kern
	c.stats.Levels = lv.stats
	c.stats.SwapProposed = make([]int64, L-1)
	c.stats.SwapAccepted = make([]int64, L-1)
	c.stats.Sampling.SwapProposed = make([]int64, L-1)
	c.stats.Sampling.SwapAccepted = make([]int64, L-1)
	if c.driver == TT || c.driver == STT {
		c.tterm = make([]float64, L-1)
	}
}

// drawSubsets draws recursive subsets X_M ⊂ … ⊂ X_1 without replacement by
// partial Fisher–Yates shuffles of nested prefixes of perm: X_m = perm[:N_m].
// A later shuffle only permutes inside the prefix, so earlier sets keep
// their content and each X_m is a uniform subset of X_{m−1}.
func (c *Chain) drawSubsets() {
	prev := len(c.perm)
	for m := 1; m < len(c.sizes); m++ {
		k := c.sizes[m]
		for i := range k {
			j := i + c.rng.IntN(prev-i)
			c.perm[i], c.perm[j] = c.perm[j], c.perm[i]
		}
		prev = k
	}
	if c.reorder != nil {
		if err := c.reorder.Reorder(c.perm); err != nil {
			c.reorder = nil // an optimisation only: carry on without it
			return
		}
		c.stats.Reorders++
	}
}

// Step performs one iteration of the driver.
func (c *Chain) Step() {
	c.energy = math.NaN() // an iteration without a level-0 transition has none
	if c.halt.stop != nil {
		c.snap.copyFrom(&c.stats)
	}
	switch c.driver {
	case None:
		c.step(0, c.states[0])
	case PT, SPT:
		c.ptStep()
	case TT, STT:
		c.ttStep()
		c.baseSteps()
	}
	if c.halt.cut {
		// Stopped inside the iteration: it never happened, nor did its
		// counts (its skipped evaluations would read as failures and
		// divergent trajectories).
		c.stats.copyFrom(&c.snap)
		return
	}
	c.endIteration()
}

// BeginWarmup tells the level kernels that warm-up lasts iterations driver
// iterations from now, so that each plans its adaptation windows over the
// transitions its level will make: one per iteration for None, PT and SPT;
// two (ascent and descent) at levels 1..M and BaseSteps at level 0 for TT
// and STT, which during a warm-up begun by BeginWarmup run at least one
// level-0 transition per iteration (see warmBase). With an adaptive ladder (Settings.Ladder) and 48 or more
// warm-up iterations, it also plans the ladder's adaptation rounds over
// the first half of them (see Settings.Ladder): at the end of each round
// Step rebuilds the ladder and restarts the adaptation of every level
// kernel above level 0 for the rest of warm-up (level 0's adapts on). Run calls it before the first Step when
// there is a warm-up (Settings.Warmup ≠ NoWarmup).
func (c *Chain) BeginWarmup(iterations int) {
	c.begun = c.warm
	for m, k := range c.kern {
		k.Adapt(iterations * c.transitionsPerIteration(m))
	}
	c.lad = nil
	if !c.adaptive || !c.warm {
		return
	}
	ends := roundEnds(iterations)
	if ends == nil {
		return
	}
	c.lad = &ladderAdapt{start: c.stats.WarmupIterations, total: iterations, ends: ends, active: true, pool: c.pool, id: c.poolID}
	c.lad.resize(len(c.betas) - 1)
}

// transitionsPerIteration returns the number of inner-kernel transitions
// one iteration makes at level m.
func (c *Chain) transitionsPerIteration(m int) int {
	switch c.driver {
	case TT, STT:
		if m == 0 {
			return c.baseCount()
		}
		return 2
	default:
		return 1
	}
}

// Tunings returns each level kernel's current tuning (copies).
func (c *Chain) Tunings() []Tuning {
	t := make([]Tuning, len(c.kern))
	for m, k := range c.kern {
		t[m] = k.Tuning()
	}
	return t
}

// EndWarmup ends warm-up: kernels stop adapting and iterations are counted
// as sampling iterations.
func (c *Chain) EndWarmup() {
	if !c.warm {
		return
	}
	c.warm = false
	if c.lad != nil {
		c.lad.active = false
	}
	for _, k := range c.kern {
		k.EndWarmup()
	}
	if c.evOn {
		c.ev = newEvidenceRec(len(c.betas), c.target.Dim())
	}
}

// Position returns the chain's current point at level 0 (the target). The
// slice is owned by the chain and changes with the next Step.
func (c *Chain) Position() []float64 { return c.states[0].U }

// LogDensity returns the log posterior density (up to a constant) at
// Position.
func (c *Chain) LogDensity() float64 { return c.states[0].LogDensity }

// Stats returns the chain's counters (live; copy with Stats.Clone).
func (c *Chain) Stats() *Stats { return &c.stats }

// Betas returns the chain's ladder β_0 = 1, …, β_M (just [1] for None).
func (c *Chain) Betas() []float64 { return c.betas }

// SubsetSizes returns the number of observations each level's
// log-likelihood conditions on.
func (c *Chain) SubsetSizes() []int { return c.sizes }

// step performs one inner-kernel transition of s at level m and counts it.
func (c *Chain) step(m int, s *State) {
	d := &c.dens[m]
	info := c.kern[m].Step(c.rng, d, s)
	d.record(info)
	c.countTransition(d.stats, info)
	if m == 0 {
		c.energy = info.Energy
	}
}

// ptStep is one PT or SPT iteration: a transition at every level, then the
// swaps of the schedule, then round-trip bookkeeping.
func (c *Chain) ptStep() {
	for m, s := range c.states {
		c.step(m, s)
	}
	M := len(c.states) - 1
	switch c.sched {
	case DEO:
		for m := 1 + int(c.iter&1); m <= M; m += 2 {
			c.swap(m)
		}
	default:
		for m := M; m >= 1; m-- {
			c.swap(m)
		}
	}
	c.afterSwaps()
}

// swap offers to exchange the states of levels m−1 and m, accepted with
// log probability log h_m(θ_{m−1}) + log h_{m−1}(θ_m) − log h_m(θ_m) −
// log h_{m−1}(θ_{m−1}). PT reuses the cached full-data log-likelihoods; SPT
// evaluates each state's log-likelihood on the other level's subset (an
// evaluation without gradient, counted at the level whose subset is used),
// except that θ_{m−1}'s on X_m ⊂ X_{m−1} comes free from its evaluation on
// X_{m−1} when the target is a PrefixLiker. With a kernel that needs
// gradients and a GradResumer target, θ_m's evaluation on X_{m−1} also
// gives the gradient it needs where it ends up: on X_{m−1} when it comes
// down, on X_m (a prefix) when it came down in the previous swap of the
// sweep and now stays.
func (c *Chain) swap(m int) {
	a, b := c.states[m-1], c.states[m]
	lo, hi := &c.dens[m-1], &c.dens[m]
	aLL, bLL := a.LogLik, b.LogLik
	if c.driver == SPT && c.drop.term != staleSPTSwap {
		var ok bool
		if aLL, ok = hi.prefixLik(a); !ok {
			aLL = hi.evalLik(a, nil)
		}
		bLL = lo.evalLik(b, nil)
	}
	aHi := hi.combine(aLL, a.LogPrior) // log h_m(θ_{m−1})
	bLo := lo.combine(bLL, b.LogPrior) // log h_{m−1}(θ_m)
	logA := aHi + bLo - b.LogDensity - a.LogDensity
	if c.drop.drops(dropSwapLower, m) {
		logA = aHi - b.LogDensity
	}
	c.observeSwap(m, logA, bLo-b.LogDensity, aHi-a.LogDensity)
	if !(logA >= 0 || math.Log(c.rng.Float64()) < logA) {
		// θ_m stays. If it came to level m in this sweep, it has no
		// gradient there; its evaluation on X_{m−1} just now, of which X_m
		// is a prefix, gives it (GradResumer targets).
		if c.driver == SPT && !b.HasGrad {
			hi.resumeGrad(b)
		}
		return
	}
	c.countSwapAccepted(m)
	c.states[m-1], c.states[m] = b, a
	a.LogDensity, b.LogDensity = aHi, bLo
	if c.driver == SPT {
		a.LogLik, b.LogLik = aLL, bLL
		a.HasGrad, b.HasGrad = false, false
		// θ_m, evaluated last, on X_{m−1}, gets its gradient there from
		// that evaluation, unless the sweep's next swap evaluates it again
		// (on X_{m−2}): then the rejection above or a later acceptance
		// gives it. θ_{m−1} gets its gradient on X_m from level m's next
		// transition.
		if c.sched == DEO || m == 1 {
			lo.resumeGrad(b)
		}
	}
}

// moveTo makes s's caches those of level m: free for TT (full-data
// log-likelihood reused), one log-likelihood evaluation on X_m for STT,
// with gradient if grad. Without it, s's cached gradient is invalid
// afterwards for STT. Without gradient, an STT move to a hotter level is
// free when s holds the value on X_m from its evaluation on X_{m−1}
// (PrefixLiker targets).
func (c *Chain) moveTo(m int, s *State, grad bool) {
	d := &c.dens[m]
	if c.driver != STT {
		d.rebase(s)
		return
	}
	if grad && !s.HasGrad {
		d.Eval(s, true)
		return
	}
	if !grad {
		if ll, ok := d.prefixLik(s); ok {
			s.LogLik = ll
			s.LogDensity = d.combine(ll, s.LogPrior)
			s.HasGrad = false
			return
		}
	}
	var g []float64
	if grad {
		g = s.GradLik
	}
	s.LogLik = d.evalLik(s, g)
	s.LogDensity = d.combine(s.LogLik, s.LogPrior)
	s.HasGrad = grad && !math.IsInf(s.LogDensity, -1)
}

// ttStep is one tempered transition in Neal (1996)'s form: from θ̂_0 = θ,
// for m = 1..M the transition T̂_m at level m gives θ̂_m from θ̂_{m−1}; then
// for m = M..1 the transition Ť_m at level m gives θ̌_{m−1} from θ̌_m
// (θ̌_M = θ̂_M). θ̌_0 is accepted with log probability
//
//	Σ_m [log h_m(θ̂_{m−1}) − log h_{m−1}(θ̂_{m−1}) + log h_{m−1}(θ̌_{m−1}) − log h_m(θ̌_{m−1})].
//
// STT first draws fresh recursive subsets, shared by the ascent and the
// descent. A path point with log density −∞ makes the ratio 0: the move is
// rejected at once.
func (c *Chain) ttStep() {
	if c.driver == STT {
		c.drawSubsets()
	}
	cur, w := c.states[0], c.work
	M := len(c.betas) - 1
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
		c.tterm[m-1] = w.LogDensity - lower
		logR += c.tterm[m-1]
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
		if !c.drop.drops(dropTTDescentLower, m) {
			logR += w.LogDensity
		}
		logR -= upper
		c.tterm[m-1] += w.LogDensity - upper
	}
	if !(logR >= 0 || math.Log(c.rng.Float64()) < logR) {
		c.countTT(ttRejected, c.tterm)
		return
	}
	c.countTT(ttAccepted, c.tterm)
	cur.CopyFrom(w)
}

// baseSteps runs the configured ordinary transitions at level 0 after a
// tempered transition (whatever its outcome); during warm-up at least one
// (see warmBase).
func (c *Chain) baseSteps() {
	for range c.baseCount() {
		c.step(0, c.states[0])
	}
}

// baseCount returns the number of level-0 transitions per TT or STT
// iteration: BaseSteps, and during a warm-up begun by BeginWarmup at
// least warmBase.
func (c *Chain) baseCount() int {
	if c.warm && c.begun {
		return max(c.base, warmBase)
	}
	return c.base
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

// dropTerm names a term of an acceptance ratio that tests may drop
// deliberately (Settings.drop), to show that the exactness tests detect a
// wrong ratio. Outside this package's tests it is always dropNothing.
type dropTerm int

const (
	dropNothing        dropTerm = iota
	dropTTDescentLower          // log h_{m−1}(θ̌_{m−1}) in the TT ratio
	dropSwapLower               // both log h_{m−1} terms of the swap ratio
	staleSPTSwap                // SPT swaps reuse each state's own-level log-likelihood
)

// dropHook selects a term to drop at level Level (0: at every level).
type dropHook struct {
	term  dropTerm
	level int
}

func (h dropHook) drops(t dropTerm, m int) bool {
	return h.term == t && (h.level == 0 || h.level == m)
}
