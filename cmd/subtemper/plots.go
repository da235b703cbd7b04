package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/figures"
)

// The run's figures are the figures package's: figures.WriteGP for the
// gp command's fit, figures.Write for mvn.

// figureNames are the base names of every figure a run can draw.
var figureNames = figures.Names()

// writePlots writes the figures of a run into dir and returns the paths.
// It returns at once when ctx is cancelled, with the figures drawn so far
// (each whole) and an error that wraps ctx's: the figures.WriteContext
// contract.
func writePlots(ctx context.Context, dir string, j *job, res *subtemper.Result, nat [][][]float64, sum *runSummary) ([]string, error) {
	if fit := j.fit; fit != nil && fit.Result == res {
		return figures.WriteGPContext(ctx, dir, fit, sum)
	}
	return figures.WriteContext(ctx, dir, figures.Run{Names: j.names, Draws: nat, Log: j.command == "gp", Prior: j.priorU, Result: res, Report: sum})
}

// figuresPhase is summary.json's "interrupted_during" of a run whose
// draws (and the command's own outputs) were complete when a Ctrl-C
// stopped the figures.
const figuresPhase = "figures"

// figuresInterrupted marks the run as interrupted (during the figures,
// if it was not already) and says which figures were drawn (drawn: their
// paths).
func figuresInterrupted(sum *runSummary, res *subtemper.Result, drawn []string) {
	if !sum.Interrupted {
		sum.InterruptedDuring = figuresPhase
	}
	sum.Interrupted, res.Interrupted = true, true
	var names []string
	for _, p := range drawn {
		if strings.HasSuffix(p, ".png") {
			names = append(names, strings.TrimSuffix(filepath.Base(p), ".png"))
		}
	}
	which := "none of the figures was drawn"
	if len(names) > 0 {
		which = "only these figures were drawn: " + strings.Join(names, ", ")
	}
	sum.Warnings = append(sum.Warnings, "interrupted while the figures (--plots) were drawn: "+which+"; the draws and the other files are written whole")
}

// plotsHelp is the help of --plots: every figure, by file name.
func plotsHelp() string {
	var b strings.Builder
	b.WriteString("also write figures to --out, each as PNG and SVG: ")
	for i, f := range figures.List {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", f.Name, f.What)
	}
	b.WriteString("; with --predict, " + predictFiguresHelp + " (figures of an earlier run in --out that this run does not draw are removed, with or without --plots)")
	return b.String()
}

// removeStaleFigures removes from dir the figure files (figureNames, PNG
// and SVG) that are not among written: those of an earlier run that this
// one did not draw (another sampler, no --plots).
func removeStaleFigures(dir string, written []string) error {
	for _, name := range figureNames {
		for _, ext := range []string{".png", ".svg"} {
			p := filepath.Join(dir, name+ext)
			if slices.Contains(written, p) {
				continue
			}
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing %s, a figure of an earlier run: %w", p, err)
			}
		}
	}
	return nil
}
