package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg"
)

// evalOutput is `eval gp --json`'s output.
type evalOutput struct {
	LogMarginalLikelihood num   `json:"log_marginal_likelihood"`
	Gradient              []num `json:"gradient"`
	LogPrior              num   `json:"log_prior"`
	LogJacobian           num   `json:"log_jacobian"`
}

// evalGP evaluates the model at θ: the log marginal likelihood of all
// observations and its gradient with respect to u = log θ, the log prior
// density of u (which includes the log-Jacobian, as gp.Model.LogPrior
// does) and the log-Jacobian Σ log θ.
func evalGP(m *gp.Model, theta []float64) (*evalOutput, error) {
	u, err := gp.LogTheta(nil, theta)
	if err != nil {
		return nil, err
	}
	grad := make([]float64, len(u))
	ll, err := m.LogLik(nil, u, grad)
	if err != nil {
		return nil, err
	}
	out := &evalOutput{LogMarginalLikelihood: num(ll), Gradient: make([]num, len(grad)), LogPrior: num(m.LogPrior(u, nil))}
	for i, g := range grad {
		out.Gradient[i] = num(g)
	}
	var jac float64
	for _, v := range u {
		jac += v
	}
	out.LogJacobian = num(jac)
	return out, nil
}

// fmtFull formats a value of eval's table with 10 significant digits, or
// NA where --json writes null (NaN, ±Inf).
func fmtFull(v num) string { return fmtFloat(float64(v), 'g', 10) }

// cmdEval is the eval command.
func cmdEval(ctx context.Context, args []string, io *stdio) error {
	var (
		data, target, ls, backend string
		maxMemory                 string
		sf, sn, jitter            float64
		asJSON                    bool
		model                     gpModelFlags
	)
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
	fs.str(&data, "data", "", "CSV file: header row, input columns and a target column (required)")
	fs.str(&target, "target", "", "name of the target column; \"\" means the last column")
	fs.str(&ls, "lengthscales", "", "comma-separated length scales ℓ_1..ℓ_D, one per input column, each > 0 (required)")
	fs.float(&sf, "sf", 0, "signal standard deviation σf > 0 (required)")
	fs.float(&sn, "sn", 0, "noise standard deviation σn > 0 (required)")
	fs.float(&jitter, "jitter", 0, "constant added to the kernel matrix diagonal on top of σn²")
	fs.str(&backend, "backend", linalg.DefaultName, "linear-algebra backend: "+strings.Join(linalg.Names(), ", ")+" (compiled into this binary)")
	fs.boolean(&asJSON, "json", false, "print JSON instead of a table")
	fs.str(&maxMemory, "max-memory", "", maxMemoryHelp)
	model.define(fs)
	fs.notes = "Exit codes: 0 success, 1 the kernel matrix is not positive definite at θ, 2 bad flag or bad input."
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "gp" {
		return usagef("want the model as the one argument: subtemper eval gp --data FILE.csv ... (only gp can be evaluated)")
	}
	if data == "" {
		return usagef("--data FILE.csv is required")
	}
	if !fs.isSet("lengthscales") {
		return usagef("--lengthscales l1,...,lD is required")
	}
	for _, n := range []string{"sf", "sn"} {
		if !fs.isSet(n) {
			return usagef("--%s is required", n)
		}
	}
	ell, err := parseFloatList("lengthscales", ls)
	if err != nil {
		return err
	}
	for i, l := range ell {
		if !(l > 0) || math.IsInf(l, 0) {
			return usagef("--lengthscales: item %d is %v; length scales must be positive and finite", i+1, l)
		}
	}
	if err := checkPositive("sf", sf); err != nil {
		return err
	}
	if err := checkPositive("sn", sn); err != nil {
		return err
	}
	if !(jitter >= 0) || math.IsInf(jitter, 0) {
		return usagef("--jitter must be ≥ 0 and finite, got %v", jitter)
	}
	be, err := linalg.Get(backend)
	if err != nil {
		return usagef("--backend %q is not compiled into this binary (available: %s)", backend, strings.Join(linalg.Names(), ", "))
	}
	prior, err := model.prior()
	if err != nil {
		return err
	}
	kern, err := model.kernelFamily()
	if err != nil {
		return err
	}
	copt, err := model.csvOptions(target)
	if err != nil {
		return err
	}
	d, err := readInput(ctx, "--data", data, maxMemory, 1, func(r *fileio.Reader) (*gp.Data, error) { return gp.ReadCSV(r, data, copt) })
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return inputErr(err)
	}
	if err := checkEvalMemory(data, maxMemory, be, d); err != nil {
		return err
	}
	if len(ell) != d.D {
		names := make([]string, d.D)
		for j := range names {
			names[j] = d.InputName(j)
		}
		return usagef("--lengthscales has %s but %s has %s (%s)", plural.Count(len(ell), "value", "values"), data,
			plural.Count(d.D, "input column", "input columns"), strings.Join(names, ", "))
	}
	m, err := gp.New(be, d, gp.Options{Jitter: jitter, Prior: prior, Kernel: kern})
	if err != nil {
		return inputErr(err)
	}
	defer m.Close()
	theta := append(append([]float64(nil), ell...), sf, sn)
	out, err := evalGP(m, theta)
	if err != nil {
		if note := scaleNote(d); note != "" {
			return fmt.Errorf("%w; %s: rescale the data (gp --standardize does so for sampling)", err, note)
		}
		return err
	}
	if asJSON {
		return writeJSON(io.out, out)
	}
	fmt.Fprintf(io.out, "GP on %s: N = %d, D = %d, target %q, θ = %s\n\n", data, d.N, d.D, d.TargetName(), fmtVec(theta))
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "log marginal likelihood\t%s\n", fmtFull(out.LogMarginalLikelihood))
	fmt.Fprintf(tw, "log prior of u = log θ (incl. Jacobian)\t%s\n", fmtFull(out.LogPrior))
	fmt.Fprintf(tw, "log Jacobian Σ log θ\t%s\n", fmtFull(out.LogJacobian))
	tw.Flush()
	fmt.Fprintln(io.out, "\ngradient of the log marginal likelihood:")
	tw = tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
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
