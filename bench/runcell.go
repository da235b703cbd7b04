package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// RhatThreshold is the convergence criterion: median R-hat over parameters
// below it.
const RhatThreshold = 1.1

// RunOptions configures RunCell.
type RunOptions struct {
	Budget  Budget
	Backend linalg.Backend
	// Seed is the run's seed; each cell derives its own from it and its key.
	Seed uint64
	// Block, if non-nil, is called in ESS cells after each block of draws
	// of a sampler (driver): the sampler's trace so far, and why it
	// stopped ("converged", "max_draws", "max_seconds"; "" while it goes
	// on). A full-budget cell can run for hours; this is how to follow it.
	Block func(driver string, tp TracePoint, stop string)
}

// TracePoint is the median R-hat of a sampler after a block of draws.
type TracePoint struct {
	Draws   int     `json:"draws"`   // per chain
	Seconds float64 `json:"seconds"` // mean compute seconds per chain
	Rhat    float64 `json:"rhat"`    // median over parameters of the paper's R-hat
}

// SamplerResult is one sampler's outcome in an ESS cell.
type SamplerResult struct {
	Driver string `json:"driver"`
	// Draws per chain, and the number kept (the second half) for ESS.
	Draws int `json:"draws"`
	Kept  int `json:"kept"`
	// Seconds is the compute time of all chains (all draws); KeptSeconds
	// that of the kept draws.
	Seconds     float64 `json:"seconds"`
	KeptSeconds float64 `json:"kept_seconds"`
	// Rhat is the median over parameters of the paper's R-hat on the kept
	// draws; RhatRank that of the rank-normalized split R-hat.
	Rhat     float64 `json:"rhat"`
	RhatRank float64 `json:"rhat_rank"`
	// ESS is the median over parameters of the paper's ESS on the kept
	// draws; ESSBulk the median bulk-ESS.
	ESS     float64 `json:"ess"`
	ESSBulk float64 `json:"ess_bulk"`
	// ESSPerSec = ESS / KeptSeconds.
	ESSPerSec float64 `json:"ess_per_sec"`
	// Converged: Rhat < 1.1.
	Converged bool         `json:"converged"`
	Trace     []TracePoint `json:"trace"`
	// AcceptRate is the inner kernel's acceptance at level 0; SwapRate the
	// mean swap acceptance (PT, SPT); TTRate the tempered-transition
	// acceptance (TT, STT).
	AcceptRate float64 `json:"accept_rate"`
	SwapRate   float64 `json:"swap_rate"`
	TTRate     float64 `json:"tt_rate"`
	// StopReason is "converged", "max_draws", "max_seconds" or
	// "interrupted".
	StopReason string `json:"stop_reason"`
}

// CellResult is the outcome of one cell, written by a shard as JSON and
// read back by Merge.
type CellResult struct {
	Key     string `json:"key"`
	Cell    Cell   `json:"cell"`
	Seed    uint64 `json:"seed"`
	Budget  string `json:"budget"`
	Backend string `json:"backend"`
	// Host describes where it ran (GOOS/GOARCH, CPUs, BLAS threads).
	Host string `json:"host"`
	// Runtime cells: the timing of each sampler against None, and the
	// measured cost curve.
	Timings []Timing   `json:"timings,omitempty"`
	Cost    *CostCurve `json:"cost,omitempty"`
	// ESS cells: each sampler's runs.
	Samplers    []SamplerResult `json:"samplers,omitempty"`
	Interrupted bool            `json:"interrupted,omitempty"`
}

// ErrInterrupted is returned (wrapped) with a partial CellResult when ctx is
// cancelled during a cell.
var ErrInterrupted = errors.New("bench: interrupted")

