package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/tempering"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress is a progress bar over the iterations of all chains. The
// sampler's callback only stores each chain's count in an atomic; a ticker
// goroutine sums them and refreshes the bar, so chains never block on it.
type progress struct {
	counts []atomic.Int64
	total  int64 // the bar's total: the expected iterations, raised as they are passed
	most   int64 // the most iterations the run can make
	warmup int64 // warm-up iterations per chain
	p      *mpb.Progress
	bar    *mpb.Bar
	stopc  chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex
	foreseen int64     // the total the stop rule's last check foresees (0: none new)
	first    time.Time // when the first iteration was counted (the end of the set-up)
	firstN   int64     // the iterations counted then
	now      func() time.Time
}

// startProgress starts a bar on w for chains chains of at most perChain
// iterations each, of which expected are likely (where the --min-ess rule
// is expected to stop), so that the ETA is that of the likely run; once
// the chains pass it, the total grows by a tenth of the rest at a time.
// force draws it even when w is not a terminal (--progress).
func startProgress(w io.Writer, chains, warmup, expected, perChain int, force bool) *progress {
	pr := &progress{counts: make([]atomic.Int64, chains), total: int64(chains) * int64(min(expected, perChain)), most: int64(chains) * int64(perChain),
		warmup: int64(warmup), stopc: make(chan struct{}), now: time.Now}
	pr.p = mpb.New(
		mpb.WithOutput(w),
		mpb.WithRefreshRate(200*time.Millisecond),
		mpb.ContainerOptional(mpb.WithAutoRefresh(), force),
	)
	// A bar made with total 0 completes only when told (stop): a run that
	// the --min-ess rule ends early completes at fewer iterations.
	pr.bar = pr.p.AddBar(0,
		mpb.BarWidth(32),
		mpb.PrependDecorators(
			decor.Any(func(decor.Statistics) string { return pr.phase() }, decor.WC{W: 9, C: decor.DindentRight}),
			decor.CountersNoUnit("%d/%d it "),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WC{W: 5}),
			decor.Any(func(st decor.Statistics) string { return pr.rateETA(st.Current, st.Total, st.Completed) }),
		),
	)
	pr.bar.SetTotal(pr.total, false)
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(150 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-pr.stopc:
				return
			case <-t.C:
				n := pr.sum()
				// The bar is told outside pr.mu: its decorators take pr.mu.
				pr.mu.Lock()
				f := pr.foreseen
				pr.foreseen = 0
				pr.mu.Unlock()
				if f > 0 && f != pr.total {
					pr.total = max(f, n)
					pr.bar.SetTotal(pr.total, false)
				}
				if n >= pr.total && pr.total < pr.most {
					pr.total = min(pr.most, n+max((pr.most-n)/10, int64(len(pr.counts))))
					pr.bar.SetTotal(pr.total, false)
				}
				pr.bar.SetCurrent(n)
			}
		}
	}()
	return pr
}

// foresee sets the bar's total from the --min-ess rule's last check:
// after n draws per chain the smallest ESS was least, and need is the
// rule's threshold, so about n·need/least draws per chain end the run
// (at least the next check, at most the run's maximum). Called from the
// rule's check (one goroutine at a time).
func (pr *progress) foresee(n int, least, need float64, every, thin int) {
	if !(least > 0) || math.IsInf(least, 0) {
		return
	}
	draws := math.Ceil(float64(n) * need / least)
	draws = max(draws, float64(n+every))
	chains := int64(len(pr.counts))
	total := chains * (pr.warmup + int64(draws)*int64(thin))
	total = min(total, pr.most)
	pr.mu.Lock()
	pr.foreseen = total
	pr.mu.Unlock()
}

// phase names what the chains are doing: set-up until the first
// iteration, warm-up until every chain has passed it, then sampling.
func (pr *progress) phase() string {
	least := int64(-1)
	var n int64
	for i := range pr.counts {
		c := pr.counts[i].Load()
		n += c
		if least < 0 || c < least {
			least = c
		}
	}
	switch {
	case n == 0:
		return "set-up"
	case least < pr.warmup:
		return "warm-up"
	}
	return "sampling"
}

