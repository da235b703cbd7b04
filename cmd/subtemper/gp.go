package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// Defaults of the gp command's built-in synthetic dataset, and the
// settings --paper restores: the paper's ε = 0.01 and L = 5 with 500
// warm-up iterations and 2000 draws.
const (
	gpDefaultN        = 100
	gpDefaultDims     = 3
	gpPaperWarmup     = 500
	gpPaperDraws      = 2000
	gpPaperL          = 5
	gpDefaultDataSeed = 1
)

// gpFlags are the flags of the gp command.
type gpFlags struct {
	samplerFlags
	model        gpModelFlags
	data, target string
	standardize  bool
	n, dims      int
	dataSeed     uint64
	jitter       float64
	predict      string // test CSV file to predict at
	predictDraws int
	mapOnly      bool // --map: the posterior mode only, no sampling
	importance   string
	mc           modelChoiceFlags
	ck           ckptFlags
}

func gpFlagSet(f *gpFlags) *flagSet {
	fs := newFlagSet("subtemper gp", "subtemper gp [--data FILE.csv [--target COL] [--standardize]] [flags]",
		`Samples the hyperparameters θ = (ℓ_1..ℓ_D, σf, σn) of Gaussian-process regression with an
ARD kernel (--kernel: the squared exponential by default, or Matérn 1/2, 3/2, 5/2), in log
space u = log θ, under the paper's priors by default
(ℓ_d ~ LogNormal(0.5, 1), σf ~ Gamma(4, rate 1), σn ~ Gamma(2, rate 2); set them with
--prior-ell, --prior-sf and --prior-sn, in the units of the data as sampled: standardised
ones with --standardize).

Without --data it samples a built-in synthetic dataset drawn as the paper §4.2 does
(N = `+fmt.Sprint(gpDefaultN)+`, D = `+fmt.Sprint(gpDefaultDims)+` by default), writes it to --out as data.csv, and reports the θ it was
drawn from. The defaults tune themselves during warm-up: `+defaultSampler+` with `+defaultInner+` at the
target level and `+defaultHot+` above it, the step size (mh: the scale) and a diagonal metric
adapted per level, the ladder placed by the adaptive schedule, DEO swaps
(docs/ADAPTATION.md says why); --paper gives the paper's settings. From N = `+fmt.Sprint(subtemper.WarmStartMinN)+`
(--warm-start) it starts from the posterior mode and, on one mode, samples by importance
sampling from a Student-t fitted there instead of by chains (--importance; docs/LARGE.md).
A line on stderr follows each step of the search and each round of the t's fit, with a bound
on the time the fit still takes, and each batch of draws, with the time left (--quiet: none).

Prints a summary table in natural units (θ = exp(u); in the original units of the
data with --standardize); with --out writes draws.csv (long form: .chain, .iteration, .draw
as R posterior's as_draws_df reads them, then ell_<input>..., sf, sn, and for importance
sampling the log weights, .log_weight), the same draws in draws.nc (netCDF:
dimensions chain and draw, as ArviZ names them; xarray.open_dataset reads it; resampled
to equal weights after importance sampling), summary.json and, with --plots, figures.`)
	fs.group("Data")
	fs.str(&f.data, "data", "", "CSV file: header row, one column per input and a target column; \"\" uses synthetic data")
	fs.str(&f.target, "target", "", "name of the target column in --data; \"\" means the last column")
	fs.boolean(&f.standardize, "standardize", false, "centre and scale inputs and target to unit sd before sampling (results are mapped back to the original units)")
	fs.float(&f.jitter, "jitter", 0, "constant added to the kernel matrix diagonal (on top of σn²) for numerical stability")
	fs.integer(&f.n, "n", gpDefaultN, "synthetic data: number of observations N")
	fs.integer(&f.dims, "dims", gpDefaultDims, "synthetic data: number of inputs D")
	fs.uint64(&f.dataSeed, "data-seed", gpDefaultDataSeed, "synthetic data: seed of the generator")
	f.model.define(fs)
	fs.group("Predictions")
	fs.str(&f.predict, "predict", "", "CSV file of test inputs (columns named as the training inputs, any order; with the target column, held-out metrics too): writes predictions.csv (and predictions.json) to --out, or to the current folder without --out")
	fs.integer(&f.predictDraws, "predict-draws", 0, predictDrawsHelp)
	f.mc.define(fs)
	fs.group("Point estimate")
	fs.boolean(&f.mapOnly, "map", false, "no sampling: find the posterior mode θ_MAP (L-BFGS on nested subsets of the data, several starts, as --warm-start does), print it with the Laplace approximation's 90% intervals, write map.json and a fit of the one point θ_MAP to --out, and predict with it (--predict): scikit-learn's point estimate, with the prior")
	f.samplerFlags.define(fs, samplerDefaults{warmup: gpPaperWarmup, draws: gpPaperDraws, leapfrog: gpPaperL})
	fs.group("Importance sampling")
	fs.str(&f.importance, "importance", "auto", importanceHelp)
	f.ck.define(fs)
	fs.notes = samplerNotes
	return fs
}

