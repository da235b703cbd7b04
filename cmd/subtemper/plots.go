package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
var figureNames = []string{"traces", "rhat_draws", "rhat_seconds", "accept_levels", "swap_acceptance",
	"ranks", "densities", "rhat_params", "tt_acceptance", "learning_curve"}

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
	if n > 0 && len(j.names) > 0 {
		vars := byVariable(nat, len(j.names), n)
		logX := make([]bool, len(j.names))
		for v, name := range j.names {
			logX[v] = strings.HasPrefix(name, "ell_")
		}
		chainNames := make([]string, len(nat))
		for c := range chainNames {
			chainNames[c] = fmt.Sprintf("chain %d", c+1)
		}
		base := filepath.Join(dir, "ranks")
		add(base, plot.Panels(base, j.names, "rank of the draw among all chains' draws (binned)", chainNames, rankLines(vars), nil))
		base = filepath.Join(dir, "densities")
		add(base, plot.Panels(base, j.names, "value", chainNames, densityLines(vars, logX), logX))
	}
	if len(sum.Variables) > 0 {
		labels := make([]string, len(sum.Variables))
		vals := make([]float64, len(sum.Variables))
		for i, v := range sum.Variables {
			labels[i] = v.Name
			vals[i] = float64(v.Rhat)
		}
		base := filepath.Join(dir, "rhat_params")
		add(base, plot.Dots(base, plot.BarSpec{
			Title: "rank-normalized split R-hat per parameter (dashed: 1.01)", XLabel: "parameter", YLabel: "R-hat",
			Labels: labels, Values: vals, HLine: 1.01, HLineSet: true,
		}))
	}
	if labels, vals := levelBars(sum.Levels); len(labels) > 0 {
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
	if sum.TT != nil && sum.TT.Proposed > 0 {
		p := float64(sum.TT.Proposed)
		base := filepath.Join(dir, "tt_acceptance")
		add(base, plot.Bars(base, plot.BarSpec{
			Title:  fmt.Sprintf("tempered transitions (%d proposed, all chains)", sum.TT.Proposed),
			XLabel: "outcome", YLabel: "fraction of tempered transitions",
			Labels: []string{"accepted", "rejected", "aborted (failed evaluation)"},
			Values: []float64{float64(sum.TT.Accepted) / p, float64(sum.TT.Proposed-sum.TT.Accepted-sum.TT.Aborted) / p, float64(sum.TT.Aborted) / p},
		}))
	}
	if base, err := learningCurve(dir, sum); base != "" {
		add(base, err)
	}
	return written, errors.Join(errs...)
}

// levelBars returns the bars of the inner-kernel acceptance figure: one
// per level that made transitions. A level that made none (level 0 of
// tt and stt in Neal's form, --base-steps 0, moves only through tempered
// transitions) has no acceptance rate and gets no bar.
func levelBars(levels []levelJSON) (labels []string, vals []float64) {
	for _, l := range levels {
		if l.Transitions == 0 {
			continue
		}
		labels = append(labels, fmt.Sprintf("%d", l.Level))
		vals = append(vals, float64(l.AcceptRate))
	}
	return labels, vals
}

// histBins is the number of bins of the rank and density figures for n
// draws per chain: about √n, between 5 and 40.
func histBins(n int) int {
	return max(5, min(40, int(math.Sqrt(float64(n)))))
}

// rankLines returns, per variable of vars ([var][chain][draw]), one line
// per chain: the histogram of that chain's ranks among the pooled draws
// (Vehtari et al. 2021's rank plot; flat and alike across chains when the
// chains mix). Ties take their average rank.
func rankLines(vars [][][]float64) [][][2][]float64 {
	out := make([][][2][]float64, len(vars))
	for v, chains := range vars {
		type item struct {
			x float64
			c int
		}
		var all []item
		for c, xs := range chains {
			for _, x := range xs {
				all = append(all, item{x, c})
			}
		}
		n := len(all)
		if n == 0 {
			continue
		}
		slices.SortStableFunc(all, func(a, b item) int {
			switch {
			case a.x < b.x || (math.IsNaN(a.x) && !math.IsNaN(b.x)):
				return -1
			case a.x > b.x || (math.IsNaN(b.x) && !math.IsNaN(a.x)):
				return 1
			}
			return 0
		})
		bins := histBins(n / max(1, len(chains)))
		counts := make([][]float64, len(chains))
		for c := range counts {
			counts[c] = make([]float64, bins)
		}
		for i := 0; i < n; {
			k := i
			for k+1 < n && all[k+1].x == all[i].x {
				k++
			}
			r := float64(i+k) / 2 // average 0-based rank of the ties
			b := min(bins-1, int(r/float64(n)*float64(bins)))
			for t := i; t <= k; t++ {
				counts[all[t].c][b]++
			}
			i = k + 1
		}
		out[v] = make([][2][]float64, len(chains))
		for c := range chains {
			out[v][c] = stepLine(counts[c], func(e int) float64 { return float64(e) * float64(n) / float64(bins) })
		}
	}
	return out
}

// densityLines returns, per variable, one histogram density per chain
// (bins equal on a log axis where logX[v]).
func densityLines(vars [][][]float64, logX []bool) [][][2][]float64 {
	out := make([][][2][]float64, len(vars))
	for v, chains := range vars {
		tr := func(x float64) float64 { return x }
		inv := tr
		if logX[v] {
			tr, inv = math.Log, math.Exp
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		per := 0
		for _, xs := range chains {
			per = max(per, len(xs))
			for _, x := range xs {
				if t := tr(x); !math.IsNaN(t) && !math.IsInf(t, 0) {
					lo, hi = math.Min(lo, t), math.Max(hi, t)
				}
			}
		}
		if !(hi >= lo) {
			continue
		}
		if hi == lo {
			lo, hi = lo-0.5, hi+0.5
		}
		bins := histBins(per)
		w := (hi - lo) / float64(bins)
		edge := func(e int) float64 { return inv(lo + float64(e)*w) }
		out[v] = make([][2][]float64, len(chains))
		for c, xs := range chains {
			counts := make([]float64, bins)
			var m float64
			for _, x := range xs {
				t := tr(x)
				if math.IsNaN(t) || math.IsInf(t, 0) {
					continue
				}
				counts[min(bins-1, int((t-lo)/w))]++
				m++
			}
			// A density in the plotted variable: per unit of x, or per
			// unit of log x on a log axis.
			for b := range counts {
				if m > 0 {
					counts[b] /= m * w
				}
			}
			out[v][c] = stepLine(counts, edge)
		}
	}
	return out
}

// stepLine draws a histogram of counts with bin edges edge(0..len) as a
// step line.
func stepLine(counts []float64, edge func(int) float64) [2][]float64 {
	var xy [2][]float64
	for b, h := range counts {
		xy[0] = append(xy[0], edge(b), edge(b+1))
		xy[1] = append(xy[1], h, h)
	}
	return xy
}
