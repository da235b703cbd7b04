package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	figs "github.com/subtemper/subtemper/internal/report"
)

// predictFiguresHelp names the prediction figures in --plots' help.
const predictFiguresHelp = "predictions (the predictive mean and 50%/90% bands on a fine grid over the data, training and test points marked; 1 or 2 inputs) and, when the test file holds the target, ppc (posterior predictive checks at any number of inputs: observed against predicted with intervals, PIT histogram with its uniform band, calibration of the central intervals)"

// Sizes of the band figure's grid and of the draws it averages over: the
// figure shows the band's shape; the numbers are in predictions.csv.
const (
	gridPoints = 200
	gridDraws  = 200
)

// writePredictionPlots draws the prediction figures into dir and returns
// the paths written: for 1 or 2 inputs, predictions (one panel per input:
// the predictive mean and the 50% and 90% bands of y* on a grid of
// gridPoints over the training and test inputs' range, the other input
// held at its training median, with the training data as dots and the
// test targets as crosses); with test targets, ppc (observed against
// predicted mean with 50% and 90% intervals, the PIT histogram with the
// 99% band of a uniform PIT, and the calibration of central intervals).
// p must hold the quantiles of plotProbs.
//
// It returns the files written and the names of the figures' files not
// written (with the errors). A cancellation of ctx stops it at once
// (figs.DrawContext): the figures drawn before are whole, the others are
// among failed, and the error wraps ctx's.
func writePredictionPlots(ctx context.Context, dir string, fit *subtemper.GPFit, td *subtemper.TestData, p *gp.Predictive) (written, failed []string, err error) {
	var want []string
	if fit.Data.D <= 2 {
		want = append(want, "predictions")
	}
	if td.Y != nil && p.CDF != nil {
		want = append(want, "ppc")
	}
	written, cut, err := figs.DrawContext(ctx, dir, func(folder string, keep func(string, error)) {
		for _, name := range want {
			if ctx.Err() != nil {
				return
			}
			base := filepath.Join(folder, name)
			var err error
			if name == "predictions" {
				err = bandFigure(ctx, base, fit, td)
			} else {
				err = ppcFigure(base, fit, td, p)
			}
			if err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
			keep(base, err)
		}
	})
	for _, name := range want {
		if !slices.Contains(written, filepath.Join(dir, name+".png")) {
			failed = append(failed, name+".png", name+".svg")
		}
	}
	if cut {
		err = errors.Join(err, ctx.Err())
	}
	return written, failed, err
}

// bandFigure draws the band figure (see writePredictionPlots).
func bandFigure(ctx context.Context, base string, fit *subtemper.GPFit, td *subtemper.TestData) error {
	d := fit.Data.D
	grid, med := bandGrid(fit, td)
	gpr, err := fit.Predict(ctx, grid, d*gridPoints, subtemper.PredictOptions{Draws: gridDraws, Probs: plotProbs})
	if err != nil {
		return err
	}
	q := newIntervals(gpr.YQ, gpr.Probs)
	var panels []*plot.Plot
	for j := range d {
		pl, err := bandPanel(fit, td, grid, med, gpr.YMean, q, j)
		if err != nil {
			return err
		}
		panels = append(panels, pl)
	}
	return figs.Grid(base, panels, 1, 7*vg.Inch, 4.5*vg.Inch)
}

// intervals are the bounds of the central 90% and 50% intervals of a
// prediction: its 5%, 25%, 75% and 95% quantiles at each point.
type intervals struct{ q05, q25, q75, q95 []float64 }

// newIntervals picks the intervals' quantiles out of yq, the quantiles of
// probs (which must hold them: plotProbs).
func newIntervals(yq [][]float64, probs []float64) intervals {
	return intervals{
		q05: quantiles(yq, probs, 0.05), q25: quantiles(yq, probs, 0.25),
		q75: quantiles(yq, probs, 0.75), q95: quantiles(yq, probs, 0.95),
	}
}

