package tempering

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Checkpointing configures the checkpoints of a run (Control.Checkpoints):
// the whole state of every chain after an iteration it has completed,
// from which Control.Resume continues to exactly the draws the
// uninterrupted run makes (same seed, backend and thread count). Each
// chain encodes its state as it passes the end of an iteration: no chain
// waits for another, and no draw changes. The chains of a checkpoint on
// request (Every, Request, CancelGrace) may be a few iterations apart,
// but never on either side of an iteration where they meet (a round of
// the adaptive ladder, a check of the stop rule); those at the end of
// warm-up, at Iterations and at the end hold every chain after the same
// iteration.
type Checkpointing struct {
	// Every is the wall-clock time between checkpoints; zero means none
	// by time. The first is taken Every after Run starts.
	Every time.Duration
	// EndOfWarmup takes a checkpoint after the last warm-up iteration.
	EndOfWarmup bool
	// AtEnd takes a checkpoint after the last iteration, when every draw
	// has been made or the stop rule said enough: the checkpoint that
	// Resume extends to more draws (Checkpoint.Extend).
	AtEnd bool
	// Iterations lists iterations (warm-up included) after which to
	// take checkpoints besides.
	Iterations []int
	// Request takes a checkpoint, each chain after its next iteration,
	// each time it delivers a value.
	Request <-chan struct{}
	// CancelGrace, if positive, takes a checkpoint when the run's context
	// is cancelled: each chain goes on to the end of its iteration, and
	// the chains stop once the checkpoint is saved or CancelGrace after
	// the cancellation, whichever comes first. Zero stops them at once,
	// as without checkpoints.
	CancelGrace time.Duration
	// Save receives each checkpoint, in the goroutine of the chain that
	// completed it, one call at a time, in the order of their iterations.
	// Its error stops the checkpoints; Result.CheckpointErr holds it.
	Save func(cp *Checkpoint) error
	// Meta is kept in each checkpoint (Checkpoint.Meta): the caller's
	// description of the model and data, which Run does not read.
	Meta []byte
}

// CheckpointVersion is the version of the checkpoint format that
// MarshalBinary writes and ReadCheckpoint reads.
const CheckpointVersion = 1

// checkpointMagic begins every checkpoint file.
const checkpointMagic = "subtemper checkpoint\n"

// Checkpoint is the state of a run after Iteration iterations of every
// chain. Write it with MarshalBinary, read it with ReadCheckpoint, and
// continue the run with Control.Resume.
type Checkpoint struct {
	// Iteration is the least number of iterations a chain had done
	// (warm-up included); Draws the least number of draws a chain had
	// kept; RunDraws the run's Settings.Draws.
	Iteration, Draws, RunDraws int
	// Final reports a checkpoint of a run that ended (Checkpointing.AtEnd):
	// every draw made, or Stopped by the stop rule.
	Final, Stopped bool
	// Meta is Checkpointing.Meta.
	Meta []byte

	file ckptFile
}

// stateLayout is what a checkpoint's layout hash covers: the Chain and
// the paths whose state it holds behind its path interface (layoutHash
// records an interface by its name only).
type stateLayout struct {
	Chain  Chain
	Power  powerPath
	Subset subsetPath
}

// ckptFile is what a checkpoint file holds after its magic and version.
type ckptFile struct {
	Layout   []byte // layoutHash of stateLayout
	Settings []byte // settingsHash of the run's resolved settings
	RunDraws int    // Settings.Draws of the run
	Iter     int
	N        int // draws kept per chain
	Final    bool
	Stopped  bool
	Meta     []byte
	From, To int // the run's Shard
	Total    int // the run's Chains
	Chains   []chainCkpt
}

// chainCkpt is one chain's state in a checkpoint.
type chainCkpt struct {
	Iter    int    // the iterations it had done
	N       int    // the draws it had kept
	Rand    []byte // its PCG, MarshalBinary
	Betas   []float64
	Sizes   []int
	State   []byte // the Chain, stateEnc
	Draws   []float64
	Energy  []float64 // nil without energies
	Div     []int
	LastDiv int64
}

// MarshalBinary encodes the checkpoint: magic, version, contents and
// their SHA-256.
func (cp *Checkpoint) MarshalBinary() ([]byte, error) {
	cp.file.Meta = cp.Meta
	e := &stateEnc{buf: []byte(checkpointMagic)}
	e.buf = append(e.buf, byte(CheckpointVersion))
	if err := e.value(reflect.ValueOf(&cp.file).Elem()); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(e.buf)
	return append(e.buf, sum[:]...), nil
}

