package figures

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/plural"
	figs "github.com/subtemper/subtemper/internal/report"
	"github.com/subtemper/subtemper/tempering"
)

// The diagnostic figures as ArviZ and bayesplot draw them: in the
// sampling space (u = log θ for the GP's positive parameters) with the
// natural scale on the axis labels, multi-panel figures in a grid.

// naturalTicks labels an axis in the sampling space u = log θ with
// natural values θ: ticks at round values of θ (1-2-5 steps over a wide
// range, gonum's default ticks over a narrow one), placed at log θ.
type naturalTicks struct{}

func (naturalTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := math.Exp(lo), math.Exp(hi)
	var vals []float64
	if b/a < 8 {
		// About 4 steps of 1, 2, 2.5 or 5 times a power of 10.
		raw := (b - a) / 4
		mag := math.Pow(10, math.Floor(math.Log10(raw)))
		step := 10 * mag
		for _, m := range []float64{1, 2, 2.5, 5} {
			if m*mag >= raw {
				step = m * mag
				break
			}
		}
		for k := math.Ceil(a / step); k*step <= b*(1+1e-12); k++ {
			if v := k * step; v > 0 {
				vals = append(vals, v)
			}
		}
	} else {
		for e := math.Floor(math.Log10(a)); e <= math.Ceil(math.Log10(b)); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); v >= a && v <= b {
					vals = append(vals, v)
				}
			}
		}
		if len(vals) > 8 { // many decades: powers of 10 only
			vals = slices.DeleteFunc(vals, func(v float64) bool {
				m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
				return math.Abs(m-1) > 1e-6
			})
		}
	}
	ticks := make([]plot.Tick, len(vals))
	for i, v := range vals {
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64) // 0.30000000000000004 → 0.3
		f := byte('f')
		if v < 1e-4 || v >= 1e6 {
			f = 'g'
		}
		ticks[i] = plot.Tick{Value: math.Log(v), Label: strconv.FormatFloat(v, f, -1, 64)}
	}
	return ticks
}

// intTicks labels gonum's default tick positions as integers.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(math.Round(ts[i].Value), 'f', 0, 64)
		}
	}
	return ts
}

// axisLabel names variable v on an axis: "ell_x1 (log scale)" where it is
// drawn as log θ.
func axisLabel(name string, log bool) string {
	if log {
		return name + " (log scale)"
	}
	return name
}

// setValueAxis sets axis a for values of a variable drawn on log scale
// (log) or as they are.
func setValueAxis(a *plot.Axis, name string, log bool) {
	a.Label.Text = axisLabel(name, log)
	if log {
		a.Tick.Marker = naturalTicks{}
	}
}

