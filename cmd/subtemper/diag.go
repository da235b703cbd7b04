package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// diagOutput is `diag --json`'s output.
type diagOutput struct {
	// Converged and Verdict: every R-hat < 1.01 and bulk- and tail-ESS
	// ≥ 100 per chain (subtemper.Diagnose).
	Converged bool           `json:"converged"`
	Verdict   string         `json:"verdict"`
	Variables []variableJSON `json:"variables"`
}

// cmdDiag is the diag command.
func cmdDiag(ctx context.Context, args []string, io *stdio) error {
	var asJSON, truncate bool
	fs := newFlagSet("subtemper diag", "subtemper diag FILE.csv|FILE.nc [--json] [--truncate]",
		`Convergence diagnostics of MCMC draws in long CSV form: a header row with label
columns .chain, .iteration, .draw (R posterior's draws_df names, what subtemper writes
in draws.csv) or chain and draw (the older form), integer labels, and one column per
variable, one row per draw. FILE "-" reads
stdin. Lines starting with # are comments; NA, NaN, Inf and -Inf are accepted.
A FILE ending in .nc is read as netCDF-3 (classic or 64-bit offset, what subtemper
writes in draws.nc and xarray's to_netcdf(format="NETCDF3_64BIT") writes): every
double variable over the dimensions (chain, draw) is a variable.

Prints, per variable, posterior::summarise_draws' columns (mean, median, sd, mad, q5,
q95, rhat = max(rhat_bulk, rhat_tail), ess_bulk, ess_tail; Vehtari et al. 2021) and the
paper's R-hat (eq. 8) and ESS (eq. 9), then the verdict: converged when every
variable's R-hat < 1.01 and bulk- and tail-ESS ≥ 100 per chain. A CSV column
.log_weight (R posterior's name, what an importance-sampled gp fit writes) holds log
weights: the summary then weighs the draws of every chain pooled, the R-hats are NA,
and the verdict is importance sampling's: the weights' Pareto k̂ ≤ 0.7 and every bulk-
and tail-ESS ≥ 400. --json prints
{"converged", "verdict", "variables": [{"name", "mean", "median", "sd", "mad", "q5", "q95", "rhat", "rhat_bulk",
"rhat_tail", "ess_bulk", "ess_tail", "ess_mean", "mcse_mean", "rhat_paper",
"ess_paper"}, ...]}.

A value that cannot be estimated or is not finite is null in the JSON and NA in
the table: for instance R-hat and ESS of chains too short or holding NaN, a mean
or sd of draws holding Inf, and an R-hat of +Inf (every chain constant, but the
chains not all equal), which JSON cannot write.`)
	fs.boolean(&asJSON, "json", false, "print JSON instead of a table")
	fs.boolean(&truncate, "truncate", false, "cut every chain to the shortest chain's length instead of refusing chains of unequal length (an interrupted run's draws.csv)")
	fs.notes = "Exit codes: 0 success, 2 bad usage or a malformed file (the message names its line and column)."
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one FILE.csv or FILE.nc argument (or - for stdin), got %d (run `subtemper diag --help`)", len(pos))
	}
	var d *subtemper.Draws
	label := pos[0]
	if strings.HasSuffix(pos[0], ".nc") {
		d, err = readInput(ctx, "the draws file", pos[0], "", 2, func(r *fileio.Reader) (*subtemper.Draws, error) { return subtemper.ReadDrawsNetCDF(r, pos[0]) })
	} else if pos[0] == "-" {
		label = "<stdin>"
		d, err = subtemper.ReadDrawsCSV(io.in, label, truncate)
	} else {
		d, err = readInput(ctx, "the draws file", pos[0], "", 2, func(r *fileio.Reader) (*subtemper.Draws, error) {
			return subtemper.ReadDrawsCSV(r, pos[0], truncate)
		})
	}
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return inputErr(err)
	}
	sums, v, err := subtemper.Diagnose(d)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", label, errmsg.Trim(err, "diag: "))}
	}
	out := diagOutput{Converged: v.Converged, Verdict: v.String(), Variables: make([]variableJSON, len(sums))}
	for i, s := range sums {
		out.Variables[i] = newVariableJSON(s)
	}
	if asJSON {
		return writeJSON(io.out, out)
	}
	n := 0
	if len(d.Values) > 0 && len(d.Values[0]) > 0 {
		n = len(d.Values[0][0])
	}
	fmt.Fprintf(io.out, "%s: %s × %s, %s\n\n", label, plural.Count(len(d.Chains), "chain", "chains"),
		plural.Count(n, "draw", "draws"), plural.Count(len(d.Names), "variable", "variables"))
	printSummaryTable(io.out, out.Variables, false)
	fmt.Fprintf(io.out, "\n%s\n", out.Verdict)
	return nil
}