// rateETA gives the speed and the time left, both measured from the first
// iteration, so that a long set-up (the model, a warm start) neither
// shows 0 it/s nor counts against the speed: "  123 it/s  ETA 45s", and
// nothing before the first iteration. The ETA is that of the bar's total,
// the iterations the --min-ess rule is expected to need.
func (pr *progress) rateETA(n, total int64, done bool) string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	now := pr.now()
	if n > 0 && pr.first.IsZero() {
		pr.first, pr.firstN = now, n
	}
	if done {
		return ""
	}
	el := now.Sub(pr.first).Seconds()
	if pr.first.IsZero() || n <= pr.firstN || el <= 0 {
		return "  ETA …"
	}
	rate := float64(n-pr.firstN) / el
	eta := time.Duration(float64(max(total-n, 0)) / rate * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("  %.0f it/s  ETA %v", rate, eta)
}

// callback is the tempering.Settings.Progress function.
func (pr *progress) callback(chain, iter, total int) { pr.counts[chain].Store(int64(iter)) }

func (pr *progress) sum() int64 {
	var s int64
	for i := range pr.counts {
		s += pr.counts[i].Load()
	}
	return s
}

// stop refreshes the bar a last time and removes the ticker; an
// incomplete bar (an interrupted run) is aborted but left on screen, one
// that ended early by design (stoppedEarly: the --min-ess rule) completes
// where it stands.
func (pr *progress) stop(stoppedEarly bool) {
	close(pr.stopc)
	pr.wg.Wait()
	n := pr.sum()
	pr.bar.SetCurrent(n)
	switch {
	case stoppedEarly:
		pr.bar.SetTotal(n, true)
	case n < pr.most:
		pr.bar.Abort(false)
	default:
		pr.bar.SetTotal(n, false)
		pr.bar.EnableTriggerComplete()
	}
	pr.p.Wait()
}

// announceSampling prints what the warm start found (ws, if any) and the
// run's start line, and starts the progress bar (nil without one),
// wiring it into j.settings.
func announceSampling(io *stdio, j *job, ws *subtemper.WarmStart) *progress {
	f, st := j.flags, j.settings
	chatty := !f.quiet
	stop := ""
	if f.minESS > 0 {
		stop = fmt.Sprintf(", stopping early once every ESS ≥ %.0f", max(f.minESS, diag.ESSPerChainMin*float64(st.Chains)))
	}
	expected := f.warmup + expectedDraws(st, f.minESS, drawESS(st, ws))*st.Thin
	if ws != nil && chatty {
		printWarmStart(io.err, j, ws, expected-f.warmup)
	}
	perChain := f.warmup + st.Draws*st.Thin
	if chatty {
		fmt.Fprintf(io.err, "subtemper %s: sampling %s × (%d warm-up + %d×%d) %s with %s on %s%s; Ctrl-C stops and keeps the draws so far\n",
			j.command, plural.Count(st.Chains, "chain", "chains"), f.warmup, st.Draws, st.Thin, plural.Word(perChain, "iteration", "iterations"),
			withDriver(driverName(f.sampler), kernelNames(f)), j.backend, stop)
	}
	if w := ladderWarning(f, j.nObs); w != "" && chatty {
		fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, w)
	}
	if !chatty || !(io.errIsTerminal || f.progress) {
		return nil
	}
	pr := startProgress(io.err, st.Chains, f.warmup, expected, perChain, f.progress)
	st.Progress = pr.callback
	if rule, ok := st.Stop.(diag.StopRule); ok {
		// The bar's ETA follows the rule's checks: where the ESS
		// seen so far says the run will end.
		need := max(rule.MinESS, diag.ESSPerChainMin*float64(st.Chains))
		every := cmp.Or(st.StopEvery, tempering.DefaultStopEvery)
		rule.Observe = func(n int, least float64) { pr.foresee(n, least, need, every, max(1, st.Thin)) }
		st.Stop = rule
	}
	return pr
}

// ladderWarning describes a degenerate subsampled ladder (spt, stt): levels
// whose subsets have equal sizes, or of a single observation; "" if none.
func ladderWarning(f *samplerFlags, n int) string {
	if f.sampler != "spt" && f.sampler != "stt" {
		return ""
	}
	betas, err := tempering.Ladder(f.effectiveLevels(), f.betaMin)
	if err != nil {
		return ""
	}
	sizes := tempering.SubsetSizes(betas, n)
	equal, ones := 0, 0
	for m := 1; m < len(sizes); m++ {
		if sizes[m] == sizes[m-1] {
			equal++
		}
		if sizes[m] == 1 {
			ones++
		}
	}
	if equal == 0 && ones == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the ladder degenerates over N = %d: subset sizes %v (%d adjacent levels of equal size, %d of a single observation); use fewer --levels or a larger --beta-min", n, sizes, equal, ones)
}
