package bench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// Efficiency is what a fit achieved, for comparing samplers: the
// diagnostics of its draws and their cost in CPU time. ESS per
// CPU-second divides an ESS (all chains together) by the CPU time of all
// chains together, warm-up included, as scripts/compare/run_stan.R does
// for Stan, so that the two compare like for like.
type Efficiency struct {
	// MinESSBulk, MedianESSBulk and MinESSTail are over the parameters;
	// MaxRhat is the largest rank-normalised R-hat.
	MinESSBulk, MedianESSBulk, MinESSTail, MaxRhat float64
	// Converged is diag.Judge's verdict.
	Converged bool
	// CPUSeconds is the chains' CPU time together (wall time where the
	// CPU time cannot be read).
	CPUSeconds float64
	// MinPerCPUSecond and MedianPerCPUSecond are MinESSBulk and
	// MedianESSBulk divided by CPUSeconds.
	MinPerCPUSecond, MedianPerCPUSecond float64
	// MoveRate is the sampling phase's tempered-transition acceptance
	// (TT, STT) or mean swap acceptance (PT, SPT); NaN for None.
	MoveRate float64
	// Levels is the number of levels sampled with; Divergent counts
	// divergent transitions at level 0 over the whole run.
	Levels    int
	Divergent int64
	// Means holds each parameter's posterior mean and MCSE (sampling
	// space), to check samplers against one another.
	Means, MCSE []float64
	// ESSBulks and ESSTails hold each parameter's bulk- and tail-ESS, to
	// tell which parameter decides the stop.
	ESSBulks, ESSTails []float64
}

// Measure runs s on t and returns the efficiency of the draws.
func Measure(ctx context.Context, t tempering.Target, s *tempering.Settings) (*Efficiency, *tempering.Result, error) {
	res, err := tempering.Run(ctx, t, s)
	if err != nil {
		return nil, nil, err
	}
	if res.Interrupted {
		return nil, res, ctx.Err()
	}
	e, err := efficiencyOf(res, t.Dim())
	return e, res, err
}

// efficiencyOf returns the efficiency of res's draws of dim parameters.
func efficiencyOf(res *tempering.Result, dim int) (*Efficiency, error) {
	var err error
	e := &Efficiency{Levels: len(res.Betas), MoveRate: math.NaN(), Means: make([]float64, dim), MCSE: make([]float64, dim)}
	sums := make([]diag.Summary, dim)
	var bulk []float64
	for p := range dim {
		ch := make([][]float64, len(res.Draws))
		for c, d := range res.Draws {
			ch[c] = make([]float64, len(d))
			for i, u := range d {
				ch[c][i] = u[p]
			}
		}
		if sums[p], err = diag.SummarizeChains(fmt.Sprintf("u%d", p+1), ch); err != nil {
			return nil, err
		}
		bulk = append(bulk, sums[p].ESSBulk)
		e.Means[p], e.MCSE[p] = sums[p].Mean, sums[p].MCSEMean
		e.ESSBulks, e.ESSTails = append(e.ESSBulks, sums[p].ESSBulk), append(e.ESSTails, sums[p].ESSTail)
	}
	v := diag.Judge(sums, len(res.Draws))
	e.Converged, e.MaxRhat, e.MinESSBulk, e.MinESSTail = v.Converged, v.MaxRhat, v.MinESSBulk, v.MinESSTail
	slices.Sort(bulk)
	e.MedianESSBulk = bulk[len(bulk)/2]
	if len(bulk)%2 == 0 {
		e.MedianESSBulk = (bulk[len(bulk)/2-1] + bulk[len(bulk)/2]) / 2
	}
	for c := range res.ChainTimes {
		if res.ChainCPU != nil {
			e.CPUSeconds += res.ChainCPU[c].Seconds()
		} else {
			e.CPUSeconds += res.ChainTimes[c].Seconds()
		}
	}
	e.MinPerCPUSecond = e.MinESSBulk / e.CPUSeconds
	e.MedianPerCPUSecond = e.MedianESSBulk / e.CPUSeconds
	switch {
	case len(res.Ladder.SwapRates) > 0:
		var a float64
		for _, r := range res.Ladder.SwapRates {
			a += r
		}
		e.MoveRate = a / float64(len(res.Ladder.SwapRates))
	case len(res.Betas) > 1:
		e.MoveRate = res.Ladder.TTRate
	}
	e.Divergent = res.Stats.Levels[0].Divergent
	return e, nil
}

// GPCase is a GP posterior on which samplers are compared.
type GPCase struct {
	// Name is "gp/N=128/D=3" for a synthetic set, "diabetes" for the
	// diabetes data.
	Name string
	// N and D size a synthetic set (paper §4.2, data seed 1); File names
	// a CSV file instead (last column the target), standardised.
	N, D int
	File string
}

// GPCases are the posteriors of the sampler benchmarks: the paper's
// generator at N = 128, D = 3 and N = 512, D = 8, and scikit-learn's
// diabetes data (N = 442, D = 10, standardised; scripts/compare/data,
// written by scripts/compare/export_diabetes.py).
func GPCases(root string) []GPCase {
	return []GPCase{
		{Name: "gp/N=128/D=3", N: 128, D: 3},
		{Name: "gp/N=512/D=8", N: 512, D: 8},
		{Name: "diabetes", File: filepath.Join(root, "scripts", "compare", "data", "diabetes.csv")},
	}
}

// Target builds the case's GP target on be.
func (c GPCase) Target(be linalg.Backend) (tempering.Target, error) {
	if c.File == "" {
		return NewTarget(be, ModelGP, c.N, c.D, 1)
	}
	data, err := gp.ReadCSVFile(c.File, gp.CSVOptions{})
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", c.Name, err)
	}
	std, _, err := gp.Standardize(data, true, true)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", c.Name, err)
	}
	m, err := gp.New(be, std, gp.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", c.Name, err)
	}
	return m, nil
}

// PaperSettings are the paper's §4 settings for the GP with driver d and
// kernel "mh" or "hmc": fixed step, geometric ladder M = 6, β* = 1/8,
// the sweep schedule, TT and STT in Neal's form (NoBaseSteps), with the
// given chains, warm-up (0: none) and draws.
func PaperSettings(d tempering.Driver, kernel string, chains, warmup, draws int, seed uint64) (*tempering.Settings, error) {
	k, err := Kernel(kernel, ModelGP)
	if err != nil {
		return nil, err
	}
	s := paperSettings(d, k, tempering.Sweep)
	s.Chains, s.Draws, s.Seed = chains, draws, seed
	if warmup != 0 {
		s.Warmup = warmup
	}
	return s, nil
}
