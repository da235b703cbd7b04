package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/cputime"
	"github.com/subtemper/subtemper/internal/plural"
)

// mapJSON is map.json: the posterior mode and the Laplace approximation
// there.
type mapJSON struct {
	Command string         `json:"command"`
	Units   string         `json:"units"`
	Data    map[string]any `json:"data"`
	// Variables: each hyperparameter at the mode and its Laplace 90%
	// interval (exp(u* ± 1.645 sd(u)), mapped to the data's units).
	Variables []mapVar  `json:"variables"`
	Warm      *warmInfo `json:"warm_start"`
}

type mapVar struct {
	Name  string  `json:"name"`
	MAP   float64 `json:"map"`
	Lower float64 `json:"laplace_q5"`
	Upper float64 `json:"laplace_q95"`
}

// runMAP is gp --map: the posterior mode (FitGP with GPOptions.MAP),
// printed and saved as a fit of one point, predictions from it with
// --predict.
func runMAP(ctx context.Context, io *stdio, j *job, data *subtemper.GPData, opt subtemper.GPOptions, save func([][][]float64) error) error {
	f := j.flags
	chatty := !f.quiet
	fixStagedPaths(j)
	if chatty {
		fmt.Fprintf(io.err, "subtemper %s: --map: looking for the posterior mode (N = %d)\n", j.command, data.N)
	}
	cpu0, _ := cputime.Process()
	opt.Settings = j.settings
	opt.OnWarm = warmProgress(io.err, j, "--map")
	fit, phase, err := fitGP(ctx, data, opt)
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return fitFailed(j, phase, err)
	}
	defer closeUnlessInterrupted(ctx, fit)
	adoptFit(j, fit)
	ws := fit.Mode
	cpu1, _ := cputime.Process()
	j.warm = newWarmInfo(j, ws)
	maps.Copy(j.data, fit.DataReport())
	d := len(ws.Mode)
	mode, lo, hi := make([]float64, d), make([]float64, d), make([]float64, d)
	j.natural(mode, ws.Mode)
	sd := ws.SD()
	ul, uh := make([]float64, d), make([]float64, d)
	for i := range d {
		ul[i], uh[i] = ws.Mode[i]-1.6448536269514722*sd[i], ws.Mode[i]+1.6448536269514722*sd[i]
	}
	j.natural(lo, ul)
	j.natural(hi, uh)
	out := mapJSON{Command: j.command + " --map", Units: j.units, Data: j.data, Warm: j.warm}
	for i, name := range j.names {
		out.Variables = append(out.Variables, mapVar{Name: name, MAP: mode[i], Lower: min(lo[i], hi[i]), Upper: max(lo[i], hi[i])})
	}
	if f.json {
		if err := writeJSON(io.out, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(io.out, "posterior mode (MAP) of %s, %s\n", j.dataLine, j.units)
		fmt.Fprintf(io.out, "log posterior density %.6g; %s; found in %s wall, %.2f CPU-s (%.0f full-data gradients' worth)\n",
			ws.LogPost, plural.Count(ws.Modes, "mode", "modes"), ws.Wall.Round(time.Millisecond), (cpu1 - cpu0).Seconds(), j.warm.GradEquivalents)
		fmt.Fprintf(io.out, "%-16s %12s %12s %12s\n", "parameter", "MAP", "Laplace 5%", "Laplace 95%")
		for _, v := range out.Variables {
			fmt.Fprintf(io.out, "%-16s %12s %12s %12s\n", v.Name, fmtNum(v.MAP), fmtNum(v.Lower), fmtNum(v.Upper))
		}
		if len(j.warm.NonGaussian) > 0 {
			fmt.Fprintf(io.out, "the posterior of %s is far from Gaussian around the mode: its Laplace interval misdescribes it (sampling without --map gives the real one)\n", strings.Join(j.warm.NonGaussian, ", "))
		}
	}
	if f.out == "" {
		if save != nil {
			return save([][][]float64{{ws.Mode}})
		}
		return nil
	}
	if err := writeJSONFile(filepath.Join(f.out, "map.json"), out); err != nil {
		return fmt.Errorf("writing map.json: %w", err)
	}
	if save != nil {
		if err := save([][][]float64{{ws.Mode}}); err != nil {
			return err
		}
	}
	written, _, err := commitOut(f, []string{filepath.Join(f.out, "map.json")}, false)
	if err != nil {
		return err
	}
	if chatty {
		fmt.Fprintf(io.err, "subtemper %s: wrote %s\n", j.command, strings.Join(written, ", "))
		for _, n := range j.notes {
			fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, n)
		}
	}
	return nil
}