// bandGrid returns the band figure's grid, gridPoints points for each
// input j in turn, over the training and test inputs' range (padded by 5%)
// with the other inputs at their training medians, and those medians.
func bandGrid(fit *subtemper.GPFit, td *subtemper.TestData) (grid, med []float64) {
	d := fit.Data.D
	col := func(x []float64, n, j int) []float64 {
		c := make([]float64, n)
		for i := range c {
			c[i] = x[i*d+j]
		}
		return c
	}
	grid = make([]float64, 0, d*gridPoints*d)
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range d {
		all := append(col(fit.Data.X, fit.Data.N, j), col(td.X, td.N, j)...)
		lo[j], hi[j] = slices.Min(all), slices.Max(all)
		pad := 0.05 * (hi[j] - lo[j])
		lo[j], hi[j] = lo[j]-pad, hi[j]+pad
	}
	med = make([]float64, d)
	for j := range d {
		c := col(fit.Data.X, fit.Data.N, j)
		sort.Float64s(c)
		med[j] = c[len(c)/2]
	}
	for j := range d {
		for k := range gridPoints {
			for i := range d {
				v := med[i]
				if i == j {
					v = lo[j] + (hi[j]-lo[j])*float64(k)/float64(gridPoints-1)
				}
				grid = append(grid, v)
			}
		}
	}
	return grid, med
}

// bandPanel draws the band figure's panel of input j: the intervals q and
// the predictive mean on grid (from bandGrid, with the medians med), the
// training data as dots, the test targets as crosses (or, without them,
// the test inputs as ticks at the bottom).
func bandPanel(fit *subtemper.GPFit, td *subtemper.TestData, grid, med, mean []float64, q intervals, j int) (*plot.Plot, error) {
	d := fit.Data.D
	pl := plot.New()
	pl.Title.Text = "posterior predictive of " + fit.Data.TargetName()
	if d == 2 {
		pl.Title.Text += fmt.Sprintf(" (%s at its median %.4g)", fit.Data.InputName(1-j), med[1-j])
	}
	pl.X.Label.Text = fit.Data.InputName(j)
	pl.Y.Label.Text = fit.Data.TargetName()
	xs := func(k int) float64 { return grid[(j*gridPoints+k)*d+j] }
	for _, b := range []struct {
		lo, hi []float64
		gray   uint8
		name   string
	}{{q.q05, q.q95, 215, "90% interval"}, {q.q25, q.q75, 170, "50% interval"}} {
		var poly plotter.XYs
		for k := range gridPoints {
			poly = append(poly, plotter.XY{X: xs(k), Y: b.lo[j*gridPoints+k]})
		}
		for k := gridPoints - 1; k >= 0; k-- {
			poly = append(poly, plotter.XY{X: xs(k), Y: b.hi[j*gridPoints+k]})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, err
		}
		pg.Color, pg.LineStyle.Width = grayColor(b.gray), 0
		pl.Add(pg)
		pl.Legend.Add(b.name, pg)
	}
	line := make(plotter.XYs, gridPoints)
	for k := range line {
		line[k] = plotter.XY{X: xs(k), Y: mean[j*gridPoints+k]}
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, err
	}
	l.Width = 1.5
	pl.Add(l)
	pl.Legend.Add("predictive mean", l)
	if err := addBandPoints(pl, fit, td, j, slices.Min(q.q05[j*gridPoints:(j+1)*gridPoints])); err != nil {
		return nil, err
	}
	pl.Legend.Top = true
	return pl, nil
}

