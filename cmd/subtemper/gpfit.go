package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/tempering"
)

// The gp command is a client of the library: its flags become
// subtemper.GPOptions, subtemper.FitGP samples (warm start, --max-time
// and Ctrl-C included), the summary is the fit's Report, and the files
// are written by the fit's writers.

// Phases of subtemper.FitGP (GPOptions.OnPhase) that the CLI tells apart.
const (
	phaseStandardize = "standardisation"
	phaseModel       = "the model's set-up"
	phaseMode        = "the search for the posterior mode"
	phaseChains      = "the chains' set-up"
)

// fitJob is the gp command's run: FitGP with the flags' settings and the
// CLI's reporting hooks, then the summary, the command's own phase, the
// files and the printed summary (finishJob).
func fitJob(ctx context.Context, io *stdio, j *job, data *gp.Data, opt subtemper.GPOptions) error {
	fixStagedPaths(j)
	defer raiseProcs(j.settings.Chains)()
	fit, sr, err := fitSampled(ctx, io, j, data, opt)
	if fit != nil {
		defer closeUnlessInterrupted(ctx, fit)
	}
	if err != nil {
		return err
	}
	return finishJob(ctx, io, j, sr)
}

// gpOptions completes opt with the sampler flags: the settings, the warm
// start and what it keeps, --max-time.
func gpOptions(j *job, n int, opt subtemper.GPOptions) (subtemper.GPOptions, error) {
	f := j.flags
	maxTime, err := f.parseMaxTime()
	if err != nil {
		return opt, err
	}
	warm, err := f.warmStartOn(n)
	if err != nil {
		return opt, err
	}
	opt.Settings, opt.MaxTime = j.settings, maxTime
	opt.WarmStart = subtemper.WarmStartOff
	if warm {
		keep := warmKeep(f.fs)
		opt.WarmStart, opt.WarmKeep = subtemper.WarmStartOn, &keep
	}
	return opt, nil
}

// fitSampled runs FitGP and returns the fit (nil if none was made) and
// its run for finishJob; j.fit is the fit from the moment the settings
// are final.
func fitSampled(ctx context.Context, io *stdio, j *job, data *gp.Data, opt subtemper.GPOptions) (*subtemper.GPFit, sampled, error) {
	f := j.flags
	opt, err := gpOptions(j, data.N, opt)
	if err != nil {
		return nil, sampled{}, err
	}
	if opt.WarmStart == subtemper.WarmStartOn {
		announceWarmStart(io, j, data.N)
	}
	var pr *progress
	opt.BeforeSampling = func(fit *subtemper.GPFit, st *tempering.Settings) {
		if ctx.Err() != nil {
			return // the command may have given up on this run
		}
		adoptFit(j, fit)
		*j.settings = *st
		if fit.Mode != nil {
			noteWarmStart(j, fit.Mode)
		}
		pr = announceSampling(io, j, fit.Mode)
		*st = *j.settings
		if j.ckpt != nil {
			j.ckpt.apply(st)
		}
	}
	fit, phase, err := fitGP(ctx, data, opt)
	if pr != nil && !(fit == nil && errors.Is(err, errInterrupted)) { // (else FitGP may still run)
		pr.stop(fit != nil && fit.Result != nil && fit.Result.StoppedAt > 0)
	}
	switch {
	case fit == nil && errors.Is(err, errInterrupted):
		return nil, sampled{}, err
	case fit == nil && ctx.Err() == nil && errors.Is(err, subtemper.ErrMaxTime) && phase == phaseMode:
		return nil, sampled{}, errMaxTimeMode(f)
	case errors.Is(err, subtemper.ErrMaxTime) && ctx.Err() == nil:
		return fit, sampled{}, errMaxTimeSetup(f)
	case fit == nil:
		return nil, sampled{}, gpFitFailed(j, phase, err)
	}
	// Any error left is the interruption: the fit holds the draws so far
	// (Result.Interrupted), which finishJob keeps.
	if fit.Result != nil && fit.Result.CheckpointErr != nil {
		err := fit.Result.CheckpointErr
		j.notes = append(j.notes, fmt.Sprintf("warning: the checkpoints stopped: %v", errmsg.Trim(err, "tempering: ")))
	}
	if fit.StoppedByMaxTime {
		reportMaxTime(io, j, fit.Result)
	}
	return fit, sampled{res: fit.Result, wall: fit.Wall, procCPU: fit.SamplingCPU, timedOut: fit.StoppedByMaxTime, pr: pr}, nil
}

// adoptFit makes fit j's: its model the target, its standardisation the
// map to natural units.
func adoptFit(j *job, fit *subtemper.GPFit) {
	j.fit = fit
	if m, err := fit.Model(); err == nil {
		j.target = m
	}
	std := fit.Std
	j.natural = func(dst, u []float64) {
		gp.Theta(dst, u)
		std.Original(dst, dst)
	}
}

// gpFitFailed is the error of a fit that failed (not interrupted) in
// phase.
func gpFitFailed(j *job, phase string, err error) error {
	switch phase {
	case phaseStandardize:
		return usageError{fmt.Errorf("--standardize: %w", errmsg.Trim(err, "subtemper: standardisation: ", "gp: ", "standardize: "))}
	case phaseModel:
		return inputErr(errmsg.Trim(err, "subtemper: the model's set-up: "))
	case phaseMode:
		return fmt.Errorf("the search for the posterior mode failed: %w", errmsg.Trim(err, "subtemper: the search for the posterior mode: "))
	}
	return samplingFailed(j, err)
}

// fitGP calls subtemper.FitGP(ctx, data, opt) in a goroutine and returns
// its fit and error, and the phase FitGP was in last (opt.OnPhase). When
// ctx is cancelled before any chain is set up (tempering.Control.OnStart;
// the standardisation, the model's set-up and the chains' set-up do not
// look at the context), it waits setupGrace for FitGP to return; if it
// has not, fitGP returns interruptedDuring(phase) and abandons FitGP's
// goroutine, which stops at its next check of ctx (the process exits
// meanwhile). Once a chain is set up, fitGP waits for FitGP as long as it
// takes (sampling stops within an iteration and the fit holds the draws
// so far). A fit that failed because ctx was cancelled is
// interruptedDuring(phase) too.
func fitGP(ctx context.Context, data *gp.Data, opt subtemper.GPOptions) (*subtemper.GPFit, string, error) {
	var phase atomic.Pointer[string]
	var started atomic.Bool
	setPhase := func(p string) { phase.Store(&p) }
	setPhase(phaseModel)
	opt.OnPhase = setPhase
	before := opt.BeforeSampling
	opt.BeforeSampling = func(fit *subtemper.GPFit, st *tempering.Settings) {
		if before != nil {
			before(fit, st)
		}
		onStart := st.OnStart
		st.OnStart = func(c int) {
			started.Store(true)
			if onStart != nil {
				onStart(c)
			}
		}
	}
	if ctx.Err() != nil {
		return nil, *phase.Load(), interruptedDuring(*phase.Load())
	}
	type result struct {
		fit *subtemper.GPFit
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned FitGP does not block
	go func() {
		fit, err := subtemper.FitGP(ctx, data, opt)
		done <- result{fit, err}
	}()
	back := func(r result) (*subtemper.GPFit, string, error) {
		ph := *phase.Load()
		if r.fit == nil && r.err != nil && ctx.Err() != nil {
			return nil, ph, interruptedDuring(ph)
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
		return nil, ph, interruptedDuring(ph)
	}
}
