package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// Cancellation. The first Ctrl-C (or SIGTERM) cancels the context that
// main gives every command; each long phase of a sampling command looks
// at it:
//
//   - synthetic-data generation (gp.SyntheticContext checks it within the
//     Cholesky factorisation; mvn.SyntheticContext abandons its Σ
//     factorisation) and standardisation (gp.StandardizeContext) return
//     the context's error, and the command stops with errInterrupted
//     before anything is written: --out keeps what it held;
//   - between the phases of the set-up (model, chains) the command checks
//     the context itself (checkInterrupted);
//   - tempering.Run stops its chains within an iteration once they run,
//     but its own set-up (a clone of the target per chain, the starting
//     points evaluated at every level: for a GP, O(N³) each) does not look
//     at the context: runSampler covers that phase (below);
//   - the summary of the draws skips the diagnostics it has not computed
//     yet (summarizeContext).

// setupGrace is how long runSampler waits, after a cancellation that comes
// before any chain is set up (tempering.Control.OnStart), for
// tempering.Run to notice it (which it does at its first iteration)
// before it gives up on Run.
const setupGrace = 300 * time.Millisecond

// interruptedDuring returns errInterrupted for a run stopped during phase,
// before it drew anything; nothing was written.
func interruptedDuring(phase string) error {
	return fmt.Errorf("%w during %s: nothing written (--out, if given, keeps what it held)", errInterrupted, phase)
}

// checkInterrupted returns interruptedDuring(phase) if ctx is cancelled,
// or if err is the context's error; otherwise err.
func checkInterrupted(ctx context.Context, phase string, err error) error {
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return interruptedDuring(phase)
	}
	return err
}

// runSampler calls tempering.Run(ctx, t, st) in a goroutine and returns
// its result. When ctx is cancelled before any chain is set up
// (tempering.Control.OnStart: Run is still setting up), it waits
// setupGrace for Run to return; if Run has not, runSampler returns
// interruptedDuring("the chains' set-up") and abandons Run's goroutine,
// which stops at its first iteration (it sees ctx cancelled) and releases
// its clones of the target; the command returns and the process exits
// meanwhile. Once a chain is set up, runSampler waits for Run as long as
// it takes (Run stops within an iteration and returns the draws so far).
func runSampler(ctx context.Context, t tempering.Target, st *tempering.Settings) (*tempering.Result, error) {
	if ctx.Err() != nil {
		return nil, interruptedDuring("the chains' set-up")
	}
	var started atomic.Bool
	s := *st
	s.OnStart = func(c int) {
		started.Store(true)
		if st.OnStart != nil {
			st.OnStart(c)
		}
	}
	type result struct {
		res *tempering.Result
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned Run does not block
	go func() {
		res, err := tempering.Run(ctx, t, &s)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
	}
	if started.Load() {
		r := <-done
		return r.res, r.err
	}
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(setupGrace):
		return nil, interruptedDuring("the chains' set-up")
	}
}

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

// interruptible runs f, which does not look at ctx (a model's set-up: for
// the MVN an O(N·D²) whitening of the data and an O(D³) factorisation), in
// a goroutine. If ctx is cancelled first, it returns interruptedDuring(phase)
// at once and abandons the goroutine: f runs to its end and its result is
// dropped (a model it built is not closed; the process is about to exit).
// mvn.Model.Posterior, run this way, reads the host copy of the data only,
// so the command closing the model meanwhile does not disturb it.
func interruptible[T any](ctx context.Context, phase string, f func() (T, error)) (T, error) {
	var zero T
	if ctx.Err() != nil {
		return zero, interruptedDuring(phase)
	}
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1) // buffered: an abandoned f does not block
	go func() {
		v, err := f()
		c <- result{v, err}
	}()
	select {
	case r := <-c:
		return r.v, r.err
	case <-ctx.Done():
		return zero, interruptedDuring(phase)
	}
}
