package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/subtemper/subtemper"
)

// Cancellation. The first Ctrl-C (or SIGTERM) cancels the context that
// main gives every command; each long phase of a sampling command looks
// at it:
//
//   - synthetic-data generation (subtemper.SyntheticGPData checks it
//     within the Cholesky factorisation; SyntheticMVNData abandons its Σ
//     factorisation) and the fit's standardisation return the context's
//     error, and the command stops with errInterrupted before anything is
//     written: --out keeps what it held;
//   - between the phases of the set-up (model, chains) the command checks
//     the context itself (checkInterrupted);
//   - the fit (subtemper.FitGP, FitMVN) stops its chains within an
//     iteration once they run, but its model's and chains' set-up (a clone
//     of the model per chain, the starting points evaluated at every
//     level: for a GP, O(N³) each) does not look at the context: runFit
//     covers those phases (below);
//   - the summary of the draws skips the diagnostics it has not computed
//     yet (diagCutter).

// setupGrace is how long runFit waits, after a cancellation that comes
// before any chain is set up (Settings.OnStart), for the fit to notice it
// (tempering.Run does at its first iteration) before it gives up on it.
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

// fitHooks are what runFit gives the library's fit to call: onPhase as
// it enters each phase (GPOptions.OnPhase, MVNOptions.OnPhase), and
// onSettings on the final settings (from BeforeSampling), which makes
// their OnStart report that a chain is set up.
type fitHooks struct {
	onPhase    func(phase string)
	onSettings func(st *subtemper.Settings)
	// onSampling says that the fit samples and, cancelled, returns the
	// draws made so far however long its current step takes (importance
	// sampling, whose batch's log densities take seconds each at large N).
	onSampling func()
}

// runFit calls fit (subtemper.FitGP or FitMVN with h's hooks) in a
// goroutine and returns its fit and error, and the phase it was in last.
// When ctx is cancelled before any chain is set up (the standardisation,
// the model's set-up and the chains' set-up do not look at the context),
// it waits setupGrace for fit to return; if it has not, runFit returns
// interruptedDuring(phase) and abandons fit's goroutine, which stops at
// its next check of ctx (the process exits meanwhile). Once a chain is
// set up, or importance sampling has begun (onSampling), runFit waits for
// fit as long as it takes (sampling stops within an iteration, or an
// evaluation, and the fit holds the draws so far). A fit that failed
// because ctx was cancelled is interruptedDuring(phase) too.
func runFit[F comparable](ctx context.Context, fit func(h fitHooks) (F, error)) (F, string, error) {
	var zero F
	var phase atomic.Pointer[string]
	var started atomic.Bool
	setPhase := func(p string) { phase.Store(&p) }
	setPhase(phaseModel)
	h := fitHooks{onPhase: setPhase, onSampling: func() { started.Store(true) }, onSettings: func(st *subtemper.Settings) {
		onStart := st.OnStart
		st.OnStart = func(c int) {
			started.Store(true)
			if onStart != nil {
				onStart(c)
			}
		}
	}}
	if ctx.Err() != nil {
		return zero, *phase.Load(), interruptedDuring(*phase.Load())
	}
	type result struct {
		fit F
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned fit does not block
	go func() {
		f, err := fit(h)
		done <- result{f, err}
	}()
	back := func(r result) (F, string, error) {
		ph := *phase.Load()
		if r.fit == zero && r.err != nil && ctx.Err() != nil {
			return zero, ph, interruptedDuring(ph)
		}
		return r.fit, ph, r.err
	}
	select {
	case r := <-done:
		return back(r)
	case <-ctx.Done():
	}
	if started.Load() {
		return back(<-done)
	}
	select {
	case r := <-done:
		return back(r)
	case <-time.After(setupGrace):
		ph := *phase.Load()
		return zero, ph, interruptedDuring(ph)
	}
}
