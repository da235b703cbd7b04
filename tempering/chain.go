package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Chain is one Markov chain of a driver: the states, densities and inner
// kernels of all its levels, its random stream and its counters. The
// driver is a path (the levels' densities, path.go) and a scheme (how
// the levels communicate, scheme.go), chosen when the chain is built;
// the chain keeps the counts, the warm-up's bookkeeping and the ladder's
// adaptation. Run builds one per chain; a Chain can also be stepped by
// hand. A Chain is not safe for concurrent use. After NewChain it is in
// warm-up until EndWarmup is called.
type Chain struct {
	path     path       // the levels' densities (path.go)
	scheme   scheme     `ckpt:"-"` // how the levels communicate (scheme.go)
	rng      *rand.Rand `ckpt:"-"`
	target   Target     `ckpt:"-"`
	kernel   Kernel     `ckpt:"-"`
	betas    []float64  `ckpt:"-"` // may be Settings.Betas itself: a checkpoint saves the ladder apart
	sizes    []int      `ckpt:"-"`
	dens     []Density  `ckpt:"-"`
	kern     []LevelKernel
	states   []*State // the state at each level (scheme.replicas), or at level 0 only
	needGrad bool
	iter     int64
	warm     bool
	phase    []uint8 // round-trip phase per replica (scheme.replicas)
	stats    Stats
	energy   float64 // StepInfo.Energy of level 0's last transition in this iteration (NaN: none)

	// Ladder adaptation (ladderadapt.go): adaptive if warm-up may place
	// the levels, fixedM the user's M (0: chosen), maxM the cap on a
	// chosen M (0: default), lad the rounds once BeginWarmup planned
	// them, pool Run's pooling of all chains' estimates (nil: this
	// chain's own).
	adaptive     bool
	fixedM, maxM int
	lad          *ladderAdapt
	pool         *ladderPool `ckpt:"-"`
	poolID       int         `ckpt:"-"`
	begun        bool        // BeginWarmup was called during warm-up

	// Run's stop: with halt.stop set, Step keeps the counts from before
	// the iteration in snap, to restore them if the iteration is cut.
	halt halt  `ckpt:"-"`
	snap Stats `ckpt:"-"`

	// ev records the swaps' log ratios while sampling, for the evidence
	// (evidence.go); nil unless evOn.
	evOn bool
	ev   *evidenceRec
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
	p, sc, err := newPathScheme(s, dim, n)
	if err != nil {
		return nil, err
	}
	if s.variant != nil {
		p, sc = s.variant(p, sc)
	}
	betas := s.Betas // [1] for None
	L := len(betas)
	c := &Chain{
		path:     p,
		scheme:   sc,
		rng:      rng,
		target:   t,
		kernel:   s.Kernel,
		needGrad: s.Kernel.NeedsGrad(),
		warm:     true,
		adaptive: s.adaptLadder,
		fixedM:   s.fixedM,
		maxM:     s.MaxLevels,
		evOn:     s.Evidence != nil,
	}
	lv, err := c.newLevels(betas, p.sizes(betas, n))
	if err != nil {
		return nil, err
	}
	c.setLevels(lv)
	if s.InitTuning != nil {
		c.kern[0].SetTuning(*s.InitTuning)
	}
	p.start(c)
	c.states = make([]*State, 1)
	if sc.replicas() {
		c.states = make([]*State, L)
		c.phase = make([]uint8, L)
		c.phase[0] = rtBottom
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
// ladder betas with subset sizes sizes (N at every level on a power
// path), each density the path's (path.configure).
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
		c.path.configure(c, d, m, sizes)
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
}

// Step performs one iteration of the driver.
func (c *Chain) Step() {
	c.energy = math.NaN() // an iteration without a level-0 transition has none
	if c.halt.stop != nil {
		c.snap.copyFrom(&c.stats)
	}
	c.path.refresh(c)
	c.scheme.round(c)
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
		k.Adapt(iterations * c.scheme.transitions(c, m))
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

// warmingUp reports whether the chain is in a warm-up begun by
// BeginWarmup.
func (c *Chain) warmingUp() bool { return c.warm && c.begun }

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

// moveTo makes s's caches those of level m (path.moveTo), with gradient
// if grad.
func (c *Chain) moveTo(m int, s *State, grad bool) { c.path.moveTo(&c.dens[m], s, grad) }
