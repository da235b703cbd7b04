package main

import (
	"errors"
	"image/color"
	"path/filepath"
	"sort"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
)

// predictFiguresHelp names the prediction figures in --plots' help.
const predictFiguresHelp = "predictions (the predictive bands; 1 or 2 inputs)"

// writePredictionPlots draws, for a fit with one input, the training data,
// the predictive mean and the 50% and 90% bands of y* against the input
// (test points sorted by it; test targets, when given, as crosses); for
// two inputs, one such panel per input, the bands drawn as intervals at
// each test point. It writes predictions.png and predictions.svg; p must
// hold the quantiles of plotProbs.
func writePredictionPlots(dir string, fit *subtemper.GPFit, td *subtemper.TestData, p *gp.Predictive) ([]string, error) {
	d := fit.Data.D
	if d > 2 {
		return nil, errors.New("the prediction figure needs 1 or 2 input columns")
	}
	q05, q25 := quantiles(p.YQ, p.Probs, 0.05), quantiles(p.YQ, p.Probs, 0.25)
	q75, q95 := quantiles(p.YQ, p.Probs, 0.75), quantiles(p.YQ, p.Probs, 0.95)
	var written []string
	for j := range d {
		pl := plot.New()
		pl.Title.Text = "posterior predictive of " + fit.Data.TargetName()
		pl.X.Label.Text = fit.Data.InputName(j)
		pl.Y.Label.Text = fit.Data.TargetName()
		order := make([]int, td.N)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return td.X[order[a]*d+j] < td.X[order[b]*d+j] })
		band := func(lo, hi []float64) plotter.XYs {
			var poly plotter.XYs
			for _, i := range order {
				poly = append(poly, plotter.XY{X: td.X[i*d+j], Y: lo[i]})
			}
			for k := len(order) - 1; k >= 0; k-- {
				i := order[k]
				poly = append(poly, plotter.XY{X: td.X[i*d+j], Y: hi[i]})
			}
			return poly
		}
		if d == 1 {
			for _, b := range []struct {
				lo, hi []float64
				gray   uint8
				name   string
			}{{q05, q95, 215, "90% interval"}, {q25, q75, 170, "50% interval"}} {
				poly, err := plotter.NewPolygon(band(b.lo, b.hi))
				if err != nil {
					return written, err
				}
				poly.Color = grayColor(b.gray)
				poly.LineStyle.Width = 0
				pl.Add(poly)
				pl.Legend.Add(b.name, poly)
			}
		} else {
			for _, b := range []struct {
				lo, hi []float64
				gray   uint8
				w      vg.Length
			}{{q05, q95, 190, 1}, {q25, q75, 110, 2.5}} {
				for _, i := range order {
					x := td.X[i*d+j]
					l, err := plotter.NewLine(plotter.XYs{{X: x, Y: b.lo[i]}, {X: x, Y: b.hi[i]}})
					if err != nil {
						return written, err
					}
					l.Color, l.Width = grayColor(b.gray), b.w
					pl.Add(l)
				}
			}
		}
		mean := make(plotter.XYs, 0, td.N)
		for _, i := range order {
			mean = append(mean, plotter.XY{X: td.X[i*d+j], Y: p.YMean[i]})
		}
		if d == 1 {
			l, err := plotter.NewLine(mean)
			if err != nil {
				return written, err
			}
			l.Width = 1.5
			pl.Add(l)
			pl.Legend.Add("predictive mean", l)
		} else {
			s, err := plotter.NewScatter(mean)
			if err != nil {
				return written, err
			}
			pl.Add(s)
			pl.Legend.Add("predictive mean (bars: 50%, 90%)", s)
		}
		train := make(plotter.XYs, fit.Data.N)
		for i := range train {
			train[i] = plotter.XY{X: fit.Data.X[i*d+j], Y: fit.Data.Y[i]}
		}
		s, err := plotter.NewScatter(train)
		if err != nil {
			return written, err
		}
		s.Color = rgb(0x1f, 0x77, 0xb4)
		pl.Add(s)
		pl.Legend.Add("training data", s)
		if td.Y != nil {
			obs := make(plotter.XYs, td.N)
			for i := range obs {
				obs[i] = plotter.XY{X: td.X[i*d+j], Y: td.Y[i]}
			}
			s, err := plotter.NewScatter(obs)
			if err != nil {
				return written, err
			}
			s.Color = rgb(0xd6, 0x27, 0x28)
			s.Shape = crossGlyph()
			pl.Add(s)
			pl.Legend.Add("test targets", s)
		}
		pl.Legend.Top = true
		base := "predictions"
		if d == 2 {
			base += "_" + sanitizeName(fit.Data.InputName(j))
		}
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(dir, base+ext)
			if err := pl.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
				return written, err
			}
			written = append(written, path)
		}
	}
	return written, nil
}

func grayColor(v uint8) color.Color { return color.Gray{Y: v} }

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }

func crossGlyph() draw.GlyphDrawer { return draw.CrossGlyph{} }

// sanitizeName keeps letters, digits, '-' and '_' of a column name for a
// file name.
func sanitizeName(s string) string {
	b := []rune{}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			b = append(b, r)
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}
