package diag

import (
	"fmt"
	"math"
	"strings"
)

// Thresholds of the convergence verdict recommended by Vehtari, Gelman,
// Simpson, Carpenter & Bürkner (2021), "Rank-normalization, folding, and
// localization: an improved R̂ for assessing convergence of MCMC", as Stan
// and R's posterior package apply them.
const (
	// RhatMax is the largest acceptable rank-normalised split R̂ (the
	// larger of bulk and tail R̂).
	RhatMax = 1.01
	// ESSPerChainMin is the smallest acceptable bulk- and tail-ESS per
	// chain: with C chains every variable needs ESS ≥ 100·C. It is the
	// verdict's only ESS criterion, whoever judges the draws (the CLI's
	// gp, mvn and diag, GPFit.Verdict, Report): a stop rule's MinESS
	// (the CLI's --min-ess) may ask more before sampling ends, but does
	// not change the verdict.
	ESSPerChainMin = 100
)

// Verdict is the convergence verdict on the draws of several variables.
type Verdict struct {
	// Converged reports that every variable has R̂ < RhatMax and bulk- and
	// tail-ESS ≥ ESSNeeded.
	Converged bool
	// MaxRhat is the largest R̂ over the variables (+Inf if one is not
	// estimable), and MinESSBulk, MinESSTail the smallest ESS (0 if one is
	// not estimable).
	MaxRhat, MinESSBulk, MinESSTail float64
	// ESSNeeded is the ESS each variable needs: ESSPerChainMin × chains.
	ESSNeeded float64
	// HighRhat, LowESSBulk and LowESSTail name the variables that fail
	// each criterion, in the order given.
	HighRhat, LowESSBulk, LowESSTail []string
	// Weighted reports a verdict on a weighted sample (JudgeWeighted),
	// which has no R̂: ParetoK is its weights' Pareto k̂, HighK reports
	// that it exceeds ParetoKMax.
	Weighted bool
	ParetoK  float64
	HighK    bool
}

// Judge returns the convergence verdict on the summaries of the variables
// of a run of chains chains (Vehtari et al. 2021): every R̂ < RhatMax and
// every bulk- and tail-ESS ≥ ESSPerChainMin per chain. A NaN R̂ or ESS (a
// constant variable, too few draws) fails its criterion: a diagnostic
// that cannot be computed cannot vouch for convergence. The same draws
// get the same verdict whatever ran them and however sampling was told
// to stop: a StopRule that ended sampling has met it.
func Judge(vars []Summary, chains int) Verdict {
	v := Verdict{ESSNeeded: ESSPerChainMin * float64(max(chains, 1)), MinESSBulk: math.Inf(1), MinESSTail: math.Inf(1)}
	if len(vars) == 0 || chains < 1 {
		v.MaxRhat, v.MinESSBulk, v.MinESSTail = math.NaN(), math.NaN(), math.NaN()
		return v
	}
	for _, s := range vars {
		r, eb, et := s.Rhat, s.ESSBulk, s.ESSTail
		if math.IsNaN(r) {
			r = math.Inf(1)
		}
		if math.IsNaN(eb) {
			eb = 0
		}
		if math.IsNaN(et) {
			et = 0
		}
		v.MaxRhat = max(v.MaxRhat, r)
		v.MinESSBulk = min(v.MinESSBulk, eb)
		v.MinESSTail = min(v.MinESSTail, et)
		if !(r < RhatMax) {
			v.HighRhat = append(v.HighRhat, s.Name)
		}
		if !(eb >= v.ESSNeeded) {
			v.LowESSBulk = append(v.LowESSBulk, s.Name)
		}
		if !(et >= v.ESSNeeded) {
			v.LowESSTail = append(v.LowESSTail, s.Name)
		}
	}
	v.Converged = len(v.HighRhat) == 0 && len(v.LowESSBulk) == 0 && len(v.LowESSTail) == 0
	return v
}

// String describes the verdict in one line: "converged (…)" or "NOT
// converged: …" with the variables that fail.
func (v Verdict) String() string {
	val := func(x float64, f string) string {
		if math.IsInf(x, 1) || math.IsNaN(x) {
			return "NA"
		}
		return fmt.Sprintf(f, x)
	}
	crit := fmt.Sprintf("every R-hat < %.2f, bulk- and tail-ESS ≥ %.0f = %d per chain", RhatMax, v.ESSNeeded, ESSPerChainMin)
	if v.Weighted {
		crit = fmt.Sprintf("Pareto k̂ %s ≤ %.1f, every bulk- and tail-ESS ≥ %.0f", val(v.ParetoK, "%.2f"), ParetoKMax, v.ESSNeeded)
	}
	if v.Converged {
		return "converged (" + crit + ")"
	}
	var why []string
	if v.HighK {
		why = append(why, fmt.Sprintf("the weights' Pareto k̂ %s > %.1f", val(v.ParetoK, "%.2f"), ParetoKMax))
	}
	if len(v.HighRhat) > 0 {
		why = append(why, fmt.Sprintf("R-hat ≥ %.2f for %s (max %s)", RhatMax, list(v.HighRhat), val(v.MaxRhat, "%.3f")))
	}
	if len(v.LowESSBulk) > 0 {
		why = append(why, fmt.Sprintf("bulk-ESS < %.0f for %s (min %.0f)", v.ESSNeeded, list(v.LowESSBulk), math.Floor(v.MinESSBulk)))
	}
	if len(v.LowESSTail) > 0 {
		why = append(why, fmt.Sprintf("tail-ESS < %.0f for %s (min %.0f)", v.ESSNeeded, list(v.LowESSTail), math.Floor(v.MinESSTail)))
	}
	if len(why) == 0 {
		return "NOT converged (no diagnostics)"
	}
	return "NOT converged: " + strings.Join(why, "; ")
}

// list names at most four variables, then how many more.
func list(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:4], ", "), len(names)-4)
}