// gridCols is the number of columns of a grid of n panels.
func gridCols(n int) int {
	switch {
	case n <= 3:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// chainLine adds chain c's line to p, named in the legend when named.
func chainLine(p *plot.Plot, xys plotter.XYs, c int, width float64, named bool) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width = plotutil.Color(c), vg.Points(width)
	p.Add(l)
	if named {
		p.Legend.Add(fmt.Sprintf("chain %d", c+1), l)
	}
	return nil
}

// legendRoom raises the top of p's y range so that a legend of entries
// lines at the top right stays clear of the data (about 7% of the panel
// per line).
func legendRoom(p *plot.Plot, entries int) {
	lo, hi := p.Y.Min, p.Y.Max
	if !(hi > lo) {
		return
	}
	f := min(0.07*float64(entries), 0.6)
	p.Y.Max = hi + (hi-lo)*f/(1-f)
}

// traceFigure draws each variable's draws per chain against the draw
// index: vars[v][c][s] in the plotting space.
func traceFigure(base string, names []string, vars [][][]float64, log []bool) error {
	if len(names) == 0 || len(vars) == 0 || len(vars[0]) == 0 {
		return errors.New("no variables or no chains")
	}
	var panels []*plot.Plot
	for v, name := range names {
		p := plot.New()
		p.Title.Text = name
		setValueAxis(&p.Y, name, log[v])
		p.X.Label.Text = "draw (after warm-up)"
		p.X.Tick.Marker = intTicks{}
		for c, x := range vars[v] {
			xys := make(plotter.XYs, 0, len(x))
			for s, u := range x {
				if finite(u) {
					xys = append(xys, plotter.XY{X: float64(s + 1), Y: u})
				}
			}
			if err := chainLine(p, xys, c, 0.6, v == 0); err != nil {
				return err
			}
		}
		if v == 0 {
			legendRoom(p, len(vars[v]))
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	return figs.Grid(base, panels, gridCols(len(names)), 4.5*vg.Inch, 2.4*vg.Inch)
}

// kde returns a Gaussian kernel density estimate of x (Silverman's
// bandwidth) at n points over [lo, hi].
func kde(x []float64, lo, hi float64, n int) plotter.XYs {
	m := diag.Mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(max(len(x)-1, 1)))
	s := slices.Clone(x)
	slices.Sort(s)
	iqr := quantileSorted(s, 0.75) - quantileSorted(s, 0.25)
	spread := sd
	if iqr > 0 {
		spread = min(sd, iqr/1.34)
	}
	bw := 0.9 * spread * math.Pow(float64(len(x)), -0.2)
	if !(bw > 0) {
		bw = 1e-3 * max(math.Abs(m), 1)
	}
	out := make(plotter.XYs, n)
	norm := 1 / (float64(len(x)) * bw * math.Sqrt(2*math.Pi))
	for i := range out {
		t := lo + (hi-lo)*float64(i)/float64(n-1)
		// Only the draws within 6 bandwidths count.
		a, _ := slices.BinarySearch(s, t-6*bw)
		var sum float64
		for _, v := range s[a:] {
			if v > t+6*bw {
				break
			}
			z := (t - v) / bw
			sum += math.Exp(-0.5 * z * z)
		}
		out[i] = plotter.XY{X: t, Y: sum * norm}
	}
	return out
}

// quantileSorted is the q-quantile of sorted s (linear interpolation).
func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	h := q * float64(len(s)-1)
	i := int(h)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// pooled returns every chain's draws of one variable, finite ones only.
func pooled(chains [][]float64) []float64 {
	var all []float64
	for _, x := range chains {
		for _, v := range x {
			if finite(v) {
				all = append(all, v)
			}
		}
	}
	return all
}

// densityFigure draws each variable's marginal posterior: a kernel
// density estimate of all chains' draws (thick), of each chain's (thin),
// the prior's density (dashed, when prior gives one) and the central 50%
// and 90% intervals with the median along the bottom.
func densityFigure(base string, names []string, vars [][][]float64, log []bool, prior func(v int, u float64) (float64, bool)) error {
	var panels []*plot.Plot
	for v, name := range names {
		p := plot.New()
		p.Title.Text = name
		setValueAxis(&p.X, name, log[v])
		p.Y.Label.Text = "density"
		all := pooled(vars[v])
		if len(all) < 2 {
			panels = append(panels, p)
			continue
		}
		s := slices.Clone(all)
		slices.Sort(s)
		lo, hi := s[0], s[len(s)-1]
		pad := 0.1 * (hi - lo)
		if pad == 0 {
			pad = 0.1 * max(math.Abs(lo), 1)
		}
		lo, hi = lo-pad, hi+pad
		for c, x := range vars[v] {
			if err := chainLine(p, kde(pooled([][]float64{x}), lo, hi, 120), c, 0.5, v == 0); err != nil {
				return err
			}
		}
		all2 := kde(all, lo, hi, 200)
		l, err := plotter.NewLine(all2)
		if err != nil {
			return err
		}
		l.Width = vg.Points(1.8)
		p.Add(l)
		if v == 0 {
			p.Legend.Add("all chains", l)
		}
		top := 0.0
		for _, pt := range all2 {
			top = max(top, pt.Y)
		}
		if prior != nil {
			if err := addPrior(p, func(u float64) (float64, bool) { return prior(v, u) }, lo, hi, v == 0); err != nil {
				return err
			}
		}
		y0 := -0.04 * top
		if err := addIntervals(p, s, y0, v == 0); err != nil {
			return err
		}
		p.Y.Min, p.Y.Max = 2*y0, 1.25*top
		if v == 0 {
			legendRoom(p, len(vars[v])+3)
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	return figs.Grid(base, panels, gridCols(len(names)), 4.5*vg.Inch, 2.8*vg.Inch)
}

// addPrior adds to p the prior's density (dashed) at 200 points over
// [lo, hi], where density gives a finite one, with a legend entry if
// legend.
func addPrior(p *plot.Plot, density func(u float64) (float64, bool), lo, hi float64, legend bool) error {
	var pr plotter.XYs
	for i := range 200 {
		u := lo + (hi-lo)*float64(i)/199
		if d, ok := density(u); ok && finite(d) {
			pr = append(pr, plotter.XY{X: u, Y: d})
		}
	}
	if len(pr) < 2 {
		return nil
	}
	pl, err := plotter.NewLine(pr)
	if err != nil {
		return err
	}
	pl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	pl.Color = color.Gray{Y: 90}
	p.Add(pl)
	if legend {
		p.Legend.Add("prior", pl)
	}
	return nil
}

// addIntervals adds to p, at height y0 under the density, the central
// intervals of the sorted draws s: 90% thin, 50% thick, the median a
// dot; with a legend entry if legend.
func addIntervals(p *plot.Plot, s []float64, y0 float64, legend bool) error {
	for _, iv := range []struct {
		q float64
		w float64
	}{{0.05, 1}, {0.25, 4}} {
		seg, err := plotter.NewLine(plotter.XYs{{X: quantileSorted(s, iv.q), Y: y0}, {X: quantileSorted(s, 1-iv.q), Y: y0}})
		if err != nil {
			return err
		}
		seg.Width, seg.Color = vg.Points(iv.w), color.Black
		p.Add(seg)
		if legend && iv.q == 0.25 {
			p.Legend.Add("50% and 90% intervals", seg)
		}
	}
	md, err := plotter.NewScatter(plotter.XYs{{X: quantileSorted(s, 0.5), Y: y0}})
	if err != nil {
		return err
	}
	md.Shape, md.Color, md.Radius = draw.CircleGlyph{}, color.White, vg.Points(2.5)
	p.Add(md)
	return nil
}

// rankFigure draws, per variable, each chain's histogram of the ranks of
// its draws among all chains' draws, with the 99% band of the count a
// bin holds when the chains sample the same distribution (a uniform rank:
// Binomial(n, 1/B) per bin, normal approximation).
func rankFigure(base string, names []string, vars [][][]float64) error {
	var panels []*plot.Plot
	for v, name := range names {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "rank among all chains' draws"
		p.Y.Label.Text = "draws per bin"
		p.X.Tick.Marker = intTicks{}
		p.Y.Tick.Marker = intTicks{}
		chains := vars[v]
		n := len(chains[0])
		total := n * len(chains)
		ranks := rankAll(chains)
		bins := max(5, min(20, n/10))
		e := float64(n) / float64(bins)
		sd := math.Sqrt(float64(n) / float64(bins) * (1 - 1/float64(bins)))
		lo, hi := max(0, e-2.576*sd), e+2.576*sd
		band, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: lo}, {X: float64(total), Y: lo}, {X: float64(total), Y: hi}, {X: 0, Y: hi}})
		if err != nil {
			return err
		}
		band.Color, band.LineStyle.Width = color.Gray{Y: 225}, 0
		p.Add(band)
		if v == 0 {
			p.Legend.Add("99% band if uniform", band)
		}
		top := hi
		for c := range chains {
			counts := make([]float64, bins)
			for _, r := range ranks[c] {
				counts[min(bins-1, int(r*float64(bins)/float64(total)))]++
			}
			var step plotter.XYs
			for b, k := range counts {
				x0, x1 := float64(b)*float64(total)/float64(bins), float64(b+1)*float64(total)/float64(bins)
				step = append(step, plotter.XY{X: x0, Y: k}, plotter.XY{X: x1, Y: k})
				top = max(top, k)
			}
			if err := chainLine(p, step, c, 1, v == 0); err != nil {
				return err
			}
		}
		p.X.Min, p.X.Max = 0, float64(total)
		p.Y.Min, p.Y.Max = 0, 1.35*top
		if v == 0 {
			legendRoom(p, len(chains)+1)
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	return figs.Grid(base, panels, gridCols(len(names)), 4.5*vg.Inch, 2.6*vg.Inch)
}

// rankAll returns the rank (0-based, ties by order) of every draw among
// all chains' draws: ranks[c][s].
func rankAll(chains [][]float64) [][]float64 {
	type item struct {
		v    float64
		c, s int
	}
	var all []item
	for c, x := range chains {
		for s, v := range x {
			all = append(all, item{v, c, s})
		}
	}
	slices.SortStableFunc(all, func(a, b item) int {
		switch {
		case a.v < b.v || math.IsNaN(a.v) && !math.IsNaN(b.v):
			return -1
		case a.v > b.v || math.IsNaN(b.v) && !math.IsNaN(a.v):
			return 1
		}
		return 0
	})
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c] = make([]float64, len(x))
	}
	for r, it := range all {
		out[it.c][it.s] = float64(r)
	}
	return out
}

// pairChoice returns the variables of the pair plot in their order: all
// of them up to pairVars, else the last two and the pairVars−2 others
// with the lowest bulk-ESS (a NaN ESS counts as lowest).
func pairChoice(vars [][][]float64) []int {
	n := len(vars)
	if n <= pairVars {
		idx := make([]int, n)
		for v := range idx {
			idx[v] = v
		}
		return idx
	}
	ess := make([]float64, n)
	rest := make([]int, 0, n-2)
	for v := range n - 2 {
		ess[v] = diag.ESSBulk(vars[v])
		if math.IsNaN(ess[v]) {
			ess[v] = math.Inf(-1)
		}
		rest = append(rest, v)
	}
	slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(ess[a], ess[b]) })
	idx := append(rest[:pairVars-2:pairVars-2], n-2, n-1)
	slices.Sort(idx)
	return idx
}

