package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// evalOutput is `eval gp --json`'s output.
type evalOutput struct {
	LogMarginalLikelihood num   `json:"log_marginal_likelihood"`
	Gradient              []num `json:"gradient"`
	LogPrior              num   `json:"log_prior"`
	LogJacobian           num   `json:"log_jacobian"`
}

// newEvalOutput is `eval gp --json`'s output of the evaluation ev.
func newEvalOutput(ev *subtemper.GPEval) *evalOutput {
	out := &evalOutput{LogMarginalLikelihood: num(ev.LogMarginalLikelihood), Gradient: make([]num, len(ev.Gradient)),
		LogPrior: num(ev.LogPrior), LogJacobian: num(ev.LogJacobian)}
	for i, g := range ev.Gradient {
		out.Gradient[i] = num(g)
	}
	return out
}

// fmtFull formats a value of eval's table with 10 significant digits, or
// NA where --json writes null (NaN, ±Inf).
func fmtFull(v num) string { return fmtFloat(float64(v), 'g', 10) }

// evalFlags are the eval command's flags.
type evalFlags struct {
	data, target, ls, backend string
	maxMemory                 string
	sf, sn, jitter            float64
	asJSON                    bool
	model                     gpModelFlags
}

// evalFlagSet is the eval command's flag set, parsing into f.
func evalFlagSet(f *evalFlags) *flagSet {
	fs := newFlagSet("subtemper eval", "subtemper eval gp --data FILE.csv [--target COL] --lengthscales l1,...,lD --sf S --sn N [--json]",
		`Evaluates a Gaussian-process regression model at θ = (ℓ_1..ℓ_D, σf, σn), in the data's
units (no standardisation):

  log_marginal_likelihood  log N(y | 0, K + σn²·I) over all observations
  gradient                 its gradient with respect to (log ℓ_1..log ℓ_D, log σf, log σn)
  log_prior                log density of u = log θ under the priors (the paper's by
                           default; --prior-ell, --prior-sf, --prior-sn); it INCLUDES
                           the log-Jacobian (as gp.Model.LogPrior, the density the sampler uses)
  log_jacobian             the log-Jacobian Σ log θ of θ = exp(u), so that log_prior −
                           log_jacobian is the log prior density of θ itself

--json prints {"log_marginal_likelihood": x, "gradient": [...], "log_prior": x,
"log_jacobian": x}.`)
	fs.str(&f.data, "data", "", "CSV file: header row, input columns and a target column (required)")
	fs.str(&f.target, "target", "", "name of the target column; \"\" means the last column")
	fs.str(&f.ls, "lengthscales", "", "comma-separated length scales ℓ_1..ℓ_D, one per input column, each > 0 (required)")
	fs.float(&f.sf, "sf", 0, "signal standard deviation σf > 0 (required)")
	fs.float(&f.sn, "sn", 0, "noise standard deviation σn > 0 (required)")
	fs.float(&f.jitter, "jitter", 0, "constant added to the kernel matrix diagonal on top of σn²")
	defineEvalBackend(fs, &f.backend)
	fs.boolean(&f.asJSON, "json", false, "print JSON instead of a table")
	fs.str(&f.maxMemory, "max-memory", "", maxMemoryHelp)
	f.model.define(fs)
	fs.notes = "Exit codes: 0 success, 1 the kernel matrix is not positive definite at θ, 2 bad flag or bad input."
	return fs
}

// cmdEval is the eval command.
func cmdEval(ctx context.Context, args []string, io *stdio) error {
	var f evalFlags
	fs := evalFlagSet(&f)
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "gp" {
		return usagef("want the model as the one argument: subtemper eval gp --data FILE.csv ... (only gp can be evaluated)")
	}
	ell, err := f.check(fs)
	if err != nil {
		return err
	}
	opt, err := f.modelOptions()
	if err != nil {
		return err
	}
	d, err := f.readData(ctx, len(ell))
	if err != nil {
		return err
	}
	theta := append(append([]float64(nil), ell...), f.sf, f.sn)
	ev, err := subtemper.EvalGP(d, theta, opt)
	if me := (*subtemper.ModelError)(nil); errors.As(err, &me) {
		return inputErr(err)
	}
	if err != nil {
		if note := scaleNote(d); note != "" {
			return fmt.Errorf("%w; %s: rescale the data (gp --standardize does so for sampling)", err, note)
		}
		return err
	}
	out := newEvalOutput(ev)
	if f.asJSON {
		return writeJSON(io.out, out)
	}
	return printEval(io.out, f.data, d, theta, out)
}

