package tempering

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
)

// Recorder receives Run's reports: one after every iteration of every
// chain (Settings.Recorder). Record is called from the chains' goroutines,
// concurrently, in the middle of sampling: it must be cheap and must not
// keep the Report (which the chain reuses) or its Stats. It cannot change
// the draws.
type Recorder interface {
	Record(r *Report)
}

// RecorderFunc makes a function a Recorder.
type RecorderFunc func(r *Report)

// Record calls f(r).
func (f RecorderFunc) Record(r *Report) { f(r) }

// Report is what a Recorder receives after an iteration of a chain.
type Report struct {
	// Chain is the chain's index; Iteration the number of iterations it
	// has done, warm-up included; Total the most it will do, Warmup +
	// Draws·Thin.
	Chain, Iteration, Total int
	// Warmup reports that the iteration was a warm-up iteration.
	Warmup bool
	// Draws is the number of draws the chain has kept so far.
	Draws int
	// LadderRounds is the number of ladder-adaptation rounds the chain
	// has completed (see Settings.Ladder).
	LadderRounds int
	// Stats are the chain's counters so far. They are the chain's own,
	// valid during the call only: copy them with Stats.Clone to keep them.
	Stats *Stats
}

// progressRecorder calls a Settings.Progress function.
type progressRecorder func(chain, iter, total int)

func (p progressRecorder) Record(r *Report) { p(r.Chain, r.Iteration, r.Total) }

// recorders is a list of Recorders, called in order.
type recorders []Recorder

func (rs recorders) Record(r *Report) {
	for _, rec := range rs {
		rec.Record(r)
	}
}

// runner is a run of Run: what its chains share and where they put their
// results.
type runner struct {
	cfg     *Settings
	dim     int
	done    <-chan struct{}
	targets []Target    // each chain's clone of the target
	starts  [][]float64 // each chain's start in u, or nil for a random one
	pool    *ladderPool // the chains' pooled ladder adaptation (nil: none)
	stops   *stopPool   // the chains' stop checks (nil: no stop rule)
	rec     Recorder    // nil: no recorder
	start   time.Time
	srcs    []*rand.PCG // each chain's random source
	ck      *ckptCoord  // nil: no checkpoints
	froms   []int       // each chain's iteration resumed from (nil: a fresh run)
	first   int         // the index of chain 0 in the whole run (Shard.From)

	res         *Result
	cpuOK       []bool
	ladders     []*ladderAdapt
	evs         []ChainEvidence
	errs        []error
	interrupted []bool
}

// newRunner checks t and the starting points against cfg, makes each
// chain's clone of t and starting point and sets up the run. Once it has
// made clones it returns the runner, even with an error, for closeTargets.
func newRunner(ctx context.Context, t Target, cfg *Settings) (*runner, error) {
	dim := t.Dim()
	if dim < 1 {
		return nil, fmt.Errorf("tempering: target dimension must be ≥ 1, got %d", dim)
	}
	C, n := cfg.Chains, cfg.Shard.To-cfg.Shard.From
	switch len(cfg.Init) {
	case 0, 1, C:
	default:
		return nil, fmt.Errorf("tempering: %d starting points for %d chains", len(cfg.Init), C)
	}
	for i, u := range cfg.Init {
		if len(u) != dim {
			return nil, fmt.Errorf("tempering: starting point %d has length %d, target dimension is %d", i, len(u), dim)
		}
	}
	r := &runner{cfg: cfg, dim: dim, done: ctx.Done(), targets: make([]Target, n), first: cfg.Shard.From}
	for c := range r.targets {
		var err error
		if r.targets[c], err = t.Clone(); err != nil {
			return r, fmt.Errorf("tempering: cloning target for chain %d: %w", c, err)
		}
	}
	r.chooseStarts()
	if cfg.Transform != nil {
		for c := range r.targets {
			r.targets[c] = Reparam(r.targets[c], cfg.Transform)
		}
	}
	if cfg.Evidence != nil {
		if _, ok := t.(PriorSampler); !ok {
			return r, errors.New("tempering: the evidence needs a target that samples its prior (PriorSampler)")
		}
		r.evs = make([]ChainEvidence, n)
	}
	r.setUp()
	return r, nil
}

