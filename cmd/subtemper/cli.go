package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes.
const (
	exitOK          = 0   // success
	exitFailure     = 1   // run-time failure
	exitUsage       = 2   // bad usage or bad input
	exitInterrupted = 130 // interrupted by a signal; what was drawn has been written
)

// stdio is what a command reads and writes; tests replace it.
type stdio struct {
	in            io.Reader
	out, err      io.Writer
	errIsTerminal bool // stderr is a terminal: progress bars by default
}

// usageError marks a bad flag, argument or input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, io *stdio) error
}

func commands() []command {
	return []command{
		{"gp", "sample a Gaussian process's hyperparameters (CSV data or built-in synthetic data)", cmdGP},
		{"mvn", "sample a multivariate normal's mean (CSV data or synthetic data)", cmdMVN},
		{"predict", "predict at new inputs from a fit saved by `gp --out DIR` (posterior-averaged GP predictive)", cmdPredict},
		{"compare", "compare fits side by side: log evidence, elpd_loo, held-out metrics, with standard errors", cmdCompare},
		{"diag", "convergence diagnostics (R-hat, ESS) of draws in long CSV form", cmdDiag},
		{"eval", "evaluate a GP's log marginal likelihood, gradient and log prior", cmdEval},
		{"reproduce", "run the paper's experiment grid (runtime, ess, convergence)", cmdReproduce},
		{"merge", "merge the shards of a sharded `reproduce` run", cmdMerge},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "subtemper — tempering by subsampling: parallel tempering and tempered transitions")
	fmt.Fprintln(w, "whose hot levels condition on subsamples of the data.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: subtemper <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `subtemper <command> --help` for a command's flags and defaults.")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 run-time failure, 2 bad usage or bad input,")
	fmt.Fprintln(w, "130 interrupted (the draws made so far are written and marked interrupted).")
}

// run dispatches args to a command and maps its error to an exit code.
func run(ctx context.Context, args []string, io *stdio) int {
	if len(args) == 0 {
		usage(io.err)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		out := &checkedWriter{w: io.out}
		usage(out)
		if out.err != nil {
			fmt.Fprintf(io.err, "subtemper: writing to standard output: %v\n", out.err)
			return exitFailure
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		defer removeStaging()
		out := &checkedWriter{w: io.out}
		sub := *io
		sub.out = out
		err := c.run(ctx, args[1:], &sub)
		if out.err != nil && (err == nil || errors.Is(err, errHelp)) {
			// Nothing else failed, but the output did not all arrive (a
			// full disk, a closed pipe): that is a failure, not success.
			err = fmt.Errorf("writing to standard output: %w", out.err)
		}
		return report(io, c.name, err)
	}
	fmt.Fprintf(io.err, "subtemper: unknown command %q\n\n", args[0])
	usage(io.err)
	return exitUsage
}

// checkedWriter passes writes to w and remembers the first error, so that
// no write to stdout goes unchecked: every command's output goes through
// one, and run reports its error (exit 1).
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// errHelp is returned by a command that printed its help on request.
var errHelp = errors.New("help requested")

// errInterrupted is returned by a command whose run was interrupted after
// it wrote what it had.
var errInterrupted = errors.New("interrupted")

func report(io *stdio, name string, err error) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(io.err, "subtemper %s: %v\n", name, err)
		return exitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintf(io.err, "subtemper %s: %v\n", name, strings.TrimSpace(err.Error()))
		return exitUsage
	default:
		fmt.Fprintf(io.err, "subtemper %s: %v\n", name, err)
		return exitFailure
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