// addBandPoints adds to the band panel pl of input j the training data as
// dots and the test targets as crosses or, without targets, the test
// inputs as ticks at height floor.
func addBandPoints(pl *plot.Plot, fit *subtemper.GPFit, td *subtemper.TestData, j int, floor float64) error {
	d := fit.Data.D
	train := make(plotter.XYs, fit.Data.N)
	for i := range train {
		train[i] = plotter.XY{X: fit.Data.X[i*d+j], Y: fit.Data.Y[i]}
	}
	s, err := plotter.NewScatter(train)
	if err != nil {
		return err
	}
	s.Color, s.Radius = rgb(0x1f, 0x77, 0xb4), vg.Points(2)
	pl.Add(s)
	pl.Legend.Add("training data", s)
	tp := make(plotter.XYs, td.N)
	for i := range tp {
		y := math.NaN()
		if td.Y != nil {
			y = td.Y[i]
		}
		tp[i] = plotter.XY{X: td.X[i*d+j], Y: y}
	}
	var glyph draw.GlyphDrawer = draw.CrossGlyph{}
	label := "test targets"
	if td.Y == nil {
		// Without targets, the test inputs as ticks on the x axis.
		for i := range tp {
			tp[i].Y = floor
		}
		glyph, label = draw.PyramidGlyph{}, "test inputs"
	}
	s, err = plotter.NewScatter(tp)
	if err != nil {
		return err
	}
	s.Color, s.Shape = rgb(0xd6, 0x27, 0x28), glyph
	pl.Add(s)
	pl.Legend.Add(label, s)
	return nil
}

// pitBins is the number of bins of the PIT histogram.
func pitBins(n int) int { return max(5, min(20, n/10)) }

// ppcFigure draws the predictive checks (see writePredictionPlots).
func ppcFigure(base string, fit *subtemper.GPFit, td *subtemper.TestData, p *gp.Predictive) error {
	obs, err := observedPanel(fit.Data.TargetName(), td, p)
	if err != nil {
		return err
	}
	pit, err := pitPanel(td.N, p.CDF)
	if err != nil {
		return err
	}
	cal, err := calibrationPanel(td.N, p.CDF)
	if err != nil {
		return err
	}
	return figs.Grid(base, []*plot.Plot{obs, pit, cal}, 3, 4.5*vg.Inch, 4.5*vg.Inch)
}

// observedPanel draws the observed test targets of name against the
// predictive mean, with each point's 50% and 90% intervals.
func observedPanel(name string, td *subtemper.TestData, p *gp.Predictive) (*plot.Plot, error) {
	n := td.N
	q := newIntervals(p.YQ, p.Probs)
	obs := plot.New()
	obs.Title.Text = "observed against predicted"
	obs.X.Label.Text = "predictive mean of " + name
	obs.Y.Label.Text = "observed " + name + " (bars: 50%, 90% intervals)"
	for _, b := range []struct {
		lo, hi []float64
		gray   uint8
		w      vg.Length
	}{{q.q05, q.q95, 200, 1}, {q.q25, q.q75, 120, 2.5}} {
		for i := range n {
			l, err := plotter.NewLine(plotter.XYs{{X: p.YMean[i], Y: b.lo[i]}, {X: p.YMean[i], Y: b.hi[i]}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = grayColor(b.gray), b.w
			obs.Add(l)
		}
	}
	pts := make(plotter.XYs, n)
	for i := range pts {
		pts[i] = plotter.XY{X: p.YMean[i], Y: td.Y[i]}
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.Color, s.Radius = rgb(0xd6, 0x27, 0x28), vg.Points(2)
	obs.Add(s)
	lo := min(slices.Min(p.YMean), slices.Min(td.Y))
	hi := max(slices.Max(p.YMean), slices.Max(td.Y))
	eq, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	eq.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	obs.Add(eq)
	obs.Legend.Add("observed = predicted", eq)
	obs.Legend.Top, obs.Legend.Left = true, true
	return obs, nil
}

// pitPanel draws the PIT histogram of the n test points' predictive CDFs
// at their observed values, with the pointwise 99% band of a uniform PIT
// (Binomial(n, 1/B) per bin, normal approximation).
func pitPanel(n int, cdf []float64) (*plot.Plot, error) {
	bins := pitBins(n)
	counts := make([]float64, bins)
	for _, u := range cdf {
		counts[min(bins-1, int(u*float64(bins)))]++
	}
	pit := plot.New()
	_, ksp := diag.KSUniform(cdf)
	pit.Title.Text = fmt.Sprintf("PIT histogram (KS p = %.2g)", ksp)
	pit.X.Label.Text = "predictive CDF at the observed value (PIT)"
	pit.Y.Label.Text = "test points per bin"
	e := float64(n) / float64(bins)
	sd := math.Sqrt(float64(n) * (1 / float64(bins)) * (1 - 1/float64(bins)))
	band, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: max(0, e-2.576*sd)}, {X: 1, Y: max(0, e-2.576*sd)}, {X: 1, Y: e + 2.576*sd}, {X: 0, Y: e + 2.576*sd}})
	if err != nil {
		return nil, err
	}
	band.Color, band.LineStyle.Width = grayColor(220), 0
	pit.Add(band)
	pit.Legend.Add("99% band of a uniform PIT", band)
	var step plotter.XYs
	for b, c := range counts {
		step = append(step, plotter.XY{X: float64(b) / float64(bins), Y: c}, plotter.XY{X: float64(b+1) / float64(bins), Y: c})
	}
	step = append(plotter.XYs{{X: 0, Y: 0}}, append(step, plotter.XY{X: 1, Y: 0})...)
	hl, err := plotter.NewLine(step)
	if err != nil {
		return nil, err
	}
	hl.Width, hl.Color = 1.5, rgb(0x1f, 0x77, 0xb4)
	pit.Add(hl)
	pit.Legend.Add("test points", hl)
	pit.Legend.Top = true
	pit.X.Min, pit.X.Max = 0, 1
	pit.Y.Min, pit.Y.Max = 0, 1.3*max(slices.Max(counts), e+2.576*sd) // room for the legend
	return pit, nil
}

