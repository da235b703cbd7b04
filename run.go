package subtemper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/subtemper/subtemper/tempering"
)

// The steps that FitGP and FitMVN share: the search for the mode and the
// settings it leaves, the run of the chains, and what their result means
// for the fit.

// warmCall is what findWarm does besides finding the mode: what of the
// settings it keeps, whether it fits a proposal (a split-t with split),
// whether it stops at the mode, the backend, and whom it tells of its
// steps (nil: no one).
type warmCall struct {
	keep                         WarmKeep
	fitProposal, split, modeOnly bool
	backend                      string
	progress                     func(WarmProgress)
}

// findWarm finds the posterior mode of t (tempering.FindMode with
// WarmStartOptions(*st, c.fitProposal)) and, unless c.modeOnly, makes *st
// start from it with what c.keep keeps. An error wraps the context's cause
// when ctx was cancelled.
func findWarm(ctx context.Context, t tempering.Target, st *tempering.Settings, c warmCall) (*tempering.WarmStart, error) {
	o := WarmStartOptions(*st, c.fitProposal)
	if o.Proposal != nil {
		// Only importance sampling, which the split asks for, uses the
		// corners, and it samples several modes from a proposal fitted
		// at the best with the Laplace approximation at each other.
		o.Proposal.Split, o.NoCorners, o.AllModes = c.split, !c.split, c.split
	}
	o.Progress = c.progress
	if c.backend == "openblas" {
		// The warm start runs several evaluations at once, each on its
		// clone: each gets its share of the cores, and the chains theirs
		// after it.
		o.Concurrency = func(atOnce int) { pinThreads(c.backend, max(1, runtime.NumCPU()/atOnce)) }
		defer pinChainThreads(c.backend, st.Chains)
	}
	ws, err := tempering.FindMode(ctx, t, o)
	if ctx.Err() != nil {
		if err != nil {
			err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
		} else {
			err = context.Cause(ctx)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("subtemper: the search for the posterior mode: %w", err)
	}
	if !c.modeOnly {
		*st = c.keep.Settings(*st, ws)
	}
	return ws, nil
}

// chainsRun is one tempering.Run of a fit's chains.
type chainsRun struct {
	res     *tempering.Result
	err     error
	started bool          // a chain was set up and iterating (Settings.OnStart)
	cpu     time.Duration // the process's CPU time during the run (0 if unknown)
}

// runChains runs tempering.Run(sctx, t, st) with a copy of st whose
// OnStart also records that a chain is set up (MaxTime's error tells the
// set-up from sampling).
func runChains(sctx context.Context, t tempering.Target, st tempering.Settings) chainsRun {
	var started atomic.Bool
	rs := st
	rs.OnStart = func(chain int) {
		started.Store(true)
		if st.OnStart != nil {
			st.OnStart(chain)
		}
	}
	cpu0, cpuOK := tempering.ProcessCPU()
	res, err := tempering.Run(sctx, t, &rs)
	r := chainsRun{res: res, err: err, started: started.Load()}
	if cpu1, ok := tempering.ProcessCPU(); ok && cpuOK {
		r.cpu = cpu1 - cpu0
	}
	return r
}

// settle says what run r means for a fit sampled under sctx (ctx with
// MaxTime's limit): failed, the fit has no draws and err says why; else
// the draws (r.res) are the fit's, maxTime reports that MaxTime ended
// them (no error, unless it ran out before the chains' first iteration),
// and a cancellation of ctx is an error that says how many draws per
// chain were kept. t, when the run failed before any draw, explains why
// a chain could not start (a *StartError).
func (r chainsRun) settle(ctx, sctx context.Context, t tempering.Target, chains int) (failed, maxTime bool, err error) {
	timedOut := ctx.Err() == nil && errors.Is(context.Cause(sctx), ErrMaxTime)
	res, err := r.res, r.err
	if err == nil && res == nil {
		err = context.Cause(sctx)
	}
	if err != nil {
		if sctx.Err() != nil && !errors.Is(err, context.Cause(sctx)) {
			err = fmt.Errorf("%w (%w)", context.Cause(sctx), err)
		} else if sctx.Err() == nil && !r.started {
			if cause := explainStart(t, chains); cause != nil {
				err = cause
			}
		}
		return true, false, err
	}
	if timedOut && res.Interrupted {
		res.Interrupted = false
		if !r.started {
			return false, true, fmt.Errorf("subtemper: the chains' set-up outlasted the maximum time: %w", ErrMaxTime)
		}
		return false, true, nil
	}
	if res.Interrupted {
		n := -1
		for _, ch := range res.Draws {
			if n < 0 || len(ch) < n {
				n = len(ch)
			}
		}
		cause := context.Cause(ctx)
		if cause == nil {
			cause = context.Canceled
		}
		return false, false, fmt.Errorf("subtemper: sampling interrupted with %d draws per chain (the fit holds them): %w", max(n, 0), cause)
	}
	return false, false, nil
}

// starter is implemented by the models that choose each chain's starting
// point (gp.Model, mvn.Model).
type starter interface {
	Start(c, chains int, u []float64)
}

// StartError is a fit's error when a chain cannot start: the model
// cannot be evaluated at the chain's starting point (Err), or its log
// likelihood or, if Prior, its log prior density there is Value, not a
// finite number.
type StartError struct {
	Chain int // 1, 2, …
	Prior bool
	Value float64
	Err   error
}

// Error says which chain cannot start, and why.
func (e *StartError) Error() string {
	switch {
	case e.Err != nil:
		return fmt.Sprintf("chain %d cannot start: the model cannot be evaluated at its starting point: %v", e.Chain, e.Err)
	case e.Prior:
		return fmt.Sprintf("chain %d cannot start: the log prior density at its starting point is %v", e.Chain, e.Value)
	}
	return fmt.Sprintf("chain %d cannot start: the log likelihood at its starting point is %v", e.Chain, e.Value)
}

// Unwrap returns the model's error, if any.
func (e *StartError) Unwrap() error { return e.Err }

// explainStart returns a *StartError for the first chain whose starting
// point's density cannot be evaluated (the sampler reports only "log
// density −∞"), or nil when every start evaluates (or t does not choose
// its starts).
func explainStart(t tempering.Target, chains int) error {
	s, ok := t.(starter)
	if !ok {
		return nil
	}
	u := make([]float64, t.Dim())
	for c := range chains {
		s.Start(c, chains, u)
		ll, err := t.LogLik(nil, u, nil)
		if err != nil {
			return &StartError{Chain: c + 1, Err: err}
		}
		if math.IsNaN(ll) || math.IsInf(ll, 0) {
			return &StartError{Chain: c + 1, Value: ll}
		}
		if lp := t.LogPrior(u, nil); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return &StartError{Chain: c + 1, Prior: true, Value: lp}
		}
	}
	return nil
}
