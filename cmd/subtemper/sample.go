package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// job is one sampling run of a model.
type job struct {
	command  string
	fs       *flagSet
	flags    *samplerFlags
	settings *subtemper.Settings
	nObs     int // the number of observations N
	backend  string
	names    []string               // natural-unit variable names
	natural  func(dst, u []float64) // sampling space → natural units
	// priorU, if set, is the prior density of variable v at x on the
	// figures' scale (x = log θ for gp, θ in the units reported; θ for
	// mvn), for the density figure; ok is false where it has none.
	priorU   func(v int, u float64) (d float64, ok bool)
	units    string                  // how natural units relate to the sampling space
	data     map[string]any          // description of the data for summary.json
	dataLine string                  // the same, one line for humans
	extra    func(*runSummary) error // adds command-specific content
	// done, if set, runs after the outputs are written, with the result
	// (the gp command saves the fit and predicts). When ctx is cancelled
	// while it runs and it fails, the run is kept as interrupted during
	// donePhase, with the warning doneCut (what was left out, how to make
	// it).
	done      func(res *subtemper.Result) error
	doneShown string // the phase of done, for the progress display ("" shows none)
	donePhase string
	doneCut   string
	notes     []string // printed once the files are in place
	// startHint, if not empty, follows the error of a run that cannot
	// start: a likely cause and its fix.
	startHint string
	diag      *diagCutter // bounds the summary's time after a Ctrl-C (cancel.go)
	// warm describes the warm start, if the run made one; warmKernel
	// reports that it runs tempering.WarmKernel.
	warm       *warmInfo
	warmKernel bool
	// fit is the gp command's fit (subtemper.FitGP's), once made; the
	// summary is its Report.
	fit *subtemper.GPFit
	// ckpt is the gp command's checkpoints (nil: none).
	ckpt *ckptFlags
}

// beforeWrite, when set (by tests), runs just before finishJob writes the
// files.
var beforeWrite func()

// sampled is a finished sampling run, before its summary.
type sampled struct {
	res           *subtemper.Result
	wall, procCPU time.Duration
	timedOut      bool // --max-time ended sampling
	pr            *progress
}

// announceWarmStart says that the search for the mode begins, or, where
// the run resumed has one (resumed), that it is taken from its checkpoint.
func announceWarmStart(io *stdio, j *job, n int, resumed bool) {
	switch {
	case j.flags.quiet:
	case resumed:
		fmt.Fprintf(io.err, "subtemper %s: warm start: the checkpoint's, found by the run resumed (no new search)\n", j.command)
	default:
		fmt.Fprintf(io.err, "subtemper %s: warm start: looking for the posterior mode (N = %d; --warm-start off skips it)\n", j.command, n)
	}
}

// errMaxTimeMode and errMaxTimeSetup are the errors of a --max-time that
// ran out before any draw.
func errMaxTimeMode(f *samplerFlags) error {
	return fmt.Errorf("--max-time %s ran out while looking for the posterior mode, before any draw: give more time", f.maxTime)
}

func errMaxTimeSetup(f *samplerFlags) error {
	return fmt.Errorf("--max-time %s ran out while the chains were set up, before any draw: give more time", f.maxTime)
}

// reportMaxTime says that --max-time ended sampling.
func reportMaxTime(io *stdio, j *job, res *subtemper.Result) {
	if !j.flags.quiet {
		made := plural.Count(minDraws(res), "draw", "draws") + " per chain"
		if j.flags.sampler == "importance" {
			made = plural.Count(minDraws(res), "weighted draw", "weighted draws")
		}
		fmt.Fprintf(io.err, "subtemper %s: --max-time %s reached: sampling stopped with %s; judging and keeping them\n",
			j.command, j.flags.maxTime, made)
	}
}

// samplingFailed is the error of a run whose sampler failed (the fit
// says why a chain cannot start, if one cannot), with the job's hint.
func samplingFailed(j *job, err error) error {
	if se := (*subtemper.StartError)(nil); errors.As(err, &se) && se.Prior {
		err = fmt.Errorf("%w (check --prior-sd and the data's scale)", err)
	}
	if j.startHint != "" {
		return fmt.Errorf("sampling failed: %w; %s", err, j.startHint)
	}
	return fmt.Errorf("sampling failed: %w", err)
}

