package bench

import (
	"context"
	"fmt"
	"os"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// frontDoorFit is BenchmarkLargeFit's fitgp: subtemper.FitGP itself on
// t's data and prior, as `subtemper gp` runs it with no tuning flags
// (seed 0: the defaults; another seed: the default settings with that
// seed, the warm start and importance sampling from WarmStartMinN as
// the defaults choose them). Its work is priced from the fit's own
// counts: the warm start's stages and proposal, then the fresh weighted
// draws' log densities and the climbs' gradients, or the chains'
// per-level statistics.
func frontDoorFit(t tempering.Target, seed uint64, cost Coster) (*largeFitResult, error) {
	m, ok := t.(*gp.Model)
	if !ok {
		return nil, fmt.Errorf("fitgp: the target is a %T, not a GP", t)
	}
	n := t.NumObs()
	opt := subtemper.GPOptions{Backend: m.Backend(), Prior: m.Prior(), Kernel: m.Kernel()}
	if seed != 0 {
		st := subtemper.DefaultGPSettings()
		st.Seed = seed
		opt.Settings, opt.WarmKeep = &st, &subtemper.WarmKeep{}
		if n >= subtemper.WarmStartMinN {
			opt.WarmStart, opt.Importance = subtemper.WarmStartOn, subtemper.ImportanceOn
		}
	}
	fmt.Fprintf(os.Stderr, "largefit N=%d: method fitgp, seed %d\n", n, seed)
	cpu0, _ := tempering.ProcessCPU()
	f, err := subtemper.FitGP(context.Background(), m.Data(), opt)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cpu1, _ := tempering.ProcessCPU()
	r := &largeFitResult{cpu: (cpu1 - cpu0).Seconds()}
	r.warmCPU = r.cpu - f.SamplingCPU.Seconds()
	if ws := f.Mode; ws != nil {
		r.warmEquiv, r.modes = warmWork(ws, cost, n), ws.Modes
	}
	if w := f.Weighted; w != nil {
		return r, weightedWork(r, f, cost, n)
	}
	e, err := efficiencyOf(f.Result, t.Dim())
	if err != nil {
		return nil, err
	}
	levels := append(append([]tempering.LevelStats(nil), f.Result.Stats.Retired...), f.Result.Stats.Levels...)
	r.gradEquiv = r.warmEquiv + Predict(levels, cost)/cost.Grad(n)
	r.levels, r.draws, r.eff = len(f.Result.Betas), len(f.Result.Draws[0]), e
	fmt.Fprintf(os.Stderr, "largefit N=%d fitgp: chains, %d draws/chain, levels %d, grad-equiv %.0f (warm %.0f), cpu %.1f s (warm %.1f), R-hat %.4f, ESS %.0f/%.0f\n",
		n, r.draws, r.levels, r.gradEquiv, r.warmEquiv, r.cpu, r.warmCPU, e.MaxRhat, e.MinESSBulk, e.MinESSTail)
	fmt.Fprintf(os.Stderr, "largefit N=%d fitgp: means %.5f\nlargefit N=%d fitgp: mcse %.5f\n", n, e.Means, n, e.MCSE)
	return r, nil
}

// warmWork returns the warm start's work in full-data gradients of n
// observations: its stages' gradients (the corners' and the Hessian's
// included) and its proposal's log densities.
func warmWork(ws *tempering.WarmStart, cost Coster, n int) float64 {
	var w float64
	for _, s := range ws.Stages {
		w += float64(s.Evals) * cost.Grad(s.Size) / cost.Grad(n)
	}
	if p := ws.Proposal; p != nil {
		w += float64(p.Evals()) * cost.Value(n) / cost.Grad(n)
	}
	return w
}

// weightedWork completes frontDoorFit for an importance-sampled fit f:
// the work of its fresh draws (those that failed included) and climbs,
// its verdict (the one the CLI prints, with the Pareto k̂ as max_rhat)
// and its weighted means of u.
func weightedWork(r *largeFitResult, f *subtemper.GPFit, cost Coster, n int) error {
	w := f.Weighted
	fresh := len(w.Draws) + w.Failed - w.Reused
	r.gradEquiv = r.warmEquiv + float64(fresh)*cost.Value(n)/cost.Grad(n) + float64(w.ClimbEvals)
	r.draws = len(w.Draws)
	v, err := f.Verdict()
	if err != nil {
		return err
	}
	r.eff = &Efficiency{MaxRhat: w.K, MinESSBulk: v.MinESSBulk, MinESSTail: v.MinESSTail, Converged: v.Converged}
	weights := w.Weights()
	x := make([]float64, len(w.Draws))
	for p := range len(w.Draws[0]) {
		for i, u := range w.Draws {
			x[i] = u[p]
		}
		s, err := diag.SummarizeWeighted(fmt.Sprintf("u%d", p+1), x, weights)
		if err != nil {
			return err
		}
		r.eff.Means, r.eff.MCSE = append(r.eff.Means, s.Mean), append(r.eff.MCSE, s.MCSEMean)
		r.eff.ESSBulks, r.eff.ESSTails = append(r.eff.ESSBulks, s.ESSBulk), append(r.eff.ESSTails, s.ESSTail)
	}
	fmt.Fprintf(os.Stderr, "largefit N=%d fitgp: importance, %d draws (%d reused, %d failed) from %d proposals, %d corners, %d climbs (%d gradients), modes found %d, Pareto k %.3f, ESS %.0f/%.0f, grad-equiv %.0f (warm %.0f), cpu %.1f s (warm %.1f), converged %v\n",
		n, r.draws, w.Reused, w.Failed, w.Proposals, len(f.Mode.Corners), w.Climbs, w.ClimbEvals, len(w.Modes), w.K, v.MinESSBulk, v.MinESSTail, r.gradEquiv, r.warmEquiv, r.cpu, r.warmCPU, v.Converged)
	fmt.Fprintf(os.Stderr, "largefit N=%d fitgp: means %.5f\nlargefit N=%d fitgp: se %.5f\n", n, r.eff.Means, n, r.eff.MCSE)
	return nil
}