// calibrationPanel draws the share of the n observed values inside each
// central interval (from their predictive CDFs cdf) against its level,
// with the 99% band of a calibrated one.
func calibrationPanel(n int, cdf []float64) (*plot.Plot, error) {
	cal := plot.New()
	cal.Title.Text = "calibration of central intervals"
	cal.X.Label.Text = "nominal level"
	cal.Y.Label.Text = "share of test points inside"
	levels := []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}
	var emp, bandLo, bandHi plotter.XYs
	for _, a := range levels {
		in := 0
		for _, u := range cdf {
			if math.Abs(u-0.5) <= a/2 {
				in++
			}
		}
		emp = append(emp, plotter.XY{X: a, Y: float64(in) / float64(n)})
		h := 2.576 * math.Sqrt(a*(1-a)/float64(n))
		bandLo = append(bandLo, plotter.XY{X: a, Y: max(0, a-h)})
		bandHi = append(bandHi, plotter.XY{X: a, Y: min(1, a+h)})
	}
	slices.Reverse(bandHi)
	cb, err := plotter.NewPolygon(append(bandLo, bandHi...))
	if err != nil {
		return nil, err
	}
	cb.Color, cb.LineStyle.Width = grayColor(220), 0
	cal.Add(cb)
	cal.Legend.Add("99% band of calibrated intervals", cb)
	ref, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	cal.Add(ref)
	el, ep, err := plotter.NewLinePoints(emp)
	if err != nil {
		return nil, err
	}
	el.Color, ep.Color = rgb(0x1f, 0x77, 0xb4), rgb(0x1f, 0x77, 0xb4)
	cal.Add(el, ep)
	cal.Legend.Add("observed", el, ep)
	for _, a := range []float64{0.5, 0.9} {
		k := slices.Index(levels, a)
		m, err := plotter.NewScatter(plotter.XYs{emp[k]})
		if err != nil {
			return nil, err
		}
		m.Shape, m.Radius, m.Color = draw.RingGlyph{}, vg.Points(6), rgb(0xd6, 0x27, 0x28)
		cal.Add(m)
		if a == 0.5 {
			cal.Legend.Add("50% and 90% intervals", m)
		}
	}
	cal.Legend.Top, cal.Legend.Left = true, true
	cal.X.Min, cal.X.Max, cal.Y.Min, cal.Y.Max = 0, 1, 0, 1
	return cal, nil
}

func grayColor(v uint8) color.Color { return color.Gray{Y: v} }

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }
