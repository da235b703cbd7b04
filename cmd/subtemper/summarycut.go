package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// summaryGrace is how long the summary may go on computing diagnostics
// after a cancellation (one that came during sampling, or during the
// summary itself): short, so that the command ends well within a second
// of a Ctrl-C.
const summaryGrace = 250 * time.Millisecond

// diagCutter bounds the time the summary spends on diagnostics once ctx is
// cancelled: each variable's diagnostics (diag.SummarizeChains: sorts and
// FFTs over every draw, seconds per variable for millions of draws) run in
// a goroutine, and those not finished summaryGrace after the cancellation
// are abandoned (the goroutine runs to its end and its result is dropped)
// and left out of the summary (NaN), with a warning. Without a
// cancellation every diagnostic is computed, however long it takes.
type diagCutter struct {
	cut     chan struct{} // closed summaryGrace after ctx is cancelled
	stop    chan struct{}
	skipped []string // variables whose diagnostics were left out
}

// newDiagCutter starts watching ctx; call close when the summary is done.
func newDiagCutter(ctx context.Context) *diagCutter {
	d := &diagCutter{cut: make(chan struct{}), stop: make(chan struct{})}
	go func() {
		select {
		case <-d.stop:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(summaryGrace)
		defer t.Stop()
		select {
		case <-d.stop:
		case <-t.C:
			close(d.cut)
		}
	}()
	return d
}

func (d *diagCutter) close() { close(d.stop) }

// summarizeFn computes one variable's diagnostics (tests replace it).
var summarizeFn = diag.SummarizeChains

// summarizeChains is diag.SummarizeChains(name, chains), given up once the
// cut-off has passed (d may be nil: no cut-off).
func (d *diagCutter) summarizeChains(name string, chains [][]float64) (diag.Summary, error) {
	if d == nil {
		return summarizeFn(name, chains)
	}
	select {
	case <-d.cut:
		d.skipped = append(d.skipped, name)
		return diag.Summary{}, errDiagCut
	default:
	}
	type result struct {
		s   diag.Summary
		err error
	}
	fn := summarizeFn // read here: an abandoned goroutine must not read it later
	c := make(chan result, 1)
	go func() {
		s, err := fn(name, chains)
		c <- result{s, err}
	}()
	select {
	case r := <-c:
		return r.s, r.err
	case <-d.cut:
		d.skipped = append(d.skipped, name)
		return diag.Summary{}, errDiagCut
	}
}

// errDiagCut is summarizeChains's error for diagnostics left out.
var errDiagCut = errors.New("diagnostics left out after an interruption")

// finish records in sum (and res) the diagnostics that were left out.
func (d *diagCutter) finish(sum *runSummary, res *tempering.Result) {
	if d == nil || len(d.skipped) == 0 {
		return
	}
	sum.Interrupted, res.Interrupted = true, true
	sum.Warnings = append(sum.Warnings, fmt.Sprintf("interrupted during the summary: the diagnostics of %d of %d variables (%s) were not computed (NaN); draws.csv holds every draw: `subtemper diag` computes them",
		len(d.skipped), len(sum.Variables), strings.Join(d.skipped, ", ")))
}