// pairVars is the most variables the pair plot shows.
const pairVars = 6

// pairFigure draws the pair plot of at most pairVars variables (when
// there are more: the last two, a GP's sf and sn, and the others with the
// lowest bulk-ESS, the ones that mix worst; the title says so): each
// pair's draws as points below the diagonal (at most 800 of them, evenly
// spaced over the chains' draws), each variable's density on it. As
// bayesplot's mcmc_pairs does, every draw that follows a divergent
// transition (div[k] > 0, k indexing the chains' draws pooled in order;
// nil: none recorded) is marked, all of them, by a red cross; the first
// panel's title counts them.
func pairFigure(base string, names []string, vars [][][]float64, log []bool, div []int) error {
	idx := pairChoice(vars)
	k := len(idx)
	all := make([][]float64, len(names))
	for _, v := range idx {
		all[v] = pooledAll(vars[v])
	}
	n := len(all[idx[0]])
	step := max(1, n/800)
	var panels []*plot.Plot
	for r := range k {
		for c := range k {
			if c > r {
				panels = append(panels, nil)
				continue
			}
			p := plot.New()
			vr, vc := idx[r], idx[c]
			if r == k-1 {
				setValueAxis(&p.X, names[vc], log[vc])
			}
			if c == 0 {
				setValueAxis(&p.Y, names[vr], log[vr])
			}
			if log[vc] {
				p.X.Tick.Marker = naturalTicks{}
			}
			if r == c {
				if err := pairDiagonal(p, all[vr], names[vr], c == 0); err != nil {
					return err
				}
			} else {
				if log[vr] {
					p.Y.Tick.Marker = naturalTicks{}
				}
				if err := pairScatter(p, all[vc], all[vr], n, step); err != nil {
					return err
				}
				if err := addDivergent(p, all[vc], all[vr], div); err != nil {
					return err
				}
			}
			panels = append(panels, p)
		}
	}
	if len(idx) < len(names) {
		// Wider than its cell: it starts at the cell's centre and runs on
		// over the empty cells to its right (centred, it ran off the
		// figure's left edge).
		panels[0].Title.Text = fmt.Sprintf("%d of %d parameters (sf, sn and the lowest bulk-ESS)", k, len(names))
		panels[0].Title.TextStyle.XAlign = draw.XLeft
	}
	if div != nil {
		// The key, in the empty top-right cell.
		panels[k-1] = divergentKey(div)
	}
	return figs.Grid(base, panels, k, 2.2*vg.Inch, 2.2*vg.Inch)
}