// chooseStarts sets the chains' starting points in u: Settings.Init's,
// or the target's clones' (Starter), before they are seen through the
// transform; nil where neither gives one.
func (r *runner) chooseStarts() {
	init, C := r.cfg.Init, r.cfg.Chains
	r.starts = make([][]float64, len(r.targets))
	for c := range r.starts {
		g := r.first + c // the chain's index in the whole run
		switch {
		case len(init) == 1:
			r.starts[c] = init[0]
		case len(init) == C:
			r.starts[c] = init[g]
		default:
			if st, ok := r.targets[c].(Starter); ok {
				r.starts[c] = make([]float64, r.dim)
				st.Start(g, C, r.starts[c])
			}
		}
	}
}

// setUp makes the result, the pools the chains share and the recorder.
func (r *runner) setUp() {
	cfg, C := r.cfg, len(r.targets)
	r.res = &Result{
		Draws:         make([][][]float64, C),
		Energy:        make([][]float64, C),
		Divergent:     make([][]int, C),
		ChainStats:    make([]Stats, C),
		ChainTimes:    make([]time.Duration, C),
		ChainCPU:      make([]time.Duration, C),
		Tunings:       make([][]Tuning, C),
		SamplingTimes: make([]time.Duration, C),
	}
	if cfg.RecordTimes {
		r.res.Times = make([][]time.Duration, C)
	}
	r.cpuOK = make([]bool, C)
	r.ladders = make([]*ladderAdapt, C)
	r.errs = make([]error, C)
	r.interrupted = make([]bool, C)
	r.srcs = make([]*rand.PCG, C)
	if cfg.Resume != nil {
		for _, s := range cfg.Resume.file.Chains {
			r.froms = append(r.froms, s.Iter)
		}
	}
	if cp := cfg.Checkpoints; cp != nil && cp.Save != nil {
		r.ck = newCkptCoord(r, cp, cfg)
		if cp.CancelGrace > 0 {
			// The chains stop when the checkpoint that a cancellation
			// asks for is saved (ckptCoord.onCancel).
			halt := make(chan struct{})
			r.ck.ctxDone, r.ck.halt = r.done, halt
			r.done = halt
		}
	}
	if cfg.adaptLadder && roundEnds(cfg.Warmup) != nil {
		r.pool = newLadderPool(C, r.done)
	}
	if cfg.Stop != nil && cfg.Draws > cfg.StopEvery {
		r.stops = newStopPool(cfg.Stop, C, r.done)
	}
	var rs recorders
	if cfg.Progress != nil {
		rs = append(rs, progressRecorder(cfg.Progress))
	}
	if cfg.Recorder != nil {
		rs = append(rs, cfg.Recorder)
	}
	switch len(rs) {
	case 0:
	case 1:
		r.rec = rs[0]
	default:
		r.rec = rs
	}
	r.start = time.Now()
}

// closeTargets closes the clones that implement io.Closer.
func (r *runner) closeTargets() {
	for _, tc := range r.targets {
		if cl, ok := tc.(io.Closer); ok {
			cl.Close()
		}
	}
}

// runChain runs chain c from its set-up to its results, in its own
// goroutine.
func (r *runner) runChain(c int) {
	t0 := time.Now()
	clk := startThreadClock()
	defer func() {
		r.res.ChainTimes[c] = time.Since(t0)
		r.res.ChainCPU[c], r.cpuOK[c] = clk.stop()
	}()
	if r.pool != nil {
		// Rounds that this chain will not finish (an error, an
		// interruption) must not wait for it.
		defer r.pool.leave(c)
	}
	if r.stops != nil {
		defer r.stops.leave(c)
	}
	ch, err := r.newChain(c)
	if err != nil {
		r.errs[c] = fmt.Errorf("%w (chain %d)", err, c)
		return
	}
	out := r.newChainOut()
	out.rec = newDrawRecord(ch, r.cfg.Draws)
	if r.cfg.Resume != nil {
		if err := r.restore(c, ch, out); err != nil {
			r.errs[c] = err
			return
		}
	}
	r.sample(c, ch, out)
	r.interrupted[c] = out.interrupted
	r.collect(c, ch, out)
}

