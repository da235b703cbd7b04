package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/subtemper/subtemper/tempering"
)

// Pair times one chain of a tempering driver side by side with one chain of
// the inner kernel alone (None) on the same target, so that the noise of a
// shared machine affects both alike: each Round runs one driver iteration
// and then K iterations of None, K chosen so that both get about the same
// time. Both chains run in the calling goroutine (no parallelism). For the
// driver None a Pair times the one chain alone.
//
// A Pair drives tempering.Chain.Step itself rather than tempering.Run:
// the point is to interleave, iteration by iteration and on one clone of
// the target, two chains of different drivers and to time each
// iteration, which Run's parallel chains of one driver cannot do.
type Pair struct {
	Driver tempering.Driver
	// Swap is the driver's swap schedule (PT and SPT).
	Swap tempering.SwapSchedule
	// K is the number of None iterations per driver iteration.
	K int

	drv, none            *tempering.Chain
	drvTime, noneTime    time.Duration
	drvIters, noneIters  int
	drvBefore, noneBefre []tempering.LevelStats
	drvReorders          int64
	roundRatios          []float64
	grad                 bool // the kernel's transitions evaluate gradients
}

// NewPair builds the two chains of driver d with kernel on one clone of t,
// both started at t's first starting point (tempering.Starter, else the
// origin), with the paper's ladder (M = 6, β* = 1/8) and swap schedule
// swap (the paper's is tempering.Sweep), seeded from seed.
func NewPair(t tempering.Target, d tempering.Driver, swap tempering.SwapSchedule, kernel tempering.Kernel, seed uint64) (*Pair, error) {
	start := make([]float64, t.Dim())
	if st, ok := t.(tempering.Starter); ok {
		st.Start(0, 1, start)
	}
	p := &Pair{Driver: d, Swap: swap, K: 1, grad: kernel.NeedsGrad()}
	// Both chains evaluate the same clone (they run one after the other in
	// one goroutine, so this is safe): with a clone each, the two copies of
	// the data and workspaces evict each other from the cache at every
	// switch, which penalises random-subset gathers (SPT, STT) much more
	// than full-data passes that the prefetcher streams.
	tc, err := t.Clone()
	if err != nil {
		return nil, fmt.Errorf("bench: cloning target: %w", err)
	}
	mk := func(d tempering.Driver, stream uint64) (*tempering.Chain, error) {
		ch, err := tempering.NewChain(tc, paperSettings(d, kernel, swap), rand.New(rand.NewPCG(seed, stream)), start)
		if err != nil {
			return nil, fmt.Errorf("bench: %v chain: %w", d, err)
		}
		ch.EndWarmup()
		return ch, nil
	}
	if p.none, err = mk(tempering.None, 0); err != nil {
		return nil, err
	}
	if d != tempering.None {
		if p.drv, err = mk(d, 1+paperIndex(d)); err != nil {
			return nil, err
		}
	}
	p.Reset()
	return p, nil
}

// Warmup runs n untimed rounds and then sets K to the count-based
// predicted cost ratio under c (rounded, at least 1), and resets the timers
// and counters.
func (p *Pair) Warmup(n int, c Coster) {
	for range n {
		p.Round()
	}
	if p.drv != nil && n > 0 {
		t := p.Timing(c, nil)
		if r := math.Round(t.RatioPredicted); r >= 1 && !math.IsNaN(r) {
			p.K = int(r)
		}
	}
	p.Reset()
}

// Reset zeroes the timers and takes the counters' current values as the
// origin of the next Timing.
func (p *Pair) Reset() {
	p.drvTime, p.noneTime, p.drvIters, p.noneIters = 0, 0, 0, 0
	p.roundRatios = p.roundRatios[:0]
	p.noneBefre = append([]tempering.LevelStats(nil), p.none.Stats().Levels...)
	if p.drv != nil {
		p.drvBefore = append([]tempering.LevelStats(nil), p.drv.Stats().Levels...)
		p.drvReorders = p.drv.Stats().Reorders
	}
}

// Round runs one iteration of the driver and K of None (just one of None
// for the driver None), timing each chain.
func (p *Pair) Round() {
	k := p.K
	var td time.Duration
	if p.drv != nil {
		t0 := time.Now()
		p.drv.Step()
		td = time.Since(t0)
		p.drvTime += td
		p.drvIters++
	} else {
		k = 1
	}
	t0 := time.Now()
	for range k {
		p.none.Step()
	}
	tn := time.Since(t0)
	p.noneTime += tn
	p.noneIters += k
	if p.drv != nil && tn > 0 {
		p.roundRatios = append(p.roundRatios, td.Seconds()/(tn.Seconds()/float64(k)))
	}
}

// Elapsed returns the time spent in Rounds since the last Reset.
func (p *Pair) Elapsed() time.Duration { return p.drvTime + p.noneTime }

