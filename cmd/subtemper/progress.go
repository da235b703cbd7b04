package main

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

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
	p      *mpb.Progress
	bar    *mpb.Bar
	stopc  chan struct{}
	wg     sync.WaitGroup
}

// startProgress starts a bar on w for chains chains of at most perChain
// iterations each, of which expected are likely (where the --min-ess rule
// is expected to stop), so that the ETA is that of the likely run; once
// the chains pass it, the total grows by a tenth of the rest at a time.
// force draws it even when w is not a terminal (--progress).
func startProgress(w io.Writer, chains, expected, perChain int, force bool) *progress {
	pr := &progress{counts: make([]atomic.Int64, chains), total: int64(chains) * int64(min(expected, perChain)), most: int64(chains) * int64(perChain), stopc: make(chan struct{})}
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
			decor.Name("sampling "),
			decor.CountersNoUnit("%d/%d it "),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WC{W: 5}),
			decor.AverageSpeed(nil, "  %.0f it/s"),
			decor.Name("  ETA "),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), "0s"),
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
