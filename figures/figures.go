package figures

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
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
		rc.Rhat = append(rc.Rhat, subtemper.NaNMedian(rh))
		mx := math.Inf(-1)
		for _, r := range rh {
			if math.IsNaN(r) {
				r = math.Inf(1) // as the verdict: not estimable fails (and is not drawn)
			}
			mx = max(mx, r)
		}
		rc.Max = append(rc.Max, mx)
		rc.Paper = append(rc.Paper, subtemper.NaNMedian(rp))
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

// Figure names a figure Write can draw (its files are Name.png and
// Name.svg) and says what it shows.
type Figure struct{ Name, What string }

// List lists every figure Write can draw (the CLI's --plots help is made
// from it).
var List = []Figure{
	{"traces", "traces per chain, log scale for the GP"},
	{"ranks", "rank plots with the uniform band"},
	{"densities", "marginal densities with the prior and 50/90% intervals"},
	{"pairs", "pair plot, divergent transitions marked"},
	{"rhat_params", "R-hat per parameter"},
	{"rhat_draws", "R-hat against draws"},
	{"rhat_seconds", "R-hat against seconds"},
	{"ess_draws", "ESS against draws"},
	{"energy", "energy and energy-transition densities with the E-BFMI: hmc or nuts at the target level"},
	{"accept_levels", "acceptance per level"},
	{"swap_acceptance", "swap rates: pt, spt"},
	{"tt_acceptance", "tempered-transition outcomes: tt, stt"},
	{"learning_curve", "with --evidence on spt: the log predictive density of each subset stage"},
}

// Names returns the base names of every figure Write can draw.
func Names() []string {
	var n []string
	for _, f := range List {
		n = append(n, f.Name)
	}
	return n
}

// Run is what Write draws the figures of a run from.
type Run struct {
	// Names are the variables' names; Draws[c][s][v] the draws of
	// variable v in natural units (all of them, chains of unequal length
	// too); Log draws them on the log scale (positive parameters, the
	// GP's), axes labelled in natural units.
	Names []string
	Draws [][][]float64
	Log   bool
	// Prior, if set, is variable v's prior density at x on the figures'
	// scale (x = log θ with Log), drawn over the densities; ok false
	// where it has none.
	Prior func(v int, x float64) (density float64, ok bool)
	// Result is the sampler's result (draw times, for R-hat against
	// seconds); Report the run's report (verdict thresholds, R-hat per
	// parameter, acceptance and swap rates, the evidence's stages).
	Result *tempering.Result
	Report *subtemper.Report
}

// WriteGP writes the figures of a GP fit's run (rep its Report) into dir:
// the draws on the log scale with the prior's density in the data's
// units.
func WriteGP(dir string, fit *subtemper.GPFit, rep *subtemper.Report) ([]string, error) {
	return WriteGPContext(context.Background(), dir, fit, rep)
}

// WriteGPContext is WriteGP stopped by ctx as WriteContext is.
func WriteGPContext(ctx context.Context, dir string, fit *subtemper.GPFit, rep *subtemper.Report) ([]string, error) {
	if fit.Result == nil {
		return nil, errors.New("figures: the fit holds no sampler result")
	}
	return WriteContext(ctx, dir, Run{Names: fit.Names(), Draws: fit.Theta(), Log: true,
		Prior: gpPrior(fit.Prior, fit.Std, fit.Data.D), Result: fit.Result, Report: rep})
}

// Write writes the figures of a run into dir (created if need be), each
// as PNG and SVG, and returns the paths written. A figure that fails does
// not stop the others: the error joins every failure, each prefixed by
// its figure's name.
func Write(dir string, r Run) ([]string, error) {
	return WriteContext(context.Background(), dir, r)
}

// WriteContext is Write stopped by ctx: when ctx is done before every
// figure is drawn, it returns at once (however long the figure being
// drawn would take) with the figures drawn before, each whole, and an
// error that wraps ctx's error; no other figure file appears in dir
// afterwards. The figures are drawn in a hidden folder in dir and moved
// into dir one by one (see report.DrawContext).
func WriteContext(ctx context.Context, dir string, r Run) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	written, cut, err := plot.DrawContext(ctx, dir, func(folder string, keep func(string, error)) {
		writeFigures(ctx, folder, r, keep)
	})
	if cut {
		err = errors.Join(err, fmt.Errorf("figures: stopped after %d of the figures: %w", len(written)/2, ctx.Err()))
	}
	return written, err
}

