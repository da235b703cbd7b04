package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/targets"
	"github.com/subtemper/subtemper/tempering"
)

// Defaults of the gp command's built-in synthetic dataset and run, chosen
// so that `subtemper gp` (README's main job) finishes in about half a minute on
// 2 cores with the pure-Go backend and converges (median R-hat < 1.1).
//
// Step-size adaptation is off by default: measured on this dataset, the
// adapted ε (acceptance ≈ 0.85 per level) makes STT's tempered transitions
// accept ≈ 2% of the time against ≈ 18% with the paper's ε = 0.01, L = 5,
// and the chains mix worse.
const (
	gpDefaultN        = 100
	gpDefaultDims     = 3
	gpDefaultWarmup   = 500
	gpDefaultDraws    = 2000
	gpDefaultAdapt    = false
	gpDefaultStep     = 0.01
	gpDefaultL        = 5
	gpDefaultDataSeed = 1
)

// gpFlags are the flags of the gp command.
type gpFlags struct {
	samplerFlags
	data, target string
	standardize  bool
	n, dims      int
	dataSeed     uint64
	jitter       float64
	predict      string // test CSV file to predict at
	predictDraws int
}

func gpFlagSet(f *gpFlags) *flagSet {
	fs := newFlagSet("subtemper gp", "subtemper gp [--data FILE.csv [--target COL] [--standardize]] [flags]",
		`Samples the hyperparameters θ = (ℓ_1..ℓ_D, σf, σn) of Gaussian-process regression with a
squared-exponential ARD kernel, in log space u = log θ, under the paper's priors
(ℓ_d ~ LogNormal(0.5, 1), σf ~ Gamma(4, 1), σn ~ Gamma(2, 2)).

Without --data it samples a built-in synthetic dataset drawn as the paper §4.2 does
(N = `+fmt.Sprint(gpDefaultN)+`, D = `+fmt.Sprint(gpDefaultDims)+` by default), writes it to --out as data.csv, and reports the θ it was
drawn from. The defaults (STT with HMC, as the paper recommends, with its
ε = 0.01, L = 5, no step-size adaptation) finish in about half a minute on 2 cores.

Prints a summary table in natural units (θ = exp(u); in the original units of the
data with --standardize); with --out writes draws.csv (long form: chain, draw,
ell_<input>..., sf, sn), summary.json and, with --plots, figures.`)
	fs.group("Data")
	fs.str(&f.data, "data", "", "CSV file: header row, one column per input and a target column; \"\" uses synthetic data")
	fs.str(&f.target, "target", "", "name of the target column in --data; \"\" means the last column")
	fs.boolean(&f.standardize, "standardize", false, "centre and scale inputs and target to unit sd before sampling (results are mapped back to the original units)")
	fs.float(&f.jitter, "jitter", 0, "constant added to the kernel matrix diagonal (on top of σn²) for numerical stability")
	fs.integer(&f.n, "n", gpDefaultN, "synthetic data: number of observations N")
	fs.integer(&f.dims, "dims", gpDefaultDims, "synthetic data: number of inputs D")
	fs.uint64(&f.dataSeed, "data-seed", gpDefaultDataSeed, "synthetic data: seed of the generator")
	fs.group("Predictions")
	fs.str(&f.predict, "predict", "", "CSV file of test inputs (columns named as the training inputs, any order; with the target column, held-out metrics too): writes predictions.csv (and predictions.json) to --out, or to the current folder without --out")
	fs.integer(&f.predictDraws, "predict-draws", 0, predictDrawsHelp)
	f.samplerFlags.define(fs, samplerDefaults{warmup: gpDefaultWarmup, draws: gpDefaultDraws, leapfrog: gpDefaultL, stepSize: gpDefaultStep, adapt: gpDefaultAdapt})
	fs.notes = samplerNotes
	return fs
}