// Timing is the outcome of a Pair: measured and predicted seconds per
// iteration and their ratios to None.
type Timing struct {
	Driver string `json:"driver"`
	// Iters and NoneIters are the iterations timed.
	Iters     int `json:"iters"`
	NoneIters int `json:"none_iters"`
	// SecPerIter and NoneSecPerIter are measured seconds per iteration.
	SecPerIter     float64 `json:"sec_per_iter"`
	NoneSecPerIter float64 `json:"none_sec_per_iter"`
	// PredPerIter and NonePredPerIter are predicted from the counters by
	// the CostCurve (piecewise log–log).
	PredPerIter     float64 `json:"pred_per_iter"`
	NonePredPerIter float64 `json:"none_pred_per_iter"`
	// RatioMeasured = SecPerIter/NoneSecPerIter; RatioPredicted the same
	// from the predictions; RatioPowerLaw from the fitted power laws.
	RatioMeasured float64 `json:"ratio_measured"`
	// RatioMedian is the median over rounds of each round's ratio, robust
	// to bursts of load on a shared machine (NaN for None).
	RatioMedian    float64 `json:"ratio_median"`
	RatioPredicted float64 `json:"ratio_predicted"`
	RatioPowerLaw  float64 `json:"ratio_powerlaw"`
	// Per iteration of the driver: transitions, and log-likelihood
	// evaluations without and with gradient, summed over levels.
	Transitions float64 `json:"transitions_per_iter"`
	Evals       float64 `json:"evals_per_iter"`
	EvalsGrad   float64 `json:"evals_grad_per_iter"`
}

// Timing returns the measurements since the last Reset; c predicts by the
// measured curve and pl (may be nil) by fitted power laws.
func (p *Pair) Timing(c, pl Coster) Timing {
	t := Timing{Driver: p.Driver.String(), NoneIters: p.noneIters}
	noneLv := LevelsDelta(p.none.Stats().Levels, p.noneBefre)
	t.NoneSecPerIter = p.noneTime.Seconds() / float64(p.noneIters)
	t.NonePredPerIter = Predict(noneLv, c) / float64(p.noneIters)
	lv, iters, sec := noneLv, p.noneIters, p.noneTime
	if p.drv != nil {
		lv, iters, sec = LevelsDelta(p.drv.Stats().Levels, p.drvBefore), p.drvIters, p.drvTime
	}
	t.Iters = iters
	t.SecPerIter = sec.Seconds() / float64(iters)
	var reorders int64
	if p.drv != nil {
		reorders = p.drv.Stats().Reorders - p.drvReorders
	}
	t.PredPerIter = (Predict(lv, c) + PredictReorders(reorders, c)) / float64(iters)
	t.RatioMeasured = t.SecPerIter / t.NoneSecPerIter
	t.RatioPredicted = t.PredPerIter / t.NonePredPerIter
	t.RatioPowerLaw = math.NaN()
	t.RatioMedian = math.NaN()
	if len(p.roundRatios) > 0 {
		r := slices.Clone(p.roundRatios)
		slices.Sort(r)
		if k := len(r); k%2 == 1 {
			t.RatioMedian = r[k/2]
		} else {
			t.RatioMedian = (r[k/2-1] + r[k/2]) / 2
		}
	}
	if pl != nil {
		t.RatioPowerLaw = p.PredictedRatio(pl)
	}
	for _, l := range lv {
		t.Transitions += float64(l.Transitions)
		t.Evals += float64(l.Evals)
		t.EvalsGrad += float64(l.EvalsGrad)
	}
	t.Transitions /= float64(iters)
	t.Evals /= float64(iters)
	t.EvalsGrad /= float64(iters)
	return t
}

// PredictedRatio returns the cost ratio of the driver to None that c
// predicts from both chains' counters since the last Reset (reorders
// included): the driver's predicted seconds per iteration over None's. For
// the driver None it is 1.
func (p *Pair) PredictedRatio(c Coster) float64 {
	if p.drv == nil {
		return 1
	}
	none := Predict(LevelsDelta(p.none.Stats().Levels, p.noneBefre), c) / float64(p.noneIters)
	lv := LevelsDelta(p.drv.Stats().Levels, p.drvBefore)
	reorders := p.drv.Stats().Reorders - p.drvReorders
	return ((Predict(lv, c) + PredictReorders(reorders, c)) / float64(p.drvIters)) / none
}

// TransitionRatio returns the cost ratio of the driver to None that c
// predicts from the transitions alone: the driver's transitions per
// iteration at each level, each priced as one transition of None scaled by
// c(N_m)/c(N) (c_grad for a kernel with gradients, c_val otherwise), over
// None's transitions per iteration. It leaves out every evaluation that is
// not part of a transition (swaps, the gradient a state needs after one,
// tempered-transition re-evaluations): it is the ratio the driver would
// cost if those were free, PT's M+1, TT's 2M, SPT's Σ_m c(N_m)/c(N) at the
// measured c(n). For the driver None it is 1.
func (p *Pair) TransitionRatio(c Coster) float64 {
	if p.drv == nil {
		return 1
	}
	price := c.Value
	if p.grad {
		price = c.Grad
	}
	per := func(lv []tempering.LevelStats, iters int) float64 {
		var s float64
		for _, l := range lv {
			s += float64(l.Transitions) * price(l.SubsetSize)
		}
		return s / float64(iters)
	}
	none := LevelsDelta(p.none.Stats().Levels, p.noneBefre)
	return per(LevelsDelta(p.drv.Stats().Levels, p.drvBefore), p.drvIters) / per(none, p.noneIters)
}

// CalibrationSizes returns the sizes at which to measure c(n) for a ladder
// over n observations down to β*·n: n, n/2, n/4, … (octaves), down to the
// first size ≤ β*·n (at least 1).
func CalibrationSizes(n int, betaMin float64) []int {
	lo := max(1, int(math.Floor(betaMin*float64(n))))
	var s []int
	for k := n; ; k /= 2 {
		s = append([]int{max(k, 1)}, s...)
		if k <= lo || k <= 1 {
			break
		}
	}
	return s
}