// pairDiagonal draws on the pair plot's diagonal panel p the density of
// the draws x of the variable name, labelled as such on the first column
// (first), without ticks on the density axis.
func pairDiagonal(p *plot.Plot, x []float64, name string, first bool) error {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s) > 1 {
		pad := 0.05*(s[len(s)-1]-s[0]) + 1e-9
		l, err := plotter.NewLine(kde(x, s[0]-pad, s[len(s)-1]+pad, 100))
		if err != nil {
			return err
		}
		p.Add(l)
	}
	p.Y.Label.Text = ""
	p.Y.Tick.Marker = plot.ConstantTicks{}
	if first {
		p.Y.Label.Text = axisLabel(name, false) + " density"
	}
	return nil
}

// pairScatter adds to p the points (x[s], y[s]) of every step-th of the
// first n draws where both are finite.
func pairScatter(p *plot.Plot, x, y []float64, n, step int) error {
	var pts plotter.XYs
	for s := 0; s < n; s += step {
		if a, b := x[s], y[s]; finite(a) && finite(b) {
			pts = append(pts, plotter.XY{X: a, Y: b})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Shape: draw.CircleGlyph{}, Radius: vg.Points(1.2), Color: color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 90}}
	p.Add(sc)
	return nil
}

// divergentKey is a panel without axes that explains the pair plot's red
// crosses and counts them.
func divergentKey(div []int) *plot.Plot {
	nd, nt := divergentCount(div)
	p := plot.New()
	p.HideAxes()
	sc, err := plotter.NewScatter(plotter.XYs{{}})
	if err == nil {
		sc.GlyphStyle = divergentMark
		p.Legend.Add("divergent transition", sc)
	}
	p.Legend.Add(fmt.Sprintf("%d after warm-up", nt))
	p.Legend.Add("at the target level")
	p.Legend.Add(fmt.Sprintf("(%s marked)", plural.Count(nd, "draw", "draws")))
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

// divergentMark is how the pair plot marks a draw that follows a
// divergent transition: a red cross, as bayesplot's mcmc_pairs.
var divergentMark = draw.GlyphStyle{Shape: draw.CrossGlyph{}, Radius: vg.Points(2.2), Color: color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 255}}