// check checks the flags that give θ and the backend, and returns the
// length scales.
func (f *evalFlags) check(fs *flagSet) ([]float64, error) {
	if f.data == "" {
		return nil, usagef("--data FILE.csv is required")
	}
	if !fs.isSet("lengthscales") {
		return nil, usagef("--lengthscales l1,...,lD is required")
	}
	for _, n := range []string{"sf", "sn"} {
		if !fs.isSet(n) {
			return nil, usagef("--%s is required", n)
		}
	}
	ell, err := parseFloatList("lengthscales", f.ls)
	if err != nil {
		return nil, err
	}
	for i, l := range ell {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, usagef("--lengthscales: item %d is %v; length scales must be positive and finite", i+1, l)
		}
	}
	if err := checkPositive("sf", f.sf); err != nil {
		return nil, err
	}
	if err := checkPositive("sn", f.sn); err != nil {
		return nil, err
	}
	if !(f.jitter >= 0) || math.IsInf(f.jitter, 0) {
		return nil, usagef("--jitter must be ≥ 0 and finite, got %v", f.jitter)
	}
	if err := checkBackend(f.backend); err != nil {
		return nil, err
	}
	return ell, nil
}

// modelOptions returns the model's backend, jitter, prior and kernel.
func (f *evalFlags) modelOptions() (subtemper.GPEvalOptions, error) {
	prior, err := f.model.prior()
	if err != nil {
		return subtemper.GPEvalOptions{}, err
	}
	kern, err := f.model.kernelFamily()
	if err != nil {
		return subtemper.GPEvalOptions{}, err
	}
	return subtemper.GPEvalOptions{Backend: f.backend, Jitter: f.jitter, Prior: prior, Kernel: kern}, nil
}

// readData reads --data, checking the memory the model takes on the
// backend and that the data have nell inputs, one per length scale.
func (f *evalFlags) readData(ctx context.Context, nell int) (*subtemper.GPData, error) {
	copt, err := f.model.csvOptions(f.target)
	if err != nil {
		return nil, err
	}
	d, err := readInput(ctx, "--data", f.data, f.maxMemory, 1, func(r *fileio.Reader) (*subtemper.GPData, error) {
		d, _, err := subtemper.ReadGPData(r, f.data, copt)
		return d, err
	})
	if errors.Is(err, errInterrupted) {
		return nil, err
	}
	if err != nil {
		return nil, inputErr(err)
	}
	if err := checkEvalMemory(f.data, f.maxMemory, f.backend, d); err != nil {
		return nil, err
	}
	if nell != d.D {
		names := make([]string, d.D)
		for j := range names {
			names[j] = d.InputName(j)
		}
		return nil, usagef("--lengthscales has %s but %s has %s (%s)", plural.Count(nell, "value", "values"), f.data,
			plural.Count(d.D, "input column", "input columns"), strings.Join(names, ", "))
	}
	return d, nil
}

// printEval prints eval's table of out, the evaluation at theta of the
// model of d, read from the file data.
func printEval(w io.Writer, data string, d *subtemper.GPData, theta []float64, out *evalOutput) error {
	fmt.Fprintf(w, "GP on %s: N = %d, D = %d, target %q, θ = %s\n\n", data, d.N, d.D, d.TargetName(), fmtVec(theta))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "log marginal likelihood\t%s\n", fmtFull(out.LogMarginalLikelihood))
	fmt.Fprintf(tw, "log prior of u = log θ (incl. Jacobian)\t%s\n", fmtFull(out.LogPrior))
	fmt.Fprintf(tw, "log Jacobian Σ log θ\t%s\n", fmtFull(out.LogJacobian))
	tw.Flush()
	fmt.Fprintln(w, "\ngradient of the log marginal likelihood:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for j, g := range out.Gradient {
		name := "log σf"
		switch {
		case j < d.D:
			name = "log ℓ_" + d.InputName(j)
		case j == d.D+1:
			name = "log σn"
		}
		fmt.Fprintf(tw, "  ∂/∂ %s\t%s\n", name, fmtFull(g))
	}
	return tw.Flush()
}
