package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/subtemper/subtemper/figures"
	"github.com/subtemper/subtemper/tempering"
)

// The run's figures are the figures package's: figures.WriteGP for the
// gp command's fit, figures.Write for mvn.

// figureNames are the base names of every figure a run can draw.
var figureNames = figures.Names()

// writePlots writes the figures of a run into dir and returns the paths.
func writePlots(dir string, j *job, res *tempering.Result, nat [][][]float64, sum *runSummary) ([]string, error) {
	if fit := j.fit; fit != nil && fit.Result == res {
		return figures.WriteGP(dir, fit, sum)
	}
	return figures.Write(dir, figures.Run{Names: j.names, Draws: nat, Log: j.command == "gp", Prior: j.priorU, Result: res, Report: sum})
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