// addDivergent marks on p the points (x[k], y[k]) of the draws with
// div[k] > 0.
func addDivergent(p *plot.Plot, x, y []float64, div []int) error {
	var pts plotter.XYs
	for k, d := range div {
		if d > 0 && k < len(x) && finite(x[k]) && finite(y[k]) {
			pts = append(pts, plotter.XY{X: x[k], Y: y[k]})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = divergentMark
	p.Add(sc)
	return nil
}

// divergentCount returns the number of draws that follow a divergent
// transition and the number of those transitions.
func divergentCount(div []int) (draws, transitions int) {
	for _, d := range div {
		if d > 0 {
			draws++
			transitions += d
		}
	}
	return draws, transitions
}

// pooledDivergent returns the divergent transitions recorded with the
// first n draws of each chain (tempering.Result.Divergent), pooled in the
// order of pooledAll; nil if the result records none.
func pooledDivergent(res *tempering.Result, n int) []int {
	if res == nil || res.Divergent == nil {
		return nil
	}
	var out []int
	for _, d := range res.Divergent {
		if len(d) < n {
			return nil
		}
		out = append(out, d[:n]...)
	}
	return out
}

// pooledAll is every chain's draws of a variable, in order, NaN kept (so
// that pairs stay aligned).
func pooledAll(chains [][]float64) []float64 {
	var out []float64
	for _, x := range chains {
		out = append(out, x...)
	}
	return out
}

// rhatParamsFigure draws each parameter's R-hat as a dot on its own row
// (labels readable at any number of parameters), with the verdict's
// 1.01 and the ideal 1 as vertical lines; values below 1 are shown.
func rhatParamsFigure(base string, names []string, rhat []float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("R-hat per parameter (verdict: every R-hat < %.2f)", diag.RhatMax)
	p.X.Label.Text = "rank-normalised split R-hat"
	p.X.Tick.Marker = figs.PreciseTicks{}
	n := len(names)
	lo, hi := 1.0, diag.RhatMax
	var pts plotter.XYs
	for i, r := range rhat {
		if finite(r) {
			pts = append(pts, plotter.XY{X: r, Y: float64(n - 1 - i)})
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	pad := 0.1*(hi-lo) + 1e-4
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Add(plotter.NewGrid())
	for _, ref := range []struct {
		x    float64
		gray uint8
		name string
	}{{1, 160, "1"}, {diag.RhatMax, 0, fmt.Sprintf("%.2f (the verdict)", diag.RhatMax)}} {
		l, err := plotter.NewLine(plotter.XYs{{X: ref.x, Y: -0.5}, {X: ref.x, Y: float64(n) - 0.5}})
		if err != nil {
			return err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.RGBA{R: 200 - ref.gray, A: 255}
		if ref.x == 1 {
			l.Color = color.Gray{Y: ref.gray}
		}
		p.Add(l)
		p.Legend.Add(ref.name, l)
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.Shape, s.Radius, s.Color = draw.CircleGlyph{}, vg.Points(3.5), plotutil.Color(0)
		p.Add(s)
	}
	labels := slices.Clone(names)
	slices.Reverse(labels)
	p.NominalY(labels...)
	p.Legend.Top = true
	return figs.Grid(base, []*plot.Plot{p}, 1, 6*vg.Inch, vg.Length(1.2+0.28*float64(n))*vg.Inch)
}

// essCurve is the smallest bulk- and tail-ESS over the variables on
// growing prefixes of the draws (vars[v][c][s]).
func essCurve(vars [][][]float64, n, points int) (draws, bulk, tail []float64) {
	for _, k := range prefixSizes(n, points) {
		b, t := math.Inf(1), math.Inf(1)
		for _, chains := range vars {
			pre := prefix(chains, k)
			b, t = min(b, diag.ESSBulk(pre)), min(t, diag.ESSTail(pre))
		}
		draws, bulk, tail = append(draws, float64(k)), append(bulk, b), append(tail, t)
	}
	return
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