// writeFigures draws the figures of r into dir, passing each figure's
// base name and error to keep; it stops between figures once ctx is
// done.
func writeFigures(ctx context.Context, dir string, r Run, keep func(base string, err error)) {
	sum := r.Report
	add := func(base string, err error) {
		if err != nil {
			// The figure's name once: report's errors may start with
			// "report: traces: ".
			name := filepath.Base(base)
			err = fmt.Errorf("%s: %w", name, errmsg.Trim(err, "report: ", name+": "))
		}
		keep(base, err)
	}
	if sum.Importance != nil {
		// A weighted sample: no chains to trace or compare, its
		// densities and pairs from the draws resampled from it.
		weightedFigures(ctx, dir, r, add)
		return
	}
	if n := sum.Draws.Summarized; n > 0 {
		drawFigures(ctx, dir, r, n, add)
	}
	if ctx.Err() != nil {
		return
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
}

// scaledVars returns the first n draws of every chain by variable,
// [variable][chain][draw], in the sampling space every figure of the
// draws uses: log θ for the GP's parameters (log[v] true; the axes
// labelled in θ), θ as it is for mvn.
func scaledVars(r Run, n int) (vars [][][]float64, log []bool) {
	log = make([]bool, len(r.Names))
	vars = byVariable(r.Draws, len(r.Names), n)
	for v := range log {
		log[v] = r.Log
		if log[v] {
			for _, ch := range vars[v] {
				for s, x := range ch {
					ch[s] = math.Log(x)
				}
			}
		}
	}
	return vars, log
}

// weightedFigures draws the densities and pairs of an importance-sampled
// fit's draws (resampled from its weighted sample), passing each figure's
// base name and error to add.
func weightedFigures(ctx context.Context, dir string, r Run, add func(base string, err error)) {
	n := r.Report.Draws.Summarized
	if n == 0 {
		return
	}
	vars, log := scaledVars(r, n)
	base := filepath.Join(dir, "densities")
	add(base, densityFigure(base, r.Names, vars, log, r.Prior))
	if len(r.Names) > 1 && ctx.Err() == nil {
		base = filepath.Join(dir, "pairs")
		add(base, pairFigure(base, r.Names, vars, log, nil))
	}
}

// drawFigures draws the figures of the draws (the first n of each chain;
// the traces every draw), passing each figure's base name and error to
// add.
func drawFigures(ctx context.Context, dir string, r Run, n int, add func(base string, err error)) {
	nat := r.Draws
	vars, log := scaledVars(r, n)
	// Traces hold every draw of every chain, interrupted ones too.
	tr := make([][][]float64, len(r.Names))
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
	add(base, traceFigure(base, r.Names, tr, log))
	if len(r.Names) == 0 || ctx.Err() != nil {
		return
	}
	base = filepath.Join(dir, "ranks")
	add(base, rankFigure(base, r.Names, vars))
	if ctx.Err() != nil {
		return
	}
	base = filepath.Join(dir, "densities")
	add(base, densityFigure(base, r.Names, vars, log, r.Prior))
	if len(r.Names) > 1 && ctx.Err() == nil {
		base = filepath.Join(dir, "pairs")
		add(base, pairFigure(base, r.Names, vars, log, pooledDivergent(r.Result, n)))
	}
	if r.Result != nil && r.Result.Energy != nil && ctx.Err() == nil {
		base = filepath.Join(dir, "energy")
		add(base, energyFigure(base, r.Result.Energy, r.Report.Inner))
	}
	if ctx.Err() == nil {
		convergenceFigures(ctx, dir, r, n, vars, add)
	}
}

// convergenceFigures draws R-hat against draws and seconds and the
// smallest ESS against draws, on growing prefixes of the first n draws
// (vars: their logs with Run.Log).
func convergenceFigures(ctx context.Context, dir string, r Run, n int, vars [][][]float64, add func(base string, err error)) {
	res, nat := r.Result, r.Draws
	var base string
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
	rc := prefixRhat(byVariable(nat, len(r.Names), n), times, n, 30)
	if len(rc.Draws) > 0 && ctx.Err() == nil {
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
	if ctx.Err() != nil {
		return
	}
	if x, b, t := essCurve(vars, n, 20); len(x) > 0 {
		need := diag.ESSPerChainMin * float64(len(nat))
		base = filepath.Join(dir, "ess_draws")
		add(base, plot.Line(base, plot.LineSpec{
			Title: fmt.Sprintf("smallest ESS over parameters (verdict: ≥ %.0f, %d per chain, the dotted line)", need, diag.ESSPerChainMin), XLabel: "draws per chain (after warm-up)", YLabel: "ESS, all chains",
			Series: []plot.Series{{Name: "min bulk-ESS", X: x, Y: b}, {Name: "min tail-ESS", X: x, Y: t, Dashed: true}}, HLine: need, HLineSet: true,
		}))
	}
}

// levelBars returns the bars of the inner-kernel acceptance figure: one
// per level that made transitions. A level that made none (level 0 of
// tt and stt in Neal's form, --base-steps none, moves only through tempered
// transitions) has no acceptance rate and gets no bar.
func levelBars(levels []subtemper.LevelReport) (labels []string, vals []float64) {
	for _, l := range levels {
		if l.Transitions == 0 {
			continue
		}
		labels = append(labels, fmt.Sprintf("%d", l.Level))
		vals = append(vals, float64(l.AcceptRate))
	}
	return labels, vals
}

// learningCurve draws the evidence's stages: for spt the log predictive
// density per added observation against the number of observations
// conditioned on (the prior predictive of the hottest subset at 0), for
// pt each stage's log ratio per unit of β against β (the thermodynamic
// integrand E_β[log p(y|θ)]). It returns the figure's base name, or ""
// when the run has no evidence.
func learningCurve(dir string, s *subtemper.Report) (string, error) {
	e := s.Evidence
	if e == nil || len(e.Stages) == 0 {
		return "", nil
	}
	base := filepath.Join(dir, "learning_curve")
	var x, y, lo, hi []float64
	add := func(xv, v, se, per float64) {
		x = append(x, xv)
		y = append(y, v/per)
		lo = append(lo, (v-2*se)/per)
		hi = append(hi, (v+2*se)/per)
	}
	spec := plot.LineSpec{}
	if s.Sampler == "spt" {
		hot := e.Stages[0]
		add(0, float64(e.Leg.LogZ), float64(e.Leg.SE), float64(hot.Size))
		for _, st := range e.Stages {
			add(float64(st.Size), float64(st.Forward), float64(st.ForwardSE), float64(st.SizeColder-st.Size))
		}
		spec.Title = "learning curve: log p(new observations | first n) per observation"
		spec.XLabel = "observations conditioned on, n"
		spec.YLabel = "log predictive density per observation"
	} else {
		for _, st := range e.Stages {
			add((st.Beta+st.BetaColder)/2, float64(st.Forward), float64(st.ForwardSE), st.BetaColder-st.Beta)
		}
		spec.Title = "stepping stone: log(Z_{m-1}/Z_m) per unit of beta"
		spec.XLabel = "beta (midpoint of the stage)"
		spec.YLabel = "mean log-likelihood"
	}
	spec.Series = []plot.Series{{Name: "estimate", X: x, Y: y}, {Name: "±2 SE", X: x, Y: lo, Dashed: true}, {Name: "", X: x, Y: hi, Dashed: true}}
	return base, plot.Line(base, spec)
}

// gpPrior returns the prior density of u = log θ in the data's units
// (θ = the standardised θ times the columns' SDs): log ℓ_d ~ N(log median,
// σ²) and σ ~ Gamma(shape, rate) on the sampling units, shifted by the
// logs of the standardisation's SDs.
func gpPrior(p gp.Prior, std gp.Standardization, d int) func(v int, u float64) (float64, bool) {
	shift := func(v int) float64 {
		switch {
		case v < d && std.XSD != nil:
			return math.Log(std.XSD[v])
		case v >= d && std.YSD != 0:
			return math.Log(std.YSD)
		}
		return 0
	}
	gammaLogU := func(u, a, b float64) float64 {
		lg, _ := math.Lgamma(a)
		return a*math.Log(b) - lg + a*u - b*math.Exp(u)
	}
	return func(v int, u float64) (float64, bool) {
		x := u - shift(v)
		switch {
		case v < d:
			return math.Exp(p.LengthLogDensity(x)), true
		case v == d:
			return math.Exp(gammaLogU(x, p.SignalShape, p.SignalRate)), true
		case v == d+1:
			return math.Exp(gammaLogU(x, p.NoiseShape, p.NoiseRate)), true
		}
		return 0, false
	}
}

// byVariable returns the first n draws of each chain as [var][chain][draw].
func byVariable(nat [][][]float64, nvar, n int) [][][]float64 {
	out := make([][][]float64, nvar)
	for v := range out {
		out[v] = make([][]float64, len(nat))
		for c := range nat {
			x := make([]float64, n)
			for s := 0; s < n; s++ {
				x[s] = nat[c][s][v]
			}
			out[v][c] = x
		}
	}
	return out
}