// cmdGP is the gp command.
func cmdGP(ctx context.Context, args []string, io *stdio) error {
	var f gpFlags
	fs := gpFlagSet(&f)
	if err := parseNoArgs(fs, args, io); err != nil {
		return err
	}
	st, be, err := f.check()
	if err != nil {
		return err
	}
	if !(f.jitter >= 0) || math.IsInf(f.jitter, 0) {
		return usagef("--jitter must be ≥ 0 and finite, got %v", f.jitter)
	}
	synthetic := f.data == ""
	if synthetic {
		if fs.isSet("target") {
			return usagef("--target needs --data (the synthetic data's target is y)")
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
	if err := f.checkGPMemory(be); err != nil {
		return err
	}
	if err := f.prepareOut(); err != nil {
		return err
	}

	var data *gp.Data
	var trueTheta []float64
	desc := map[string]any{}
	var line string
	if synthetic {
		data, trueTheta, err = gp.SyntheticContext(ctx, f.n, f.dims, f.dataSeed, gp.Prior{})
		if err := checkInterrupted(ctx, "synthetic-data generation", err); errors.Is(err, errInterrupted) {
			return err
		}
		if err != nil {
			return usagef("synthetic data (--n %d --dims %d --data-seed %d): %v; try another --data-seed", f.n, f.dims, f.dataSeed, err)
		}
		desc["source"] = "synthetic"
		desc["data_seed"] = f.dataSeed
		desc["true_theta"] = trueTheta
		line = fmt.Sprintf("synthetic (paper §4.2 generator), N = %d, D = %d, data seed %d, drawn from θ = %s", data.N, data.D, f.dataSeed, fmtVec(trueTheta))
		if f.out != "" {
			p := filepath.Join(f.out, "data.csv")
			if err := gp.WriteCSVFile(p, data); err != nil {
				return errmsg.Trim(err, "gp: ")
			}
			desc["file"] = p
			line += "; written to " + p
		}
	} else {
		data, err = gp.ReadCSVFile(f.data, gp.CSVOptions{Target: f.target})
		if err != nil {
			return inputErr(err)
		}
		desc["source"] = "file"
		desc["file"] = f.data
		line = fmt.Sprintf("%s, N = %d %s, D = %d %s, target %q", f.data, data.N, plural.Word(data.N, "observation", "observations"),
			data.D, plural.Word(data.D, "input", "inputs"), data.TargetName())
	}
	desc["n"], desc["d"] = data.N, data.D
	inputs := make([]string, data.D)
	for j := range inputs {
		inputs[j] = data.InputName(j)
	}
	desc["inputs"], desc["target"] = inputs, data.TargetName()
	desc["standardized"] = f.standardize

	var std gp.Standardization
	fit := data
	units := "natural units θ = exp(u)"
	if f.standardize {
		fit, std, err = gp.StandardizeContext(ctx, data, true, true)
		if err := checkInterrupted(ctx, "standardisation", err); errors.Is(err, errInterrupted) {
			return err
		}
		if err != nil {
			return usageError{fmt.Errorf("--standardize: %w", errmsg.Trim(err, "gp: ", "standardize: "))}
		}
		desc["standardization"] = map[string]any{"x_mean": std.XMean, "x_sd": std.XSD, "y_mean": std.YMean, "y_sd": std.YSD}
		units += ", mapped back to the data's original units"
		line += "; standardised for sampling"
	}
	var test *subtemper.TestData
	if f.predict != "" {
		if test, err = readPredictInputs(f.predict, data); err != nil {
			return err
		}
	}
	if err := checkNonNegInt("predict-draws", f.predictDraws); err != nil {
		return err
	}
	m, err := interruptible(ctx, "the model's set-up", func() (*gp.Model, error) { return gp.New(be, fit, gp.Options{Jitter: f.jitter}) })
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return inputErr(err)
	}
	defer m.Close()

	names := make([]string, 0, data.D+2)
	for _, in := range inputs {
		names = append(names, "ell_"+in)
	}
	names = append(names, "sf", "sn")
	j := &job{
		command: "gp", fs: fs, flags: &f.samplerFlags, settings: st, target: targets.GP{Model: m}, backend: be.Name(),
		names: names, units: units, data: desc, dataLine: line,
		natural: func(dst, u []float64) {
			gp.Theta(dst, u)
			std.Original(dst, dst)
		},
	}
	gf := &subtemper.GPFit{Data: data, Std: std, Prior: m.Prior(), Jitter: f.jitter, Backend: be.Name(), Settings: *st}
	// The fit and the predictions are written after the run's files are in
	// place (j.done runs after commitOut): into --out, not its staging
	// folder, which is gone by then.
	outDir := f.out
	if f.finalOut != "" {
		outDir = f.finalOut
	}
	save := gpPredictDone(ctx, io, gf, outDir, flagValues(fs), test, f.predict, f.predictDraws, f.plots, f.quiet)
	j.done = func(res *tempering.Result) error { gf.Result = res; return save(res.Draws) }
	return runJob(ctx, io, j)
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