// RunCell runs one cell. On cancellation it returns what it has, marked
// Interrupted, with an error wrapping ErrInterrupted.
func RunCell(ctx context.Context, c Cell, opt RunOptions) (*CellResult, error) {
	be := opt.Backend
	if be == nil {
		be = linalg.Default()
	}
	res := &CellResult{
		Key: c.Key(), Cell: c, Seed: Seed(opt.Seed, c.Key()), Budget: opt.Budget.Name, Backend: be.Name(),
		Host: fmt.Sprintf("%s/%s, %s, BLAS threads %d", runtime.GOOS, runtime.GOARCH, plural.Count(runtime.NumCPU(), "CPU", "CPUs"), blasThreads()),
	}
	t, err := NewTarget(be, c.Model, c.N, c.Dim, dataSeed(opt.Seed, c.Model, c.Dim))
	if err != nil {
		return nil, err
	}
	kernel, err := Kernel(c.Kernel, c.Model)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case ExpRuntime:
		err = runRuntime(ctx, t, kernel, res, opt.Budget)
	case ExpESS:
		err = runESS(ctx, t, kernel, res, opt)
	default:
		return nil, fmt.Errorf("bench: cell %s: unknown kind %q", c.Key(), c.Kind)
	}
	if err != nil && errors.Is(err, ErrInterrupted) {
		res.Interrupted = true
		return res, err
	}
	if err != nil {
		return nil, wrapf(err, "cell %s", c.Key())
	}
	return res, nil
}

// wrapf returns err with context: "bench: ", the formatted context, ": "
// and err's message without a leading "bench: " (so that errors from this
// package do not read "bench: cell …: bench: …"). The result unwraps to
// err.
func wrapf(err error, format string, a ...any) error {
	return fmt.Errorf("bench: %s: %w", fmt.Sprintf(format, a...), errmsg.Trim(err, "bench: "))
}

// interrupted returns an error wrapping ErrInterrupted that says why: err's
// message, without a leading "bench: " (ErrInterrupted's message has it).
func interrupted(err error) error {
	return fmt.Errorf("%w: %v", ErrInterrupted, errmsg.Trim(err, "bench: "))
}

func runRuntime(ctx context.Context, t tempering.Target, kernel tempering.Kernel, res *CellResult, b Budget) error {
	cost, err := MeasureCost(ctx, t, CalibrationSizes(t.NumObs(), PaperBetaMin), MeasureOptions{Seed: res.Seed, MinTime: seconds(b.CalibrationSeconds)})
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(err)
		}
		return err
	}
	res.Cost = cost
	pl := cost.PowerLaws()
	for _, d := range []tempering.Driver{tempering.None, tempering.PT, tempering.TT, tempering.SPT, tempering.STT} {
		p, err := NewPair(t, d, tempering.Sweep, kernel, res.Seed)
		if err != nil {
			return err
		}
		p.Warmup(b.RuntimeWarmup, cost)
		for r := 0; r < b.RuntimeMinRounds || p.Elapsed() < seconds(b.RuntimeSeconds); r++ {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			p.Round()
		}
		res.Timings = append(res.Timings, p.Timing(cost, pl))
	}
	return nil
}

