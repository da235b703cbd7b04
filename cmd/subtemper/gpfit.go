package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/errmsg"
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
	phaseImportance  = "importance sampling's first batch"
)

// fitJob is the gp command's run: FitGP with the flags' settings and the
// CLI's reporting hooks, then the summary, the command's own phase, the
// files and the printed summary (finishJob).
func fitJob(ctx context.Context, io *stdio, j *job, data *subtemper.GPData, opt subtemper.GPOptions) error {
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

// runCtl is what the sampler flags say of a fit's run besides its
// settings: the warm start, what it keeps, --max-time.
type runCtl struct {
	warm    subtemper.WarmStartMode
	keep    *subtemper.WarmKeep
	maxTime time.Duration
}

// runControl reads the run control of j's flags for n observations.
func runControl(j *job, n int) (runCtl, error) {
	f := j.flags
	maxTime, err := f.parseMaxTime()
	if err != nil {
		return runCtl{}, err
	}
	warm, err := f.warmStartOn(n)
	if err != nil {
		return runCtl{}, err
	}
	rc := runCtl{warm: subtemper.WarmStartOff, maxTime: maxTime}
	if warm {
		keep := warmKeep(f.fs)
		rc.warm, rc.keep = subtemper.WarmStartOn, &keep
	}
	return rc, nil
}

// gpOptions completes opt with the sampler flags: the settings, the warm
// start and what it keeps, --max-time.
func gpOptions(j *job, n int, opt subtemper.GPOptions) (subtemper.GPOptions, error) {
	rc, err := runControl(j, n)
	if err != nil {
		return opt, err
	}
	opt.Settings, opt.MaxTime, opt.WarmStart, opt.WarmKeep = j.settings, rc.maxTime, rc.warm, rc.keep
	return opt, nil
}

// fitSampled runs FitGP and returns the fit (nil if none was made) and
// its run for finishJob; j.fit is the fit from the moment the settings
// are final.
func fitSampled(ctx context.Context, io *stdio, j *job, data *subtemper.GPData, opt subtemper.GPOptions) (*subtemper.GPFit, sampled, error) {
	opt, err := gpOptions(j, data.N, opt)
	if err != nil {
		return nil, sampled{}, err
	}
	if opt.WarmStart == subtemper.WarmStartOn {
		announceWarmStart(io, j, data.N, opt.Warm != nil)
	}
	var pr *progress
	opt.OnBatch = importanceProgress(io.err, j)
	opt.OnWarm = warmProgress(io.err, j, "warm start")
	opt.BeforeSampling = func(fit *subtemper.GPFit, st *subtemper.Settings) {
		if ctx.Err() != nil {
			return // the command may have given up on this run
		}
		adoptFit(j, fit)
		if fit.Weighted != nil {
			*j.settings = *st
			startImportance(io, j, fit)
			return
		}
		if fit.ImportanceSkipped != "" && !j.flags.quiet {
			fmt.Fprintf(io.err, "subtemper %s: sampling with chains: %s\n", j.command, fit.ImportanceSkipped)
		}
		pr = startSampling(io, j, fit.Mode, st)
	}
	fit, phase, err := fitGP(ctx, data, opt)
	var sr sampled
	if fit != nil {
		sr = sampled{res: fit.Result, wall: fit.Wall, procCPU: fit.SamplingCPU, timedOut: fit.StoppedByMaxTime}
	}
	sr, err = settleFit(ctx, io, j, fit != nil, phase, err, sr, pr)
	return fit, sr, err
}

// startSampling is BeforeSampling's work for the CLI: j's settings
// become the final ones st, the warm start ws (if any) is noted, the
// run's start announced and its progress bar started (returned; nil
// without one), and the checkpoints set up; st takes what these added.
func startSampling(io *stdio, j *job, ws *subtemper.WarmStart, st *subtemper.Settings) *progress {
	*j.settings = *st
	if ws != nil {
		noteWarmStart(j, ws)
	}
	pr := announceSampling(io, j, ws)
	*st = *j.settings
	if j.ckpt != nil {
		j.ckpt.setWarm(ws)
		j.ckpt.apply(st)
	}
	return pr
}

// settleFit turns the outcome of a library fit (made: the fit exists;
// phase: the phase it was in last; sr: its run) into the run for
// finishJob or the command's error (the fit, if made, is the caller's to
// close).
func settleFit(ctx context.Context, io *stdio, j *job, made bool, phase string, err error, sr sampled, pr *progress) (sampled, error) {
	f := j.flags
	if pr != nil && !(!made && errors.Is(err, errInterrupted)) { // (else the fit may still run)
		pr.stop(made && sr.res != nil && sr.res.StoppedAt > 0)
	}
	sr.pr = pr
	switch {
	case !made && errors.Is(err, errInterrupted):
		return sampled{}, err
	case !made && ctx.Err() == nil && errors.Is(err, subtemper.ErrMaxTime) && phase == phaseMode:
		return sampled{}, errMaxTimeMode(f)
	case errors.Is(err, subtemper.ErrMaxTime) && ctx.Err() == nil:
		return sampled{}, errMaxTimeSetup(f)
	case !made:
		return sampled{}, fitFailed(j, phase, err)
	}
	// Any error left is the interruption: the fit holds the draws so far
	// (Result.Interrupted), which finishJob keeps.
	if sr.res != nil && sr.res.CheckpointErr != nil {
		err := sr.res.CheckpointErr
		j.notes = append(j.notes, fmt.Sprintf("warning: the checkpoints stopped: %v", errmsg.Trim(err, "tempering: ")))
	}
	if sr.timedOut {
		reportMaxTime(io, j, sr.res)
	}
	return sr, nil
}

// adoptFit makes fit j's: its model the target, its standardisation the
// map to natural units.
func adoptFit(j *job, fit *subtemper.GPFit) {
	j.fit = fit
	j.nObs = fit.Data.N
	j.natural = fit.Natural
}

// fitFailed is the error of a fit that failed (not interrupted) in
// phase.
func fitFailed(j *job, phase string, err error) error {
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

// fitGP calls subtemper.FitGP(ctx, data, opt) through runFit: it returns
// its fit and error and the phase FitGP was in last, or gives up on a
// FitGP cancelled during its set-up (runFit).
func fitGP(ctx context.Context, data *subtemper.GPData, opt subtemper.GPOptions) (*subtemper.GPFit, string, error) {
	return runFit(ctx, func(h fitHooks) (*subtemper.GPFit, error) {
		opt.OnPhase = h.onPhase
		before := opt.BeforeSampling
		opt.BeforeSampling = func(fit *subtemper.GPFit, st *subtemper.Settings) {
			if before != nil {
				before(fit, st)
			}
			h.onSettings(st)
			if fit.Weighted != nil {
				h.onPhase(phaseImportance)
				h.onSampling()
			}
		}
		return subtemper.FitGP(ctx, data, opt)
	})
}
