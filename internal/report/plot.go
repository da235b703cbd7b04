// Package report draws the figures and tables that the command-line tool
// and the reproduction harness write: line plots (R-hat against draws or
// seconds, run time or ESS/s against N), trace plots and bar charts, each
// saved as PNG and SVG with gonum.org/v1/plot into a folder that exists.
// DrawContext draws figures so that a cancellation stops it at once.
package report

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// Series is one named line of a figure.
type Series struct {
	Name string
	X, Y []float64
	// Dashed draws the line dashed (for predictions beside measurements).
	Dashed bool
}

// LineSpec describes a line plot.
type LineSpec struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogX, LogY            bool
	// HLine, if not NaN, draws a horizontal reference line (e.g. R-hat 1.1).
	// The zero value 0 draws nothing; use HLineSet to draw one at y = 0.
	HLine    float64
	HLineSet bool
}

// Line draws a line plot and saves it as base+".png" and base+".svg".
// Points with a non-finite coordinate (or a non-positive one on a log
// axis) are skipped. The legend of the named series stands to the right
// of the plotting area, where it cannot hide a line.
func Line(base string, spec LineSpec) error {
	p := plot.New()
	p.Title.Text = spec.Title
	p.X.Label.Text = spec.XLabel
	p.Y.Label.Text = spec.YLabel
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	if spec.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if spec.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if !spec.LogX {
		p.X.Tick.Marker = PreciseTicks{}
	}
	if !spec.LogY {
		p.Y.Tick.Marker = PreciseTicks{}
	}
	p.Add(plotter.NewGrid())
	minX, maxX := math.Inf(1), math.Inf(-1)
	drawn := 0
	for i, s := range spec.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("report: series %q has %s and %s", s.Name, plural.Count(len(s.X), "x value", "x values"), plural.Count(len(s.Y), "y value", "y values"))
		}
		var xys plotter.XYs
		for k := range s.X {
			x, y := s.X[k], s.Y[k]
			if !finite(x) || !finite(y) || (spec.LogX && x <= 0) || (spec.LogY && y <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		}
		if len(xys) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return fmt.Errorf("report: series %q: %w", s.Name, err)
		}
		c := plotutil.Color(i)
		l.Color, sc.Color = c, c
		l.Width = vg.Points(1.2)
		sc.Radius = vg.Points(1.5)
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, sc)
		if s.Name != "" {
			leg.Add(s.Name, l)
		}
		drawn++
	}
	if drawn > 0 && spec.HLineSet && finite(spec.HLine) && !(spec.LogY && spec.HLine <= 0) {
		ref, err := plotter.NewLine(plotter.XYs{{X: minX, Y: spec.HLine}, {X: maxX, Y: spec.HLine}})
		if err == nil {
			ref.Color = color.Gray{Y: 100}
			ref.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(ref)
		}
	}
	return save(base, 7*vg.Inch, 4*vg.Inch, func(c draw.Canvas) { drawBeside(c, p, &leg) })
}