func runESS(ctx context.Context, t tempering.Target, kernel tempering.Kernel, res *CellResult, opt RunOptions) error {
	for _, d := range Drivers {
		sr, err := runSampler(ctx, t, kernel, d, res.Seed, opt)
		if sr != nil {
			res.Samplers = append(res.Samplers, *sr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runSampler runs three chains of driver d from the target's three starting
// points in blocks, one chain after another (each timed alone), until the
// median R-hat of the second half of the draws is below RhatThreshold (with
// at least MinDraws draws), or the budget ends.
//
// It drives tempering.Chain.Step itself rather than tempering.Run, which
// cannot give what the paper's reproduction needs: the chains run one
// after another in one goroutine, so that each is timed alone on a shared
// machine (Run's run in parallel); chain 0's block ends on its compute
// time, and the others then run as many draws, the same chains going on
// block after block (Run starts afresh); and each chain keeps its random
// stream of the paper's reproduction, PCG(seed, paperIndex(d)<<8 | c)
// (Run's chain c draws from PCG(Seed, c)).
func runSampler(ctx context.Context, t tempering.Target, kernel tempering.Kernel, d tempering.Driver, seed uint64, opt RunOptions) (*SamplerResult, error) {
	const C = 3
	b := opt.Budget
	dim := t.Dim()
	chains, err := paperChains(ctx, t, kernel, d, seed, C)
	if err != nil {
		return nil, err
	}
	pd := newPaperDraws(C, dim)
	sr := &SamplerResult{Driver: d.String()}
	n := 0
	for {
		if ctx.Err() != nil {
			sr.StopReason, err = "interrupted", ErrInterrupted
			break
		}
		k, cut := pd.block(chains, b)
		if cut {
			// Interrupted inside the block: keep the draws that every
			// chain has, those of the blocks before it.
			pd.truncate(n)
			sr.StopReason, err = "interrupted", ErrInterrupted
			break
		}
		n += k
		rh := medianOver(dim, func(p int) float64 { return diag.RhatPaper(secondHalf(pd.draws, p)) })
		var mean time.Duration
		for _, e := range pd.elapsed {
			mean += e
		}
		tp := TracePoint{Draws: n, Seconds: mean.Seconds() / C, Rhat: rh}
		sr.Trace = append(sr.Trace, tp)
		slow := false
		for _, e := range pd.elapsed {
			slow = slow || e.Seconds() >= b.MaxSeconds
		}
		switch {
		case rh < RhatThreshold && n >= b.MinDraws:
			sr.StopReason = "converged"
		case n >= b.MaxDraws:
			sr.StopReason = "max_draws"
		case slow:
			sr.StopReason = "max_seconds"
		}
		if opt.Block != nil {
			opt.Block(sr.Driver, tp, sr.StopReason)
		}
		if sr.StopReason != "" {
			break
		}
	}
	if n == 0 {
		return sr, err
	}
	sr.summarise(pd, chains, n)
	return sr, err
}

// paperChains returns C chains of driver d on clones of t, past warm-up,
// from the target's C starting points, chain c with the paper's random
// stream PCG(seed, paperIndex(d)<<8 | c), each stopping when ctx is done.
func paperChains(ctx context.Context, t tempering.Target, kernel tempering.Kernel, d tempering.Driver, seed uint64, C int) ([]*tempering.Chain, error) {
	dim := t.Dim()
	chains := make([]*tempering.Chain, C)
	for c := range C {
		tc, err := t.Clone()
		if err != nil {
			return nil, err
		}
		start := make([]float64, dim)
		if st, ok := tc.(tempering.Starter); ok {
			st.Start(c, C, start)
		}
		ch, err := tempering.NewChain(tc, paperSettings(d, kernel, tempering.Sweep), rand.New(rand.NewPCG(seed, paperIndex(d)<<8|uint64(c))), start)
		if err != nil {
			return nil, fmt.Errorf("%v chain %d: %w", d, c, err)
		}
		ch.EndWarmup()
		ch.StopOn(ctx.Done())
		chains[c] = ch
	}
	return chains, nil
}

// paperDraws holds runSampler's chains' draws and compute times.
type paperDraws struct {
	// draws[c][p][s]: chain c, parameter p, draw s (diag's layout per
	// parameter).
	draws   [][][]float64
	elapsed []time.Duration
	cum     [][]time.Duration // cumulative compute time after each draw
}

func newPaperDraws(C, dim int) *paperDraws {
	pd := &paperDraws{
		draws:   make([][][]float64, C),
		elapsed: make([]time.Duration, C),
		cum:     make([][]time.Duration, C),
	}
	for c := range pd.draws {
		pd.draws[c] = make([][]float64, dim)
	}
	return pd
}

// block runs a block of draws of the chains, one after another: chain 0
// a block of b.Block draws, cut short when it reaches b.MaxSeconds of
// compute time, and the other chains then as many (k). cut is true if a
// chain was stopped inside the block.
func (pd *paperDraws) block(chains []*tempering.Chain, b Budget) (k int, cut bool) {
	elapsed := pd.elapsed
	for c, ch := range chains {
		for i := 0; (c == 0 && i < b.Block && (i == 0 || elapsed[0].Seconds() < b.MaxSeconds)) || (c > 0 && i < k); i++ {
			t0 := time.Now()
			ch.Step()
			if ch.Stopped() {
				return k, true
			}
			elapsed[c] += time.Since(t0)
			for p, v := range ch.Position() {
				pd.draws[c][p] = append(pd.draws[c][p], v)
			}
			pd.cum[c] = append(pd.cum[c], elapsed[c])
			if c == 0 {
				k++
			}
		}
	}
	return k, false
}

// truncate keeps each chain's first n draws and their compute time.
func (pd *paperDraws) truncate(n int) {
	for c := range pd.draws {
		for p := range pd.draws[c] {
			pd.draws[c][p] = pd.draws[c][p][:n]
		}
		pd.cum[c] = pd.cum[c][:n]
		pd.elapsed[c] = 0
		if n > 0 {
			pd.elapsed[c] = pd.cum[c][n-1]
		}
	}
}

// summarise sets sr's totals, convergence and efficiency over the second
// half of the n draws of each chain, and the chains' acceptance rates.
func (sr *SamplerResult) summarise(pd *paperDraws, chains []*tempering.Chain, n int) {
	draws, elapsed, cum := pd.draws, pd.elapsed, pd.cum
	dim := len(draws[0])
	half := n / 2
	sr.Draws, sr.Kept = n, n-half
	for c := range chains {
		sr.Seconds += elapsed[c].Seconds()
		if half > 0 {
			sr.KeptSeconds += (elapsed[c] - cum[c][half-1]).Seconds()
		} else {
			sr.KeptSeconds += elapsed[c].Seconds()
		}
	}
	sr.Rhat = medianOver(dim, func(p int) float64 { return diag.RhatPaper(secondHalf(draws, p)) })
	sr.RhatRank = medianOver(dim, func(p int) float64 { return diag.Rhat(secondHalf(draws, p)) })
	sr.ESS = medianOver(dim, func(p int) float64 { return diag.ESSPaper(secondHalf(draws, p)) })
	sr.ESSBulk = medianOver(dim, func(p int) float64 { return diag.ESSBulk(secondHalf(draws, p)) })
	sr.ESSPerSec = sr.ESS / sr.KeptSeconds
	sr.Converged = sr.Rhat < RhatThreshold
	var st tempering.Stats
	for _, ch := range chains {
		st.Merge(ch.Stats())
	}
	sr.AcceptRate = st.Levels[0].AcceptRate()
	if len(st.SwapProposed) > 0 {
		var a, p int64
		for m := range st.SwapProposed {
			a += st.SwapAccepted[m]
			p += st.SwapProposed[m]
		}
		if p > 0 {
			sr.SwapRate = float64(a) / float64(p)
		}
	}
	sr.TTRate = st.TTRate()
}

// secondHalf returns parameter p's draws of every chain, second half only.
func secondHalf(draws [][][]float64, p int) [][]float64 {
	out := make([][]float64, len(draws))
	for c := range draws {
		x := draws[c][p]
		out[c] = x[len(x)/2:]
	}
	return out
}

// medianOver returns the median over p < dim of f(p), NaNs sorted last
// (the median is NaN only if more than half are NaN).
func medianOver(dim int, f func(p int) float64) float64 {
	v := make([]float64, 0, dim)
	nan := 0
	for p := range dim {
		x := f(p)
		if math.IsNaN(x) {
			nan++
			continue
		}
		v = append(v, x)
	}
	if nan*2 > dim || len(v) == 0 {
		return math.NaN()
	}
	// NaNs count as +∞ for the median.
	for range nan {
		v = append(v, math.Inf(1))
	}
	return diag.Median(v)
}
