package figures

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/subtemper/subtemper/diag"
	figs "github.com/subtemper/subtemper/internal/report"
)

// energyDensities returns, pooled over the chains, the centred marginal
// energies E − Ē and the centred energy transitions ΔE − mean(ΔE),
// ΔE_n = E_n − E_{n−1} within each chain (as ArviZ's plot_energy centres
// them), non-finite values left out.
func energyDensities(energy [][]float64) (marginal, transition []float64) {
	for _, e := range energy {
		for i, v := range e {
			if finite(v) {
				marginal = append(marginal, v)
			}
			if i > 0 && finite(v) && finite(e[i-1]) {
				transition = append(transition, v-e[i-1])
			}
		}
	}
	centre := func(x []float64) {
		m := diag.Mean(x)
		for i := range x {
			x[i] -= m
		}
	}
	centre(marginal)
	centre(transition)
	return marginal, transition
}

// energyFigure draws ArviZ's energy plot of the target level's HMC or
// NUTS energies (energy[c][s]): the density of the centred marginal
// energy and of the centred energy transitions, overlaid. When the
// transitions' distribution is much narrower than the marginal one,
// resampling the momentum moves the chain slowly through the energies
// (low E-BFMI, given per chain in the title).
func energyFigure(base string, energy [][]float64, kernel string) error {
	marg, trans := energyDensities(energy)
	if len(marg) < 2 || len(trans) < 2 {
		return errors.New("fewer than 2 finite energies")
	}
	b := make([]string, len(energy))
	for c, e := range energy {
		b[c] = fmt.Sprintf("%.2f", diag.EBFMI(e))
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("energy of %s at the target level; E-BFMI per chain %s (Stan warns below %.1f)", kernel, strings.Join(b, ", "), diag.EBFMIMin)
	p.X.Label.Text = "energy minus its mean (log-density units)"
	p.Y.Label.Text = "density"
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range [][]float64{marg, trans} {
		lo, hi = min(lo, slices.Min(x)), max(hi, slices.Max(x))
	}
	pad := 0.05*(hi-lo) + 1e-9
	lo, hi = lo-pad, hi+pad
	top := 0.0
	for _, s := range []struct {
		name string
		x    []float64
		col  color.NRGBA
	}{
		{"marginal energy", marg, color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 255}},
		{"energy transition", trans, color.NRGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 255}},
	} {
		d := kde(s.x, lo, hi, 300)
		fill := append(plotter.XYs{{X: lo, Y: 0}}, d...)
		fill = append(fill, plotter.XY{X: hi, Y: 0})
		poly, err := plotter.NewPolygon(fill)
		if err != nil {
			return err
		}
		fc := s.col
		fc.A = 90
		poly.Color, poly.LineStyle.Color, poly.LineStyle.Width = fc, s.col, vg.Points(1.2)
		p.Add(poly)
		p.Legend.Add(s.name, poly)
		for _, pt := range d {
			top = max(top, pt.Y)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, 0, 1.3*top
	p.Legend.Top = true
	return figs.Grid(base, []*plot.Plot{p}, 1, 7*vg.Inch, 4.5*vg.Inch)
}