// raiseProcs raises GOMAXPROCS to the number of chains, if below, and
// returns the function that restores it.
//
// Each chain runs locked to its own OS thread (tempering.Run, for its
// CPU clock). With fewer Go processors than chains, a chain back from
// a BLAS call waits until a processor is handed to its thread: 3
// chains on 2 cores kept only 1.5 of them busy (diabetes, 73.5 s wall
// against 59.0 s with a processor per chain). The draws do not depend
// on GOMAXPROCS.
func raiseProcs(chains int) func() {
	if runtime.GOMAXPROCS(0) < chains {
		old := runtime.GOMAXPROCS(chains)
		return func() { runtime.GOMAXPROCS(old) }
	}
	return func() {}
}

// finishJob summarises a sampled run, runs the command's own phase (j.done),
// writes the files and prints the summary. It returns errInterrupted
// (after writing everything) if ctx was cancelled.
func finishJob(ctx context.Context, io *stdio, j *job, sr sampled) error {
	f, res, pr := j.flags, sr.res, sr.pr
	chatty := !f.quiet
	wall, procCPU, timedOut := sr.wall, sr.procCPU, sr.timedOut
	if res.Interrupted && chatty {
		fmt.Fprintf(io.err, "subtemper %s: interrupted after %s: writing the draws made so far\n", j.command, wall.Round(time.Millisecond))
	}

	j.diag = newDiagCutter(ctx)
	sum, nat := summarize(j, res, wall, procCPU)
	sum.WarmStart = j.warm
	if timedOut {
		sum.StoppedByMaxTime = true
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("--max-time %s stopped sampling before --draws or the --min-ess rule did", f.maxTime))
	}
	j.diag.close()
	j.diag.finish(sum, res)
	if f.finalOut != "" {
		sum.Settings["out"] = f.finalOut
	}
	if j.extra != nil {
		if err := j.extra(sum); err != nil {
			return err
		}
	}
	derr := runDone(ctx, io, j, res, sum, pr)
	if beforeWrite != nil {
		beforeWrite()
	}
	// The summary goes to stdout even when writing the files fails, so
	// that a full disk does not lose the whole run.
	written, werr := writeFiles(ctx, io, j, res, nat, sum, pr)
	if f.json {
		if err := writeJSON(io.out, sum); err != nil {
			return errors.Join(werr, err)
		}
	} else {
		printRun(io.out, j, sum)
	}
	if chatty && len(written) > 0 {
		fmt.Fprintf(io.err, "subtemper %s: wrote %s\n", j.command, strings.Join(written, ", "))
	}
	if chatty && werr == nil {
		for _, n := range j.notes {
			fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, n)
		}
	}
	if werr != nil || derr != nil {
		return errors.Join(werr, derr)
	}
	if sum.InterruptedDuring == figuresPhase {
		return fmt.Errorf("%w while the figures were drawn: every other file is written whole, not every figure (summary.json's warnings name those drawn)", errInterrupted)
	}
	if res.Interrupted {
		return errInterrupted
	}
	if ctx.Err() != nil {
		// Ctrl-C after the sampling and the command's own phase, while
		// the files were written: they were written whole (the run is
		// complete, summary.json says so), and the exit code is that
		// of any interruption.
		return fmt.Errorf("%w while the files were written: the run is complete, every file written", errInterrupted)
	}
	return nil
}