// ReadCheckpoint reads a checkpoint written by MarshalBinary, checking its
// magic, version, checksum and that it was written by this sampler's state
// layout. It refuses a truncated or corrupt file.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1<<34))
	if err != nil {
		return nil, fmt.Errorf("tempering: reading checkpoint: %w", err)
	}
	return parseCheckpoint(b)
}

func parseCheckpoint(b []byte) (*Checkpoint, error) {
	if !bytes.HasPrefix(b, []byte(checkpointMagic)) {
		return nil, errors.New("tempering: not a checkpoint (no checkpoint header)")
	}
	b = b[len(checkpointMagic):]
	if len(b) < 1 {
		return nil, errors.New("tempering: checkpoint truncated")
	}
	if v := int(b[0]); v != CheckpointVersion {
		return nil, fmt.Errorf("tempering: checkpoint of format version %d, this build reads version %d", v, CheckpointVersion)
	}
	if len(b) < 1+sha256.Size {
		return nil, errors.New("tempering: checkpoint truncated")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	want := sha256.Sum256(append([]byte(checkpointMagic), body...))
	if !bytes.Equal(sum, want[:]) {
		return nil, errors.New("tempering: checkpoint truncated or corrupt (checksum mismatch)")
	}
	cp := &Checkpoint{}
	d := &stateDec{buf: body[1:]}
	if err := d.value(reflect.ValueOf(&cp.file).Elem()); err != nil || len(d.buf) != 0 {
		return nil, errors.New("tempering: checkpoint corrupt (malformed contents)")
	}
	f := &cp.file
	if lh := layoutHash(reflect.TypeFor[stateLayout]()); !bytes.Equal(f.Layout, lh[:]) {
		return nil, errors.New("tempering: checkpoint written by a build with another sampler state layout")
	}
	if f.Iter < 0 || f.N < 0 || f.N > f.RunDraws || len(f.Chains) == 0 || f.From < 0 || len(f.Chains) != f.To-f.From || f.To > f.Total {
		return nil, errors.New("tempering: checkpoint corrupt (counts out of range)")
	}
	cp.Iteration, cp.Draws, cp.RunDraws, cp.Final, cp.Stopped, cp.Meta = f.Iter, f.N, f.RunDraws, f.Final, f.Stopped, f.Meta
	return cp, nil
}

// settingsHash fingerprints the resolved settings that determine a run's
// draws, Draws excepted (Resume may extend a finished run): the Sampler,
// and Control's chains, warm-up, thinning, seed, starting points, stop
// rule, tunings and evidence.
func settingsHash(cfg *Settings) []byte {
	e := &stateEnc{}
	c := cfg.Control
	parts := []any{cfg.Sampler, cfg.adaptLadder, cfg.fixedM, c.Chains, c.Warmup, c.Thin, c.Seed, c.Init, c.StopEvery, c.InitTuning, c.Evidence}
	for _, p := range parts {
		describe(e, reflect.ValueOf(p))
	}
	e.buf = fmt.Appendf(e.buf, "stop:%T;", c.Stop)
	sum := sha256.Sum256(e.buf)
	return sum[:]
}

// describe appends a description of v to e: its encoding where it has
// one, else its type and printed value.
func describe(e *stateEnc, v reflect.Value) {
	if !v.IsValid() {
		e.buf = append(e.buf, "nil;"...)
		return
	}
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	n := len(e.buf)
	if err := e.valueByType(cp); err != nil {
		e.buf = fmt.Appendf(e.buf[:n], "%T:%v;", v.Interface(), v.Interface())
	}
}

// valueByType encodes v as value does, with the values that interfaces
// hold, pointer or not, after their type's name; functions and channels
// are left out.
func (e *stateEnc) valueByType(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Func, reflect.Chan:
		return nil
	case reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		p := v.Elem()
		e.buf = fmt.Appendf(e.buf, "%s;", p.Type())
		cp := reflect.New(p.Type()).Elem()
		cp.Set(p)
		return e.valueByType(cp)
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		return e.valueByType(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if err := e.valueByType(field(v.Field(i))); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		e.buf = fmt.Appendf(e.buf, "[%d]", v.Len())
		for i := range v.Len() {
			if err := e.valueByType(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return e.value(v)
}

// checkResume checks that cp can continue the run of cfg: same layout
// (ReadCheckpoint), settings and chains, and the same number of draws
// unless cp is the end of a completed run that cfg extends.
func checkResume(cp *Checkpoint, cfg *Settings) error {
	f := &cp.file
	if !bytes.Equal(f.Settings, settingsHash(cfg)) {
		return errors.New("tempering: the checkpoint was taken by a run with other settings")
	}
	if f.From != cfg.Shard.From || f.To != cfg.Shard.To || len(f.Chains) != f.To-f.From {
		return fmt.Errorf("tempering: the checkpoint holds chains %d to %d, the run has chains %d to %d", f.From, f.To-1, cfg.Shard.From, cfg.Shard.To-1)
	}
	switch {
	case f.RunDraws == cfg.Draws:
	case f.RunDraws < cfg.Draws && f.Final && !f.Stopped:
	case f.RunDraws < cfg.Draws:
		return fmt.Errorf("tempering: only the end of a completed run extends to more draws (the checkpoint is of a run of %d draws, at iteration %d)", f.RunDraws, f.Iter)
	default:
		return fmt.Errorf("tempering: the checkpoint is of a run of %d draws per chain, more than the %d asked for", f.RunDraws, cfg.Draws)
	}
	if f.Iter > cfg.Warmup+cfg.Draws*cfg.Thin {
		return errors.New("tempering: checkpoint corrupt (iteration beyond the run)")
	}
	return nil
}

// snapshot encodes chain c's state and draws so far.
func (r *runner) snapshot(c int, ch *Chain, o *chainOut) (chainCkpt, error) {
	rs, err := r.srcs[c].MarshalBinary()
	if err != nil {
		return chainCkpt{}, err
	}
	e := &stateEnc{}
	if err := e.value(reflect.ValueOf(ch).Elem()); err != nil {
		return chainCkpt{}, fmt.Errorf("tempering: checkpoint of chain %d: %w", c, err)
	}
	s := chainCkpt{N: o.n, Rand: rs, Betas: ch.betas, Sizes: ch.sizes, State: e.buf, LastDiv: o.rec.lastDiv}
	s.Draws = make([]float64, 0, o.n*r.dim)
	for _, d := range o.draws[:o.n] {
		s.Draws = append(s.Draws, d...)
	}
	if o.rec.energy != nil {
		s.Energy = slices.Clone(o.rec.energy[:o.n])
	}
	s.Div = slices.Clone(o.rec.div[:o.n])
	return s, nil
}

// restore puts chain c and its draws in the state the checkpoint holds.
func (r *runner) restore(c int, ch *Chain, o *chainOut) error {
	s := &r.cfg.Resume.file.Chains[c]
	n := s.N
	bad := func(what string) error {
		return fmt.Errorf("tempering: checkpoint corrupt (chain %d: %s)", c, what)
	}
	if err := r.srcs[c].UnmarshalBinary(s.Rand); err != nil {
		return bad("random stream")
	}
	if s.Iter < r.cfg.Resume.file.Iter || s.Iter > r.cfg.Warmup+r.cfg.Draws*r.cfg.Thin || n < 0 || n > r.cfg.Draws || len(s.Draws) != n*r.dim || len(s.Div) != n || (s.Energy != nil) != (o.rec.energy != nil) || (s.Energy != nil && len(s.Energy) != n) {
		return bad("draws")
	}
	if err := ch.restoreState(s.Betas, s.Sizes, s.State); err != nil {
		return bad(err.Error())
	}
	if ch.lad != nil {
		ch.lad.pool, ch.lad.id = r.pool, c
	}
	for i := range n {
		copy(o.draws[i], s.Draws[i*r.dim:(i+1)*r.dim])
	}
	if s.Energy != nil {
		copy(o.rec.energy, s.Energy)
	}
	copy(o.rec.div, s.Div)
	o.rec.lastDiv, o.n = s.LastDiv, n
	return nil
}

// restoreState rebuilds the chain on the ladder betas, sizes and
// overlays the encoded state.
func (c *Chain) restoreState(betas []float64, sizes []int, state []byte) error {
	if len(betas) < 1 || len(sizes) != len(betas) {
		return errors.New("ladder")
	}
	if !slices.Equal(betas, c.betas) || !slices.Equal(sizes, c.sizes) {
		if !c.path.fits(sizes) {
			return errors.New("ladder")
		}
		lv, err := c.newLevels(betas, sizes)
		if err != nil {
			return err
		}
		c.setLevels(lv)
		if c.scheme.replicas() {
			c.states = make([]*State, len(betas))
			for m := range c.states {
				c.states[m] = NewState(c.target.Dim())
			}
			c.phase = make([]uint8, len(betas))
		}
	}
	d := &stateDec{buf: state}
	if err := d.value(reflect.ValueOf(c).Elem()); err != nil {
		return err
	}
	if len(d.buf) != 0 || !c.consistent() {
		return errCodec
	}
	if a := c.lad; a != nil {
		M := len(a.vec) / 3
		a.sum, a.sq, a.n = a.vec[:M:M], a.vec[M:2*M:2*M], a.vec[2*M:]
	}
	return c.path.resumed()
}

// consistent checks the shapes of a decoded chain against its ladder.
func (c *Chain) consistent() bool {
	L, dim := len(c.betas), c.target.Dim()
	if len(c.kern) != L || len(c.dens) != L || len(c.stats.Levels) != L || (c.lad != nil && len(c.lad.vec) != 3*(L-1)) {
		return false
	}
	for _, s := range c.states {
		if s == nil || len(s.U) != dim || len(s.GradLik) != dim || len(s.GradPrior) != dim {
			return false
		}
	}
	return true
}

// ckptCoord plans the checkpoints of a run and gathers the chains'
// states into consistent cuts. A cut at a planned iteration (the end of
// warm-up, Checkpointing.Iterations, the end) takes every chain after
// that iteration. A cut on request (Every, Request, a cancellation) takes
// each chain after the next iteration it finishes, wherever it is: the
// chains drift apart between the points where they meet (the ladder's
// rounds, the stop rule's checks), and waiting for the slowest to reach
// the fastest would lose the drift on a kill. Such a cut is kept when no
// meeting point lies between its chains' iterations (meets), and taken
// again at once otherwise.
type ckptCoord struct {
	set   *Checkpointing
	cfg   *Settings
	total int
	meets func(lo, hi int) bool

	mu      sync.Mutex
	iters   []int                // each chain's iterations done
	planned map[int]bool         // the planned iterations
	pending map[int]*pendingCkpt // the cuts at planned iterations under way
	loose   *pendingCkpt         // the cut on request under way (nil: none)
	finals  []*chainCkpt         // the states of the chains that have ended
	err     error

	saveMu sync.Mutex
	saved  int // least iteration of the last checkpoint saved
	nsaved int // checkpoints saved

	// A cancellation (with CancelGrace): ctxDone is the context's done,
	// halt the chains' done, closed by stopChains once the checkpoint
	// the cancellation asks for is saved. The first to see ctxDone
	// closed (a chain after an iteration, or onCancel) asks for it, so
	// the chains do not run on while onCancel waits to be scheduled.
	ctxDone    <-chan struct{}
	halt       chan struct{}
	haltOnce   sync.Once
	cancelled  atomic.Bool
	cancelBase int // nsaved when the cancellation asked (under saveMu)
}

// pendingCkpt is a cut whose chains' states are coming in.
type pendingCkpt struct {
	chains []chainCkpt
	have   []bool
	got    int
	final  int // chains that ended at their state
}

func newPending(n int) *pendingCkpt {
	return &pendingCkpt{chains: make([]chainCkpt, n), have: make([]bool, n)}
}

// add adds chain c's state and reports whether the cut is complete.
func (p *pendingCkpt) add(c int, s chainCkpt, final bool) bool {
	p.chains[c], p.have[c] = s, true
	p.got++
	if final {
		p.final++
	}
	return p.got == len(p.chains)
}

// span returns the least and the greatest iteration of the cut's chains.
func (p *pendingCkpt) span() (lo, hi int) {
	lo, hi = p.chains[0].Iter, p.chains[0].Iter
	for _, s := range p.chains {
		lo, hi = min(lo, s.Iter), max(hi, s.Iter)
	}
	return lo, hi
}

func newCkptCoord(r *runner, set *Checkpointing, cfg *Settings) *ckptCoord {
	n := cfg.Shard.To - cfg.Shard.From
	k := &ckptCoord{set: set, cfg: cfg, total: cfg.Warmup + cfg.Draws*cfg.Thin, meets: r.meets, iters: slices.Clone(r.froms),
		planned: map[int]bool{}, pending: map[int]*pendingCkpt{}, finals: make([]*chainCkpt, n)}
	if len(k.iters) != n {
		k.iters = make([]int, n)
	}
	if set.EndOfWarmup && cfg.Warmup > slices.Min(k.iters) {
		k.planned[cfg.Warmup] = true
	}
	for _, it := range set.Iterations {
		k.planned[it] = true
	}
	return k
}

// meets reports whether the chains meet at an iteration in (lo, hi]: a
// round of the pooled ladder adaptation or a check of the stop rule.
func (r *runner) meets(lo, hi int) bool {
	cfg := r.cfg
	if r.pool != nil {
		for _, e := range roundEnds(cfg.Warmup) {
			if lo < e && e <= hi {
				return true
			}
		}
	}
	if r.stops != nil {
		for it := max(lo+1, cfg.Warmup+1); it <= hi; it++ {
			if n := (it - cfg.Warmup) / cfg.Thin; (it-cfg.Warmup)%cfg.Thin == 0 && n%cfg.StopEvery == 0 && n < cfg.Draws {
				return true
			}
		}
	}
	return false
}

// request starts a cut on request unless one is under way; false if
// there will be none (the run is ending, or the checkpoints stopped).
func (k *ckptCoord) request() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requestLocked()
}

// requestLocked is request with k.mu held.
func (k *ckptCoord) requestLocked() bool {
	if k.err != nil || slices.Min(k.iters) >= k.total {
		return false
	}
	if k.loose == nil {
		p, ended := k.newLoose()
		if ended {
			return false
		}
		k.loose = p
	}
	return true
}

// newLoose returns a cut on request holding the chains that have ended,
// each taken at its end; ended if every chain has. k.mu is held.
func (k *ckptCoord) newLoose() (p *pendingCkpt, ended bool) {
	p = newPending(len(k.iters))
	for c, s := range k.finals {
		if s != nil && p.add(c, *s, true) {
			return p, true
		}
	}
	return p, false
}

// onCancel stops the chains once ctx is cancelled and the checkpoint it
// asks for is saved, or after CancelGrace; it returns once stop is
// closed.
func (k *ckptCoord) onCancel(stop <-chan struct{}) {
	select {
	case <-stop:
		k.stopChains()
		return
	case <-k.ctxDone:
	}
	k.cancel()
	t := time.NewTimer(k.set.CancelGrace)
	defer t.Stop()
	select {
	case <-stop:
	case <-t.C:
	case <-k.halt:
	}
	k.stopChains()
}

// cancel asks, once, for the checkpoint a cancellation takes, and stops
// the chains at once if there will be none.
func (k *ckptCoord) cancel() {
	if k.cancelled.Load() {
		return
	}
	k.saveMu.Lock()
	k.mu.Lock()
	first := !k.cancelled.Swap(true)
	will := true
	if first {
		k.cancelBase = k.nsaved
		will = k.requestLocked()
	}
	k.mu.Unlock()
	k.saveMu.Unlock()
	if !will {
		k.stopChains()
	}
}

// stopChains closes halt, which stops the chains.
func (k *ckptCoord) stopChains() { k.haltOnce.Do(func() { close(k.halt) }) }

// watch starts a cut every set.Every and at each request until stop is
// closed.
func (k *ckptCoord) watch(stop <-chan struct{}) {
	var tick <-chan time.Time
	if k.set.Every > 0 {
		t := time.NewTicker(k.set.Every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-stop:
			return
		case <-tick:
		case <-k.set.Request:
		}
		k.request()
	}
}

// after is called by chain c when it has finished iteration it, final
// when the chain ends there with every draw made or the rule's enough.
func (k *ckptCoord) after(r *runner, c, it int, ch *Chain, o *chainOut, final bool) {
	if k.ctxDone != nil && !k.cancelled.Load() {
		select {
		case <-k.ctxDone:
			k.cancel()
		default:
		}
	}
	k.mu.Lock()
	k.iters[c] = it
	planned := k.err == nil && (k.planned[it] || (final && k.set.AtEnd))
	loose := k.err == nil && k.loose != nil && !k.loose.have[c]
	k.mu.Unlock()
	if !planned && !loose && !final {
		return
	}
	s, err := r.snapshot(c, ch, o)
	s.Iter = it
	k.mu.Lock()
	if err != nil {
		k.err = err
		k.mu.Unlock()
		return
	}
	if final {
		k.finals[c] = &s
	}
	var done []*pendingCkpt
	if planned {
		p := k.pending[it]
		if p == nil {
			p = newPending(len(k.iters))
			k.pending[it] = p
		}
		if p.add(c, s, final) {
			delete(k.pending, it)
			done = append(done, p)
		}
	}
	// A chain that ends here joins a cut asked for since the check above:
	// it will not come again.
	if p := k.loose; (loose || final) && p != nil && !p.have[c] && p.add(c, s, final) {
		k.loose = nil
		if lo, hi := p.span(); k.meets(lo, hi) {
			// The chains met in between: again, the ended chains at
			// their ends (not all have ended, or the cut would not
			// straddle a meeting).
			k.loose, _ = k.newLoose()
		} else {
			done = append(done, p)
		}
	}
	k.mu.Unlock()
	for _, p := range done {
		k.save(p)
	}
}

// save hands a complete cut to set.Save, unless a later one was saved.
func (k *ckptCoord) save(p *pendingCkpt) {
	k.saveMu.Lock()
	defer k.saveMu.Unlock()
	lo, _ := p.span()
	if lo < k.saved {
		return
	}
	n := p.chains[0].N
	for _, s := range p.chains {
		n = min(n, s.N)
	}
	final := p.final == len(p.chains)
	stopped := final && n < k.cfg.Draws
	lh := layoutHash(reflect.TypeFor[stateLayout]())
	cp := &Checkpoint{Iteration: lo, Draws: n, RunDraws: k.cfg.Draws, Final: final, Stopped: stopped, Meta: k.set.Meta}
	cp.file = ckptFile{Layout: lh[:], Settings: settingsHash(k.cfg), RunDraws: k.cfg.Draws, Iter: lo, N: n, Final: final, Stopped: stopped,
		Meta: k.set.Meta, From: k.cfg.Shard.From, To: k.cfg.Shard.To, Total: k.cfg.Chains, Chains: p.chains}
	if err := k.set.Save(cp); err != nil {
		k.mu.Lock()
		k.err = fmt.Errorf("tempering: saving the checkpoint at iteration %d: %w", lo, err)
		k.mu.Unlock()
		return
	}
	k.saved = lo
	k.nsaved++
	if k.cancelled.Load() && k.nsaved > k.cancelBase {
		k.stopChains()
	}
}

// chainSource returns chain c's random source for seed: Control.Seed's
// rand.NewPCG(seed, c).
func chainSource(seed uint64, c int) *rand.PCG { return rand.NewPCG(seed, uint64(c)) }

// MergeCheckpoints joins the checkpoints of the shards of one run
// (Control.Shard) into the checkpoint of the whole run (the shards'
// chains never meet, so any of their checkpoints go together): resumed without a Shard, it continues (or, from the
// shards' ends, completes) the run as if it had been made in one
// process. Meta is the first checkpoint's. The shards must cover every
// chain once.
func MergeCheckpoints(cps ...*Checkpoint) (*Checkpoint, error) {
	if len(cps) == 0 {
		return nil, errors.New("tempering: no checkpoints to merge")
	}
	cps = slices.Clone(cps)
	slices.SortFunc(cps, func(a, b *Checkpoint) int { return a.file.From - b.file.From })
	m := &Checkpoint{Iteration: cps[0].Iteration, Draws: cps[0].Draws, RunDraws: cps[0].RunDraws, Final: true, Stopped: cps[0].Stopped, Meta: cps[0].Meta}
	m.file = cps[0].file
	m.file.Chains = nil
	next := 0
	for _, cp := range cps {
		f := &cp.file
		switch {
		case f.From != next:
			return nil, fmt.Errorf("tempering: the shards do not hold chain %d once: one holds chains %d to %d", next, f.From, f.To-1)
		case !bytes.Equal(f.Settings, m.file.Settings) || f.RunDraws != m.file.RunDraws:
			return nil, fmt.Errorf("tempering: the shard of chains %d to %d was run with other settings", f.From, f.To-1)
		}
		m.file.Chains = append(m.file.Chains, f.Chains...)
		m.file.Iter, m.file.N = min(m.file.Iter, f.Iter), min(m.file.N, f.N)
		m.Stopped = m.Stopped && cp.Stopped
		m.Final = m.Final && cp.Final
		next = f.To
	}
	if next != m.file.Total {
		return nil, fmt.Errorf("tempering: the shards do not hold chain %d", next)
	}
	m.file.From, m.file.To, m.file.Final, m.file.Stopped = 0, next, m.Final, m.Stopped
	m.Iteration, m.Draws = m.file.Iter, m.file.N
	return m, nil
}

// Chains returns the shard of the run that took the checkpoint: its chains
// From ≤ c < To (every chain: 0 and Settings.Chains).
func (cp *Checkpoint) Chains() Shard { return Shard{cp.file.From, cp.file.To} }
