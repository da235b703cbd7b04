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
	Max     []float64 // max rank-normalized split R-hat (the verdict's)
	Paper   []float64 // median R-hat of the paper (eq. 8)
}

// prefixRhat computes the curve at about points prefix lengths of the
// first n draws of each chain (vars is [var][chain][draw]).
func prefixRhat(vars [][][]float64, times [][]float64, n, points int) rhatCurve {
	var rc rhatCurve
	for _, k := range prefixSizes(n, points) {
		rh := make([]float64, len(vars))
		rp := make([]float64, len(vars))
		for v, chains := range vars {
			pre := prefix(chains, k)
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
		mx := math.Inf(-1)
		for _, r := range rh {
			if math.IsNaN(r) {
				r = math.Inf(1) // as the verdict: not estimable fails (and is not drawn)
			}
			mx = max(mx, r)
		}
		rc.Max = append(rc.Max, mx)
		rc.Paper = append(rc.Paper, nanMedian(rp))
	}
	return rc
}

// prefixSizes returns the prefix lengths at which the convergence curves
// are drawn: points lengths evenly spaced from 8 draws (the fewest that
// the diagnostics take) to n, without repeats; none for n < 8.
func prefixSizes(n, points int) []int {
	const minDraws = 8
	var ks []int
	if n < minDraws {
		return ks
	}
	for i := 1; i <= points; i++ {
		k := minDraws + int(math.Round(float64(n-minDraws)*float64(i)/float64(points)))
		if len(ks) == 0 || k > ks[len(ks)-1] {
			ks = append(ks, k)
		}
	}
	return ks
}

// prefix returns the first k draws of each chain.
func prefix(chains [][]float64, k int) [][]float64 {
	pre := make([][]float64, len(chains))
	for c, x := range chains {
		pre[c] = x[:k]
	}
	return pre
}

// figures lists every figure writePlots can draw, with what it shows:
// --plots' help is made from it.
var figures = []struct{ name, what string }{
	{"traces", "traces per chain, log scale for the GP"},
	{"ranks", "rank plots with the uniform band"},
	{"densities", "marginal densities with the prior and 50/90% intervals"},
	{"pairs", "pair plot"},
	{"rhat_params", "R-hat per parameter"},
	{"rhat_draws", "R-hat against draws"},
	{"rhat_seconds", "R-hat against seconds"},
	{"ess_draws", "ESS against draws"},
	{"accept_levels", "acceptance per level"},
	{"swap_acceptance", "swap rates: pt, spt"},
	{"tt_acceptance", "tempered-transition outcomes: tt, stt"},
	{"learning_curve", "with --evidence on spt: the log predictive density of each subset stage"},
}

// figureNames are the base names of every figure writePlots can draw.
var figureNames = func() []string {
	var n []string
	for _, f := range figures {
		n = append(n, f.name)
	}
	return n
}()

// plotsHelp is the help of --plots: every figure, by file name.
func plotsHelp() string {
	var b strings.Builder
	b.WriteString("also write figures to --out, each as PNG and SVG: ")
	for i, f := range figures {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", f.name, f.what)
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
		// Every figure of the draws in the sampling space: log θ for the
		// GP's parameters (the axes labelled in θ), θ as it is for mvn.
		log := make([]bool, len(j.names))
		vars := byVariable(nat, len(j.names), n)
		for v := range log {
			log[v] = j.command == "gp"
			if log[v] {
				for _, ch := range vars[v] {
					for s, x := range ch {
						ch[s] = math.Log(x)
					}
				}
			}
		}
		// Traces hold every draw of every chain, interrupted ones too.
		tr := make([][][]float64, len(j.names))
		for v := range tr {
			tr[v] = make([][]float64, len(nat))
			for c := range nat {
				x := make([]float64, len(nat[c]))
				for s := range nat[c] {
					x[s] = nat[c][s][v]
					if log[v] {
						x[s] = math.Log(x[s])
					}
				}
				tr[v][c] = x
			}
		}
		base := filepath.Join(dir, "traces")
		add(base, traceFigure(base, j.names, tr, log))
		if len(j.names) == 0 {
			return written, errors.Join(errs...)
		}
		base = filepath.Join(dir, "ranks")
		add(base, rankFigure(base, j.names, vars))
		base = filepath.Join(dir, "densities")
		add(base, densityFigure(base, j.names, vars, log, j.priorU))
		if len(j.names) > 1 {
			base = filepath.Join(dir, "pairs")
			add(base, pairFigure(base, j.names, vars, log))
		}

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
		// R-hat of θ, as the verdict computes it.
		rc := prefixRhat(byVariable(nat, len(j.names), n), times, n, 30)
		if len(rc.Draws) > 0 {
			series := func(x []float64) []plot.Series {
				return []plot.Series{
					{Name: "max R-hat (the verdict's)", X: x, Y: rc.Max},
					{Name: "median R-hat", X: x, Y: rc.Rhat},
					{Name: "paper's median R-hat (eq. 8)", X: x, Y: rc.Paper, Dashed: true},
				}
			}
			title := fmt.Sprintf("R-hat over parameters (verdict: max < %.2f, the dotted line)", diag.RhatMax)
			base = filepath.Join(dir, "rhat_draws")
			add(base, plot.Line(base, plot.LineSpec{
				Title: title, XLabel: "draws per chain (after warm-up)", YLabel: "R-hat",
				Series: series(rc.Draws), HLine: diag.RhatMax, HLineSet: true,
			}))
			if times != nil {
				base = filepath.Join(dir, "rhat_seconds")
				add(base, plot.Line(base, plot.LineSpec{
					Title: title, XLabel: "wall-clock seconds", YLabel: "R-hat",
					Series: series(rc.Seconds), HLine: diag.RhatMax, HLineSet: true,
				}))
			}
		}
		if x, b, t := essCurve(vars, n, 20); len(x) > 0 {
			need := max(sum.Draws.MinESS, diag.ESSPerChainMin*float64(len(nat)))
			base = filepath.Join(dir, "ess_draws")
			add(base, plot.Line(base, plot.LineSpec{
				Title: fmt.Sprintf("smallest ESS over parameters (verdict: ≥ %.0f, the dotted line)", need), XLabel: "draws per chain (after warm-up)", YLabel: "ESS, all chains",
				Series: []plot.Series{{Name: "min bulk-ESS", X: x, Y: b}, {Name: "min tail-ESS", X: x, Y: t, Dashed: true}}, HLine: need, HLineSet: true,
			}))
		}
	}
	if len(sum.Variables) > 0 {
		names := make([]string, len(sum.Variables))
		vals := make([]float64, len(sum.Variables))
		for i, v := range sum.Variables {
			names[i] = v.Name
			vals[i] = float64(v.Rhat)
		}
		base := filepath.Join(dir, "rhat_params")
		add(base, rhatParamsFigure(base, names, vals))
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