// runDone runs the command's own phase (j.done: a GP's saved fit and
// predictions) after a run that was not interrupted. Its outputs go into
// the staging folder with the rest, so that they are put in place
// together. A Ctrl-C during it keeps the run, marked as interrupted
// during j.donePhase, with what was left out (j.doneCut).
func runDone(ctx context.Context, io *stdio, j *job, res *subtemper.Result, sum *runSummary, pr *progress) error {
	if j.done == nil || res.Interrupted {
		return nil
	}
	if pr != nil && j.doneShown != "" {
		fmt.Fprintf(io.err, "subtemper %s: %s…\n", j.command, j.doneShown)
	}
	err := j.done(res)
	if err != nil && ctx.Err() != nil {
		// The draws are complete and are kept, marked as interrupted,
		// with what was left out (doneCut, or what the error says when
		// the phase's outputs are written but not its figures); the exit
		// code is that of any interruption.
		cut := j.doneCut
		var fc *figuresCut
		if errors.As(err, &fc) {
			cut = fc.Error()
		}
		sum.Interrupted, res.Interrupted = true, true
		sum.InterruptedDuring = j.donePhase
		sum.Warnings = append(sum.Warnings, cut)
		return nil
	}
	return err
}

// writeFiles writes the run's files into the staging folder of --out
// (if given) and puts it in place, returning the paths written.
func writeFiles(ctx context.Context, io *stdio, j *job, res *subtemper.Result, nat [][][]float64, sum *runSummary, pr *progress) ([]string, error) {
	f := j.flags
	if f.out == "" {
		return nil, nil
	}
	if pr != nil {
		fmt.Fprintf(io.err, "subtemper %s: writing the files to %s…\n", j.command, f.finalOut)
	}
	written, err := writeOutputs(ctx, f.out, j, res, nat, sum, f.plots)
	if err != nil {
		return written, errors.New(strings.ReplaceAll(err.Error(), f.out, f.finalOut))
	}
	written, kept, err := commitOut(f, written, sum.Draws.Summarized == 0 && res.Interrupted)
	if kept && !f.quiet {
		fmt.Fprintf(io.err, "subtemper %s: interrupted before any draw was kept: %s keeps its earlier result; nothing written\n", j.command, f.finalOut)
	}
	return written, err
}

// naturalDraws converts res.Draws to natural units: [chain][draw][var].
func naturalDraws(j *job, res *subtemper.Result) [][][]float64 {
	nat := make([][][]float64, len(res.Draws))
	for c, ch := range res.Draws {
		nat[c] = make([][]float64, len(ch))
		for s, u := range ch {
			v := make([]float64, len(u))
			j.natural(v, u)
			nat[c][s] = v
		}
	}
	return nat
}

// kernelNames names the kernels for the start message: "HMC", or
// "HMC (MH above the target)".
func kernelNames(f *samplerFlags) string {
	k := strings.ToUpper(f.inner)
	if h := hotSummary(f); h != "" && h != strings.ToLower(f.inner) {
		k += " (" + strings.ToUpper(h) + " above the target)"
	}
	return k
}

// hotSummary names the kernel of the levels above the target, "" without
// tempering.
func hotSummary(f *samplerFlags) string {
	switch h := strings.ToLower(f.hot); {
	case strings.EqualFold(f.sampler, "none"):
		return ""
	case h == "same":
		return strings.ToLower(f.inner)
	default:
		return h
	}
}

// summarize builds the run summary: the library's Report (GPFit.Report
// for the gp command's fit, NewReport otherwise) with the command's
// flags, units, data description and warnings. It returns the draws in
// natural units too, [chain][draw][var].
func summarize(j *job, res *subtemper.Result, wall, procCPU time.Duration) (*runSummary, [][][]float64) {
	opt := subtemper.ReportOptions{Summarize: j.diag.summarizeChains}
	var s *runSummary
	if j.fit != nil && j.fit.Result == res {
		s, _ = j.fit.Report(opt) // no error: the fit holds res
	} else {
		s = subtemper.NewReport(subtemper.SampledRun{Result: res, Settings: *j.settings, Names: j.names, Natural: j.natural,
			Backend: j.backend, Wall: wall, ProcessCPU: procCPU}, opt)
	}
	s.Command = j.command
	s.Settings = flagValues(j.fs)
	if j.warm != nil {
		// The library's report knows whether importance sampling drew
		// from the proposal; the CLI's warm start adds the time estimate.
		if w := s.WarmStart; w != nil && w.Proposal != nil && w.Proposal.Used && j.warm.Proposal != nil {
			j.warm.Proposal.Used = true
		}
		s.WarmStart = j.warm
	}
	if j.units != "" {
		s.Units = j.units
	}
	maps.Copy(s.Data, j.data)
	j.data = s.Data
	s.Warnings = runWarnings(j, s)
	return s, naturalDraws(j, res)
}