// cmdGP is the gp command: flags → subtemper.GPOptions → FitGP → the
// fit's report, draws, saved fit and predictions.
func cmdGP(ctx context.Context, args []string, io *stdio) error {
	f, fs, err := parseFlags(gpFlagSet, args, io)
	if err != nil {
		return err
	}
	if f.ck.resume == "" {
		return runGP(ctx, io, fs, f)
	}
	args, cp, err := f.ck.resumeArgs(fs)
	if err != nil {
		return err
	}
	g, fs, err := parseFlags(gpFlagSet, args, io)
	if err != nil {
		return fmt.Errorf("--resume %s: the checkpoint's flags: %w", f.ck.resume, err)
	}
	g.ck.cp = cp
	return runGP(ctx, io, fs, g)
}

// runGP runs the gp command with the flags f parsed by fs.
func runGP(ctx context.Context, io *stdio, fs *flagSet, f *gpFlags) error {
	st, be, err := f.check()
	if err != nil {
		return err
	}
	if !(f.jitter >= 0) || math.IsInf(f.jitter, 0) {
		return usagef("--jitter must be ≥ 0 and finite, got %v", f.jitter)
	}
	prior, err := f.model.prior()
	if err != nil {
		return err
	}
	kern, err := f.model.kernelFamily()
	if err != nil {
		return err
	}
	csvOpt, err := f.model.csvOptions(f.target)
	if err != nil {
		return err
	}
	if err := f.checkSource(fs); err != nil {
		return err
	}
	// --out first, so that a bad one fails before the data are read (and
	// stale staging folders of killed runs are removed by any run).
	if err := f.prepareOut(); err != nil {
		return err
	}
	data, desc, line, err := f.loadData(ctx, be.Name(), csvOpt, prior, kern)
	if err != nil {
		return err
	}
	if err := f.ck.prepare(fs, f.finalOut, data, be.Name()); err != nil {
		return err
	}
	opt := subtemper.GPOptions{Backend: be.Name(), Standardize: f.standardize, Prior: prior, Jitter: f.jitter, Kernel: kern, MAP: f.mapOnly}
	j, save, err := f.newJob(ctx, io, fs, st, be.Name(), data, desc, line)
	if err != nil {
		return err
	}
	warm, werr := f.ck.resumedWarm()
	if werr != nil && !f.quiet {
		fmt.Fprintf(io.err, "subtemper gp: warm start: the checkpoint's cannot be read (%v): looking for the mode again\n", errmsg.Trim(werr, "subtemper: "))
	}
	opt.Warm = warm
	if opt.Importance, err = f.importanceMode(fs, data.N); err != nil {
		return err
	}
	if f.mapOnly {
		return runMAP(ctx, io, j, data, opt, save)
	}
	j.ckpt = &f.ck
	if err := f.mc.apply(ctx, j, st, f.out); err != nil {
		return err
	}
	return fitJob(ctx, io, j, data, opt)
}