// newChain builds chain c on its clone of the target, started at its
// starting point or, without one, at a point drawn from its random
// stream.
func (r *runner) newChain(c int) (*Chain, error) {
	cfg := r.cfg
	r.srcs[c] = chainSource(cfg.Seed, r.first+c)
	rng := rand.New(r.srcs[c])
	u := make([]float64, r.dim)
	if r.starts[c] != nil {
		copy(u, r.starts[c])
	} else {
		for i := range u {
			u[i] = 4*rng.Float64() - 2
		}
	}
	if cfg.Transform != nil {
		v, err := toChainSpace(cfg.Transform, u)
		if err != nil {
			return nil, err
		}
		u = v
	}
	return newChain(r.targets[c], cfg, rng, u)
}

// chainOut is what a chain's sampling leaves: its draws (in the target's
// space) and their times, when sampling began, and whether it was cut
// short.
type chainOut struct {
	draws       [][]float64
	times       []time.Duration
	n           int // draws kept
	tSample     time.Time
	interrupted bool
	rep         Report      // the recorder's, reused (no allocation per iteration)
	rec         *drawRecord // level 0's energy and divergences with each draw
}

// newChainOut allocates a chain's draws, each chain's in one array.
func (r *runner) newChainOut() *chainOut {
	n, dim := r.cfg.Draws, r.dim
	flat := make([]float64, n*dim)
	o := &chainOut{draws: make([][]float64, n)}
	for i := range o.draws {
		o.draws[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	if r.cfg.RecordTimes {
		o.times = make([]time.Duration, n)
	}
	return o
}

// sample is the sampling loop of every driver: warm-up, then Draws·Thin
// iterations, keeping one in Thin, until the stop rule says enough or
// the context is cancelled; the recorder hears of every iteration done.
func (r *runner) sample(c int, ch *Chain, o *chainOut) {
	cfg := r.cfg
	if r.done != nil {
		ch.StopOn(r.done)
	}
	if cfg.OnStart != nil {
		cfg.OnStart(c)
	}
	ch.pool, ch.poolID = r.pool, c
	from := 0
	if r.froms != nil {
		from = r.froms[c]
	}
	switch {
	case from > 0:
		// Resumed: the chain's warm-up state is the checkpoint's.
		if from >= cfg.Warmup {
			o.tSample = time.Now()
		}
		if enough, cut := r.resumeEnds(c, o); enough || cut {
			o.interrupted = cut
			r.after(c, from, ch, o, enough)
			return
		}
	case cfg.Warmup == 0:
		ch.EndWarmup()
		o.tSample = time.Now()
	default:
		ch.BeginWarmup(cfg.Warmup)
	}
	total := cfg.Warmup + cfg.Draws*cfg.Thin
	for it := from + 1; it <= total; it++ {
		select {
		case <-r.done:
			o.interrupted = true
			return
		default:
		}
		ch.Step()
		if ch.Stopped() {
			o.interrupted = true
			return
		}
		if it == cfg.Warmup {
			ch.EndWarmup()
			o.tSample = time.Now()
		}
		if it > cfg.Warmup && (it-cfg.Warmup)%cfg.Thin == 0 {
			enough, cut := r.keep(c, ch, o)
			if cut {
				o.interrupted = true
				return
			}
			if enough {
				r.record(c, it, total, ch, o)
				r.after(c, it, ch, o, true)
				return
			}
		}
		r.record(c, it, total, ch, o)
		r.after(c, it, ch, o, it == total)
	}
}

// after hands chain c's state after iteration it to the checkpoints, if
// any; final when the chain ends there.
func (r *runner) after(c, it int, ch *Chain, o *chainOut, final bool) {
	if r.ck != nil {
		r.ck.after(r, c, it, ch, o, final)
	}
}

// resumeEnds reports whether a resumed chain c ends at once: the
// checkpoint's stop rule said enough, or, extending a completed run, the
// rule says so at the checkpoint the shorter run had no reason to make
// (its last draw); cut if the run was cancelled meanwhile.
func (r *runner) resumeEnds(c int, o *chainOut) (enough, cut bool) {
	cp := r.cfg.Resume
	switch {
	case cp.Stopped:
		return true, false
	case r.stops == nil || o.n == 0 || o.n%r.cfg.StopEvery != 0 || o.n >= r.cfg.Draws || cp.file.RunDraws == r.cfg.Draws:
		return false, false
	}
	enough, ok := r.stops.check(o.n, c, o.draws[:o.n])
	return enough, !ok
}

// keep keeps chain c's current point as its next draw and, at a
// checkpoint of the stop rule, checks it: enough if the rule says so, cut
// if the run was cancelled meanwhile.
func (r *runner) keep(c int, ch *Chain, o *chainOut) (enough, cut bool) {
	cfg := r.cfg
	if cfg.Transform != nil {
		cfg.Transform.ToTarget(ch.Position(), o.draws[o.n])
	} else {
		copy(o.draws[o.n], ch.Position())
	}
	if o.times != nil {
		o.times[o.n] = time.Since(r.start)
	}
	o.rec.keep(ch, o.n)
	o.n++
	if r.stops == nil || o.n%cfg.StopEvery != 0 || o.n >= cfg.Draws {
		return false, false
	}
	enough, ok := r.stops.check(o.n, c, o.draws[:o.n])
	return enough, !ok
}

// record reports chain c's iteration it to the recorder, if any.
func (r *runner) record(c, it, total int, ch *Chain, o *chainOut) {
	if r.rec == nil {
		return
	}
	o.rep = Report{Chain: c, Iteration: it, Total: total, Warmup: it <= r.cfg.Warmup, Draws: o.n, Stats: &ch.stats}
	if ch.lad != nil {
		o.rep.LadderRounds = ch.lad.round
	}
	r.rec.Record(&o.rep)
}

// collect puts chain c's results in the Result: its draws, counters,
// tunings, ladder and, unless it was cut short, its share of the
// evidence.
func (r *runner) collect(c int, ch *Chain, o *chainOut) {
	res := r.res
	if r.evs != nil && !o.interrupted {
		var err error
		r.evs[c], err = ch.chainEvidence(evidenceRand(r.cfg.Seed, r.first+c), *r.cfg.Evidence)
		switch {
		case errors.Is(err, errEvidenceCut):
			o.interrupted, r.interrupted[c] = true, true // every draw made; no evidence
		case err != nil:
			r.errs[c] = fmt.Errorf("%w (chain %d)", err, c)
		}
	}
	res.Draws[c] = o.draws[:o.n]
	o.rec.store(res, c, o.n)
	if o.times != nil {
		res.Times[c] = o.times[:o.n]
	}
	res.ChainStats[c] = ch.stats.Clone()
	res.Tunings[c] = ch.Tunings()
	r.ladders[c] = ch.lad
	if !o.tSample.IsZero() {
		res.SamplingTimes[c] = time.Since(o.tSample)
	}
	if c == 0 {
		res.Betas = append([]float64(nil), ch.betas...)
		res.SubsetSizes = append([]int(nil), ch.sizes...)
	}
}

// finish merges the chains' results once all have returned.
func (r *runner) finish(ctx context.Context) (*Result, error) {
	res := r.res
	for _, e := range r.errs {
		if e != nil {
			return nil, e
		}
	}
	if slices.Contains(r.cpuOK, false) {
		res.ChainCPU = nil
	}
	if res.Energy[0] == nil {
		res.Energy = nil
	}
	for c := range res.ChainStats {
		if len(res.ChainStats[c].Levels) != len(res.ChainStats[0].Levels) {
			// Only if a chain could not move onto the pooled ladder.
			return nil, fmt.Errorf("tempering: chains 0 and %d ended warm-up on different ladders", c)
		}
	}
	for c := range res.ChainStats {
		res.Stats.Merge(&res.ChainStats[c])
		res.Interrupted = res.Interrupted || r.interrupted[c]
	}
	if r.stops != nil && !res.Interrupted {
		res.StoppedAt = r.stops.stoppedAt()
	}
	if r.stops != nil && r.cfg.Resume != nil && r.cfg.Resume.Stopped && !res.Interrupted {
		res.StoppedAt = r.cfg.Resume.file.N
	}
	if r.ck != nil {
		res.CheckpointErr = r.ck.err
	}
	res.Status = runStatus(ctx, res)
	res.Ladder = ladderInfo(r.cfg, res, r.ladders[0])
	if r.evs != nil && !res.Interrupted {
		var err error
		if res.Evidence, err = CombineEvidence(r.evs); err != nil {
			return nil, err
		}
	}
	return res, nil
}