// drawBeside draws p on c with leg (if it has entries) in a column of its
// own at the right, level with the top of the plotting area.
func drawBeside(c draw.Canvas, p *plot.Plot, leg *plot.Legend) {
	r := leg.Rectangle(c)
	w := r.Max.X - r.Min.X
	if w <= 0 {
		p.Draw(c)
		return
	}
	pad := vg.Points(8)
	pc := c
	pc.Max.X -= w + 2*pad
	p.Draw(pc)
	lc := c
	lc.Min.X = pc.Max.X + pad
	if p.Title.Text != "" {
		lc.Max.Y -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Draw(lc)
}

// BarSpec describes a bar chart of one value per category.
type BarSpec struct {
	Title, XLabel, YLabel string
	Labels                []string
	Values                []float64
	// HLine, when HLineSet, draws a dashed horizontal reference line
	// (e.g. R-hat 1.01).
	HLine    float64
	HLineSet bool
}

// newCategoryPlot checks spec (one label per value, at least one value;
// one and many name the marks in errors) and returns a plot with its
// title and axis labels.
func newCategoryPlot(spec BarSpec, one, many string) (*plot.Plot, error) {
	if len(spec.Labels) != len(spec.Values) {
		return nil, fmt.Errorf("report: %s for %s", plural.Count(len(spec.Labels), "label", "labels"), plural.Count(len(spec.Values), one, many))
	}
	if len(spec.Values) == 0 {
		return nil, fmt.Errorf("report: %s chart with no %s", one, many)
	}
	p := plot.New()
	p.Title.Text = spec.Title
	p.X.Label.Text = spec.XLabel
	p.Y.Label.Text = spec.YLabel
	return p, nil
}

// Bars draws a bar chart and saves it as base+".png" and base+".svg".
func Bars(base string, spec BarSpec) error {
	p, err := newCategoryPlot(spec, "bar", "bars")
	if err != nil {
		return err
	}
	vals := make(plotter.Values, len(spec.Values))
	for i, v := range spec.Values {
		if finite(v) {
			vals[i] = v
		}
	}
	b, err := plotter.NewBarChart(vals, vg.Points(20))
	if err != nil {
		return fmt.Errorf("report: bars: %w", err)
	}
	b.Color = plotutil.Color(0)
	p.Add(plotter.NewGrid(), b)
	addHLine(p, spec)
	p.NominalX(spec.Labels...)
	return save(base, 6*vg.Inch, 4*vg.Inch, func(c draw.Canvas) { p.Draw(c) })
}

// Traces draws one trace panel per variable (rows), each with one line per
// chain: draws[c][v] is chain c's draws of variable v.
func Traces(base string, names []string, draws [][][]float64) error {
	if len(names) == 0 || len(draws) == 0 {
		return errors.New("report: traces: no variables or no chains")
	}
	plots := make([][]*plot.Plot, len(names))
	for v, name := range names {
		p := plot.New()
		p.Y.Label.Text = name
		if v == len(names)-1 {
			p.X.Label.Text = "draw"
		}
		for c := range draws {
			if v >= len(draws[c]) {
				return fmt.Errorf("report: traces: chain %d has no variable %d", c, v)
			}
			xs := draws[c][v]
			xys := make(plotter.XYs, 0, len(xs))
			for i, x := range xs {
				if finite(x) {
					xys = append(xys, plotter.XY{X: float64(i), Y: x})
				}
			}
			l, err := addLine(p, xys, c, vg.Points(0.6))
			if err != nil {
				return fmt.Errorf("report: traces: %s chain %d: %w", name, c, err)
			}
			if l != nil && v == 0 {
				p.Legend.Add(fmt.Sprintf("chain %d", c+1), l)
			}
		}
		p.Legend.Top = true
		plots[v] = []*plot.Plot{p}
	}
	return saveColumn(base, plots)
}

// addLine adds to p a line through pts, in the colour of series k and of
// the width given, and returns it; it adds nothing and returns nil when
// pts is empty.
func addLine(p *plot.Plot, pts plotter.XYs, k int, width vg.Length) (*plotter.Line, error) {
	if len(pts) == 0 {
		return nil, nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color = plotutil.Color(k)
	l.Width = width
	p.Add(l)
	return l, nil
}

// saveColumn saves plots (one plot a row) as one figure, 7 inches wide and
// 1.6 inches high a row, with the panels' axes aligned.
func saveColumn(base string, plots [][]*plot.Plot) error {
	h := vg.Length(len(plots)) * 1.6 * vg.Inch
	return save(base, 7*vg.Inch, h, func(dc draw.Canvas) {
		t := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
		cs := plot.Align(plots, t, dc)
		for i := range plots {
			plots[i][0].Draw(cs[i][0])
		}
	})
}

// save renders draw onto a PNG and an SVG canvas of size w×h. The
// folder of base must exist: save creates none (DrawContext counts on
// it: a folder it has taken away stays gone).
func save(base string, w, h vg.Length, render func(draw.Canvas)) error {
	img := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110), vgimg.UseBackgroundColor(color.White))}
	render(draw.New(img))
	if err := writeTo(base+".png", img.WriteTo); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	render(draw.New(svg))
	return writeTo(base+".svg", svg.WriteTo)
}