// checkSource checks the flags of the data's source: synthetic data's
// without --data, none of them with it.
func (f *gpFlags) checkSource(fs *flagSet) error {
	if f.data == "" {
		if fs.isSet("target") {
			return usagef("--target needs --data (the synthetic data's target is y)")
		}
		for _, name := range []string{"inputs", "exclude"} {
			if fs.isSet(name) {
				return usagef("--%s needs --data (the synthetic data use every input)", name)
			}
		}
		if err := checkPositiveInt("n", f.n); err != nil {
			return err
		}
		if f.n < 2 {
			return usagef("--n must be at least 2, got %d", f.n)
		}
		if err := checkPositiveInt("dims", f.dims); err != nil {
			return err
		}
	} else {
		for _, name := range []string{"n", "dims", "data-seed"} {
			if fs.isSet(name) {
				return usagef("--%s is for synthetic data and cannot be combined with --data", name)
			}
		}
	}
	return nil
}

// loadData reads --data (or draws the synthetic data, written to --out as
// data.csv) and describes them: for summary.json (the source; the rest is
// the fit's GPFit.DataReport) and in one line for humans.
func (f *gpFlags) loadData(ctx context.Context, backend string, csvOpt subtemper.GPDataOptions, prior subtemper.GPPrior, kern subtemper.GPKernel) (*subtemper.GPData, map[string]any, string, error) {
	if f.data == "" {
		if err := f.checkGPMemory(backend, nil); err != nil {
			return nil, nil, "", err
		}
		return f.syntheticData(ctx)
	}
	var csvInfo subtemper.GPDataInfo
	data, err := readInput(ctx, "--data", f.data, f.maxMemory, 1, func(r *fileio.Reader) (*subtemper.GPData, error) {
		d, info, err := subtemper.ReadGPData(r, f.data, csvOpt)
		csvInfo = info
		return d, err
	})
	if errors.Is(err, errInterrupted) {
		return nil, nil, "", err
	}
	if err != nil {
		return nil, nil, "", inputErr(err)
	}
	if err := f.checkGPMemory(backend, data); err != nil {
		return nil, nil, "", err
	}
	desc := map[string]any{"source": "file", "file": f.data}
	line := fmt.Sprintf("%s, N = %d %s, D = %d %s, target %q", f.data, data.N, plural.Word(data.N, "observation", "observations"),
		data.D, plural.Word(data.D, "input", "inputs"), data.TargetName())
	if f.model.dropNA {
		desc["rows_dropped_na"] = csvInfo.Dropped
		line += fmt.Sprintf(" (--drop-na dropped %s with missing values%s)", plural.Count(csvInfo.Dropped, "row", "rows"), linesList(csvInfo))
	}
	inputs := make([]string, data.D)
	for j := range inputs {
		inputs[j] = data.InputName(j)
	}
	if len(csvOpt.Inputs) > 0 {
		desc["inputs_chosen"] = "--inputs"
	}
	if len(csvOpt.Exclude) > 0 {
		desc["inputs_excluded"] = csvOpt.Exclude
	}
	if len(csvOpt.Inputs)+len(csvOpt.Exclude) > 0 {
		line += "; inputs " + strings.Join(inputs, ", ")
	}
	return data, desc, line + modelLine(kern, prior), nil
}

