package subtemper

import (
	"fmt"
	"io"
	"math"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/netcdf"
)

// Draws are the draws of several variables from the same chains, as
// ReadDrawsCSV and ReadDrawsNetCDF read them (diag.Draws: Values is
// indexed [variable][chain][draw]).
type Draws = diag.Draws

// ReadDrawsCSV reads draws in long CSV form (diag.ReadCSVWith): the
// label columns of WriteDrawsCSV (or chain and draw), then one column per
// variable; name is used in error messages. With truncate, chains of
// unequal length (an interrupted run's) are cut to the shortest instead
// of refused.
func ReadDrawsCSV(r io.Reader, name string, truncate bool) (*Draws, error) {
	return diag.ReadCSVWith(r, name, diag.CSVOptions{Truncate: truncate})
}

// ReadDrawsNetCDF reads draws from a netCDF-3 file read from r (what
// WriteDrawsNetCDF writes, or xarray's to_netcdf in NETCDF3_64BIT
// format): every double variable over the dimensions (chain, draw) is a
// variable, the chains labelled 1, 2, … name is used in error messages.
func ReadDrawsNetCDF(r io.Reader, name string) (*Draws, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	nd, err := netcdf.Read(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, errmsg.Trim(err, "netcdf: "))
	}
	if len(nd.Names) == 0 {
		return nil, fmt.Errorf("%s: no double variable over the dimensions (chain, draw)", name)
	}
	d := &Draws{Names: nd.Names, Chains: make([]int, len(nd.Values)), Values: make([][][]float64, len(nd.Names))}
	for c := range d.Chains {
		d.Chains[c] = c + 1
	}
	for v := range d.Values {
		d.Values[v] = make([][]float64, len(nd.Values))
		for c, ch := range nd.Values {
			d.Values[v][c] = make([]float64, len(ch))
			for s, x := range ch {
				d.Values[v][c][s] = x[v]
			}
		}
	}
	return d, nil
}

// Diagnose summarises every variable of d (diag.Summarize: R posterior's
// summarise_draws columns and the paper's R-hat and ESS) and judges them
// (diag.Judge): converged when every R-hat is below diag.RhatMax and
// every bulk- and tail-ESS reaches diag.ESSPerChainMin per chain. Draws
// with log weights (a weighted sample: an importance-sampled fit's
// draws.csv) are summarised with their weights, every chain's pooled
// (diag.SummarizeWeighted), and judged as FitGP judges its weighted
// sample (diag.JudgeWeighted, bulk- and tail-ESS ≥ DefaultMinESS), with
// the Pareto k̂ (diag.PSIS) of the log weights as given: of weights
// already smoothed, as FitGP writes them, it comes within a few
// hundredths of the raw weights'.
func Diagnose(d *Draws) ([]diag.Summary, diag.Verdict, error) {
	if d.LogWeights != nil {
		return diagnoseWeighted(d)
	}
	sums, err := diag.Summarize(d)
	if err != nil {
		return nil, diag.Verdict{}, err
	}
	return sums, diag.Judge(sums, len(d.Chains)), nil
}

// diagnoseWeighted is Diagnose of draws with log weights.
func diagnoseWeighted(d *Draws) ([]diag.Summary, diag.Verdict, error) {
	w := d.Weights()
	var finite []float64
	for _, ch := range d.LogWeights {
		for _, lw := range ch {
			if !math.IsInf(lw, -1) {
				finite = append(finite, lw)
			}
		}
	}
	_, k := diag.PSIS(finite)
	sums := make([]diag.Summary, len(d.Names))
	for v, name := range d.Names {
		var err error
		if sums[v], err = diag.SummarizeWeighted(name, diag.Pool(d.Values[v]), w); err != nil {
			return nil, diag.Verdict{}, err
		}
	}
	return sums, diag.JudgeWeighted(sums, k, DefaultMinESS), nil
}