func writeTo(path string, write func(io.Writer) (int64, error)) error {
	err := fileio.Write(path, func(w *bufio.Writer) error {
		_, err := write(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// PreciseTicks are gonum's default tick positions with labels precise
// enough for their spacing: DefaultTicks can label ticks 0.15 apart with
// one decimal ("1" for 1.05, "1.3" for 1.35), which misplaces a reference
// line such as R-hat = 1.1 for the reader.
type PreciseTicks struct{}

func (PreciseTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// Panels draws one panel per variable (rows), each with one line per
// series: lines[v][k] is series k of variable v (x and y), named
// seriesNames[k] in the first panel's legend. logX[v] puts panel v's x
// axis on a log scale (non-positive x are skipped there).
func Panels(base string, names []string, xLabel string, seriesNames []string, lines [][][2][]float64, logX []bool) error {
	if len(names) == 0 || len(lines) != len(names) {
		return errors.New("report: panels: no variables, or not one set of lines per variable")
	}
	plots := make([][]*plot.Plot, len(names))
	for v, name := range names {
		p := plot.New()
		p.Y.Label.Text = name
		p.X.Label.Text = xLabel
		log := v < len(logX) && logX[v]
		if log {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = PreciseTicks{}
			p.X.Label.Text = xLabel + " (log axis)"
		}
		for k, xy := range lines[v] {
			pts := make(plotter.XYs, 0, len(xy[0]))
			for i, x := range xy[0] {
				if i < len(xy[1]) && finite(x) && finite(xy[1][i]) && (!log || x > 0) {
					pts = append(pts, plotter.XY{X: x, Y: xy[1][i]})
				}
			}
			l, err := addLine(p, pts, k, vg.Points(1))
			if err != nil {
				return fmt.Errorf("report: panels: %s series %d: %w", name, k, err)
			}
			if l != nil && v == 0 && k < len(seriesNames) {
				p.Legend.Add(seriesNames[k], l)
			}
		}
		p.Legend.Top = true
		plots[v] = []*plot.Plot{p}
	}
	return saveColumn(base, plots)
}

// addHLine draws spec's reference line, if any, and widens the y range
// to show it.
func addHLine(p *plot.Plot, spec BarSpec) {
	if !spec.HLineSet || !finite(spec.HLine) {
		return
	}
	ref := plotter.NewFunction(func(float64) float64 { return spec.HLine })
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ref.Color = color.RGBA{R: 200, A: 255}
	p.Add(ref)
	p.Y.Max = math.Max(p.Y.Max, spec.HLine+0.002*math.Abs(spec.HLine))
	p.Y.Min = math.Min(p.Y.Min, spec.HLine-0.002*math.Abs(spec.HLine))
}

// Dots draws one dot per category (a dot chart: the value axis need not
// start at 0, as R-hat's near 1 should not) and saves it as base+".png"
// and base+".svg". Non-finite values are left out.
func Dots(base string, spec BarSpec) error {
	p, err := newCategoryPlot(spec, "dot", "dots")
	if err != nil {
		return err
	}
	pts := make(plotter.XYs, 0, len(spec.Values))
	for i, v := range spec.Values {
		if finite(v) {
			pts = append(pts, plotter.XY{X: float64(i), Y: v})
		}
	}
	p.Add(plotter.NewGrid())
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("report: dots: %w", err)
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(4)
		s.GlyphStyle.Color = plotutil.Color(0)
		p.Add(s)
	}
	addHLine(p, spec)
	p.NominalX(spec.Labels...)
	p.Y.Tick.Marker = PreciseTicks{}
	return save(base, 6*vg.Inch, 4*vg.Inch, func(c draw.Canvas) { p.Draw(c) })
}

// Grid draws plots in a grid of cols columns (rows as needed), each panel
// w×h, and saves the figure as base+".png" and base+".svg". Nil plots
// leave their cell empty.
func Grid(base string, plots []*plot.Plot, cols int, w, h vg.Length) error {
	if len(plots) == 0 || cols < 1 {
		return errors.New("report: grid: no panels")
	}
	cols = min(cols, len(plots))
	rows := (len(plots) + cols - 1) / cols
	cells := make([][]*plot.Plot, rows)
	for r := range cells {
		cells[r] = make([]*plot.Plot, cols)
		for c := range cols {
			if k := r*cols + c; k < len(plots) {
				cells[r][c] = plots[k]
			}
		}
	}
	return save(base, vg.Length(cols)*w, vg.Length(rows)*h, func(dc draw.Canvas) {
		pad := vg.Points(6)
		t := draw.Tiles{Rows: rows, Cols: cols, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad, PadX: pad, PadY: pad}
		cs := plot.Align(cells, t, dc)
		for r := range cells {
			for c, p := range cells[r] {
				if p != nil {
					p.Draw(cs[r][c])
				}
			}
		}
	})
}