// syntheticData draws the built-in synthetic data (the paper's §4.2
// generator), writes them to --out as data.csv, and describes them.
func (f *gpFlags) syntheticData(ctx context.Context) (*subtemper.GPData, map[string]any, string, error) {
	data, trueTheta, err := subtemper.SyntheticGPData(ctx, f.n, f.dims, f.dataSeed)
	if err := checkInterrupted(ctx, "synthetic-data generation", err); errors.Is(err, errInterrupted) {
		return nil, nil, "", err
	}
	if err != nil {
		return nil, nil, "", usagef("synthetic data (--n %d --dims %d --data-seed %d): %v; try another --data-seed", f.n, f.dims, f.dataSeed, err)
	}
	desc := map[string]any{"source": "synthetic", "data_seed": f.dataSeed, "true_theta": trueTheta}
	line := fmt.Sprintf("synthetic (paper §4.2 generator), N = %d, D = %d, data seed %d, drawn from θ = %s", data.N, data.D, f.dataSeed, fmtVec(trueTheta))
	written, err := saveSynthetic(f.out, desc, func(p string) error { return errmsg.Trim(subtemper.WriteGPData(p, data), "gp: ") })
	if err != nil {
		return nil, nil, "", err
	}
	return data, desc, line + written, nil
}

// newJob assembles the gp command's job: names, units, the done hook that
// saves the fit and predicts (also returned), the messages of an
// interrupted prediction.
func (f *gpFlags) newJob(ctx context.Context, io *stdio, fs *flagSet, st *subtemper.Settings, backend string, data *subtemper.GPData, desc map[string]any, line string) (*job, func([][][]float64) error, error) {
	inputs := make([]string, data.D)
	for j := range inputs {
		inputs[j] = data.InputName(j)
	}
	units := "natural units θ = exp(u)"
	if f.standardize {
		units += ", mapped back to the data's original units"
		line += "; standardised for sampling"
	}
	var test *subtemper.TestData
	if f.predict != "" {
		var err error
		if test, err = readPredictInputs(ctx, f.predict, f.maxMemory, data, f.model.dropNA); err != nil {
			return nil, nil, err
		}
	}
	if err := checkNonNegInt("predict-draws", f.predictDraws); err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, data.D+2)
	for _, in := range inputs {
		names = append(names, "ell_"+in)
	}
	names = append(names, "sf", "sn")
	j := &job{
		command: "gp", fs: fs, flags: &f.samplerFlags, settings: st, backend: backend, nObs: data.N,
		names: names, units: units, data: desc, dataLine: line,
	}
	flags := flagValues(fs)
	if f.finalOut != "" {
		flags["out"] = f.finalOut
	}
	save := gpPredictDone(ctx, io, j, f.out, f.finalOut, flags, test, f.predict, f.predictDraws, f.plots, f.quiet, &j.notes)
	if note := scaleNote(data); note != "" && !f.standardize {
		j.startHint = note + ": --standardize rescales every column to mean 0 and SD 1 for sampling (the results stay in the data's units)"
	}
	j.donePhase = "prediction"
	if test != nil {
		j.doneShown = fmt.Sprintf("prediction at %s", plural.Count(test.N, "test point", "test points"))
	}
	if f.finalOut != "" {
		j.doneCut = fmt.Sprintf("interrupted during the prediction: every draw was made and the fit saved, but no predictions were written; `subtemper predict --fit %s --data %s` makes them", f.finalOut, f.predict)
	} else {
		j.doneCut = "interrupted during the prediction: every draw was made, but no predictions were written; run again with --out DIR to keep the fit, then `subtemper predict --fit DIR` makes them"
	}
	j.done = func(res *subtemper.Result) error { return save(res.Draws) }
	return j, save, nil
}

// linesList lists the lines of the rows --drop-na dropped: ": lines 6,
// 7, …" ("" if none).
func linesList(info subtemper.GPDataInfo) string {
	if info.Dropped == 0 {
		return ""
	}
	s := make([]string, len(info.DroppedLines))
	for i, l := range info.DroppedLines {
		s[i] = fmt.Sprint(l)
	}
	more := ""
	if info.Dropped > len(info.DroppedLines) {
		more = ", …"
	}
	return ": " + plural.Word(info.Dropped, "line", "lines") + " " + strings.Join(s, ", ") + more
}

// fmtVec formats a short vector with 4 significant digits.
func fmtVec(v []float64) string {
	s := "("
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmtNum(x)
	}
	return s + ")"
}