// flagValues returns every flag's value (given or default), typed.
func flagValues(fs *flagSet) map[string]any {
	m := map[string]any{}
	fs.VisitAll(func(fl *flag.Flag) {
		if runOnly[fl.Name] && !fs.isSet(fl.Name) {
			return
		}
		if g, ok := fl.Value.(flag.Getter); ok {
			m[fl.Name] = g.Get()
		} else {
			m[fl.Name] = fl.Value.String()
		}
	})
	return m
}

// writeOutputs writes draws.csv, draws.nc, summary.json and (with plots) the
// figures into dir, and returns the paths written. Figures of an earlier
// run in dir that this run does not draw are removed, so that the folder
// never mixes runs. A cancellation of ctx stops the figures at once (the
// run is then marked as interrupted, with the figures drawn before it);
// the other files are written whole.
func writeOutputs(ctx context.Context, dir string, j *job, res *subtemper.Result, nat [][][]float64, sum *runSummary, plots bool) ([]string, error) {
	var written []string
	// The gp command's draws are its fit's (GPFit.WriteDrawsCSV and
	// WriteDrawsNetCDF); mvn's the library's writers' on its draws.
	writeCSV := func(w *bufio.Writer) error { return subtemper.WriteDrawsCSV(w, j.names, nat) }
	writeNC := func(w *bufio.Writer) error {
		return subtemper.WriteDrawsNetCDF(w, "subtemper "+j.command, j.names, nat)
	}
	if fit := j.fit; fit != nil && fit.Result == res {
		writeCSV = func(w *bufio.Writer) error { return fit.WriteDrawsCSV(w) }
		writeNC = func(w *bufio.Writer) error { return fit.WriteDrawsNetCDF(w) }
	}
	p := filepath.Join(dir, "draws.csv")
	if err := fileio.Write(p, writeCSV); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	p = filepath.Join(dir, "draws.nc")
	if err := fileio.Write(p, writeNC); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	var figs []string
	if plots {
		var err error
		figs, err = writePlots(ctx, dir, j, res, nat, sum)
		written = append(written, figs...)
		switch {
		case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
			figuresInterrupted(sum, res, figs)
		case err != nil:
			// The figures are extras: record the failure, keep going.
			sum.PlotError = err.Error()
		}
	}
	if err := removeStaleFigures(dir, figs); err != nil {
		return written, err
	}
	p = filepath.Join(dir, "summary.json")
	if err := writeJSONFile(p, sum); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	return written, nil
}

// samplerNotes closes the help of the sampling commands.
const samplerNotes = `Exit codes: 0 success, 1 run-time failure, 2 bad flag or bad input, 130 interrupted
(Ctrl-C: the draws made so far are written and marked "interrupted": true, with the
--plots figures drawn before it only; a second Ctrl-C kills at once).`

// parseNoArgs parses the flags of a sampling command, which takes no
// positional arguments.
func parseNoArgs(fs *flagSet, args []string, io *stdio) error {
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (the data file goes in --data)", pos[0])
	}
	return nil
}

// saveSynthetic writes a command's synthetic data with write to data.csv
// in the folder out, unless out is "", records the file in desc, and
// returns what the data's line says of it ("; written to PATH", or "").
func saveSynthetic(out string, desc map[string]any, write func(path string) error) (string, error) {
	if out == "" {
		return "", nil
	}
	p := filepath.Join(out, "data.csv")
	if err := write(p); err != nil {
		return "", err
	}
	desc["file"] = p
	return "; written to " + p, nil
}

// parseFlags makes a sampling command's flags and their flag set with
// newFlagSet and parses args into them with parseNoArgs.
func parseFlags[F any](newFlagSet func(*F) *flagSet, args []string, io *stdio) (*F, *flagSet, error) {
	f := new(F)
	fs := newFlagSet(f)
	if err := parseNoArgs(fs, args, io); err != nil {
		return nil, nil, err
	}
	return f, fs, nil
}
