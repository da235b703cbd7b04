package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/errmsg"
	plot "github.com/subtemper/subtemper/internal/report"
	"github.com/subtemper/subtemper/tempering"
)

// rhatCurve is the median over variables of R-hat on growing prefixes of
// the post-warm-up draws (the paper's Fig. 3).
type rhatCurve struct {
	Draws   []float64 // prefix length (draws per chain)
	Seconds []float64 // wall-clock time at which every chain had made them
	Rhat    []float64 // median rank-normalized split R-hat
	Paper   []float64 // median R-hat of the paper (eq. 8)
}

// prefixRhat computes the curve at about points prefix lengths of the
// first n draws of each chain (vars is [var][chain][draw]).
func prefixRhat(vars [][][]float64, times [][]float64, n, points int) rhatCurve {
	var rc rhatCurve
	const minDraws = 8
	if n < minDraws {
		return rc
	}
	prev := 0
	for i := 1; i <= points; i++ {
		k := minDraws + int(math.Round(float64(n-minDraws)*float64(i)/float64(points)))
		if k <= prev {
			continue
		}
		prev = k
		rh := make([]float64, len(vars))
		rp := make([]float64, len(vars))
		for v, chains := range vars {
			pre := make([][]float64, len(chains))
			for c, x := range chains {
				pre[c] = x[:k]
			}
			rh[v] = diag.Rhat(pre)
			rp[v] = diag.RhatPaper(pre)
		}
		sec := math.NaN()
		if times != nil {
			sec = 0
			for _, t := range times {
				sec = math.Max(sec, t[k-1])
			}
		}
		rc.Draws = append(rc.Draws, float64(k))
		rc.Seconds = append(rc.Seconds, sec)
		rc.Rhat = append(rc.Rhat, nanMedian(rh))
		rc.Paper = append(rc.Paper, nanMedian(rp))
	}
	return rc
}

// figureNames are the base names of every figure writePlots can draw.
var figureNames = []string{"traces", "rhat_draws", "rhat_seconds", "accept_levels", "swap_acceptance"}

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

// writePlots writes the figures of a run into dir and returns the paths.
func writePlots(dir string, j *job, res *tempering.Result, nat [][][]float64, sum *runSummary) ([]string, error) {
	var written []string
	var errs []error
	add := func(base string, err error) {
		if err != nil {
			// The figure's name once: report's errors may start with
			// "report: traces: ".
			name := filepath.Base(base)
			errs = append(errs, fmt.Errorf("%s: %w", name, errmsg.Trim(err, "report: ", name+": ")))
			return
		}
		written = append(written, base+".png", base+".svg")
	}
	n := sum.Draws.Summarized
	if n > 0 {
		// Traces: [chain][var][draw].
		tr := make([][][]float64, len(nat))
		for c := range nat {
			tr[c] = make([][]float64, len(j.names))
			for v := range j.names {
				x := make([]float64, len(nat[c]))
				for s := range nat[c] {
					x[s] = nat[c][s][v]
				}
				tr[c][v] = x
			}
		}
		base := filepath.Join(dir, "traces")
		add(base, plot.Traces(base, j.names, tr))

		var times [][]float64
		if res.Times != nil {
			times = make([][]float64, len(res.Times))
			for c, ts := range res.Times {
				times[c] = make([]float64, len(ts))
				for s, t := range ts {
					times[c][s] = t.Seconds()
				}
			}
		}
		rc := prefixRhat(byVariable(nat, len(j.names), n), times, n, 30)
		if len(rc.Draws) > 0 {
			series := func(x []float64) []plot.Series {
				return []plot.Series{
					{Name: "rank-normalized split R-hat", X: x, Y: rc.Rhat},
					{Name: "paper's R-hat (eq. 8)", X: x, Y: rc.Paper, Dashed: true},
				}
			}
			base = filepath.Join(dir, "rhat_draws")
			add(base, plot.Line(base, plot.LineSpec{
				Title: "median R-hat over parameters", XLabel: "draws per chain (after warm-up)", YLabel: "R-hat",
				Series: series(rc.Draws), HLine: 1.1, HLineSet: true,
			}))
			if times != nil {
				base = filepath.Join(dir, "rhat_seconds")
				add(base, plot.Line(base, plot.LineSpec{
					Title: "median R-hat over parameters", XLabel: "wall-clock seconds", YLabel: "R-hat",
					Series: series(rc.Seconds), HLine: 1.1, HLineSet: true,
				}))
			}
		}
	}
	if len(sum.Levels) > 0 {
		labels := make([]string, len(sum.Levels))
		vals := make([]float64, len(sum.Levels))
		for i, l := range sum.Levels {
			labels[i] = fmt.Sprintf("%d", l.Level)
			vals[i] = float64(l.AcceptRate)
		}
		base := filepath.Join(dir, "accept_levels")
		add(base, plot.Bars(base, plot.BarSpec{
			Title: "inner-kernel acceptance per level", XLabel: "level m", YLabel: "acceptance rate", Labels: labels, Values: vals,
		}))
	}
	if len(sum.Swaps) > 0 && (sum.Sampler == "pt" || sum.Sampler == "spt") {
		labels := make([]string, len(sum.Swaps))
		vals := make([]float64, len(sum.Swaps))
		for i, s := range sum.Swaps {
			labels[i] = fmt.Sprintf("%d-%d", s.Levels[0], s.Levels[1])
			vals[i] = float64(s.Rate)
		}
		base := filepath.Join(dir, "swap_acceptance")
		add(base, plot.Bars(base, plot.BarSpec{
			Title: "swap acceptance per adjacent pair", XLabel: "levels (m-1, m)", YLabel: "acceptance rate", Labels: labels, Values: vals,
		}))
	}
	return written, errors.Join(errs...)
}
