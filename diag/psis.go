package diag

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/floats"
)

// PSIS smooths importance ratios by Pareto-smoothed importance sampling
// (Vehtari, Simpson, Gelman, Yao & Gabry 2024; the R package loo's
// psis): the largest M = ⌈min(S/5, 3√S)⌉ of the S log ratios are
// replaced by the expected order statistics of a generalised Pareto
// distribution fitted to them (Zhang & Stephens 2009, with loo's weakly
// informative prior on k), and all are truncated at the largest raw ratio.
// It returns the smoothed log weights (unnormalised, the smallest log
// ratios unchanged) and the fitted shape k̂: above 0.7 the estimate is
// unreliable. k̂ is +Inf when the tail is too short (M < 5) or constant;
// the weights are then only truncated. PSIS is PSISReff with rEff = 1
// (independent draws).
func PSIS(logRatios []float64) (logWeights []float64, k float64) {
	return PSISReff(logRatios, 1)
}

// PSISReff is PSIS for draws of relative efficiency rEff in (0, 1] (their
// effective sample size over S, RelativeEff): the tail holds the largest
// M = ⌈min(S/5, 3√(S/rEff))⌉ log ratios, as loo's psis(r_eff = ...) does,
// so autocorrelated draws get a longer tail. An rEff outside (0, 1] or
// NaN counts as 1.
func PSISReff(logRatios []float64, rEff float64) (logWeights []float64, k float64) {
	if !(rEff > 0 && rEff <= 1) {
		rEff = 1
	}
	S := len(logRatios)
	lw := make([]float64, S)
	mx := math.Inf(-1)
	for _, v := range logRatios {
		mx = max(mx, v)
	}
	for i, v := range logRatios {
		lw[i] = v - mx
	}
	k = math.Inf(1)
	M := int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/rEff))))
	if M >= 5 && M < S {
		idx := make([]int, S)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return lw[idx[a]] < lw[idx[b]] })
		tail := idx[S-M:]
		lo, hi := lw[tail[0]], lw[tail[M-1]]
		if math.Abs(hi-lo) >= 2.220446049250313e-16/100 {
			cutoff := lw[idx[S-M-1]]
			ec := math.Exp(cutoff)
			x := make([]float64, M)
			for j, i := range tail {
				x[j] = math.Exp(lw[i]) - ec
			}
			var sigma float64
			k, sigma = gpdFit(x)
			if !math.IsInf(k, 0) && !math.IsNaN(k) {
				for j, i := range tail {
					p := (float64(j) + 0.5) / float64(M)
					lw[i] = math.Log(gpdQuantile(p, k, sigma) + ec)
				}
			}
		}
	}
	for i := range lw {
		lw[i] = min(lw[i], 0) + mx
	}
	return lw, k
}

// gpdFit fits a generalised Pareto distribution to the sorted exceedances
// x > 0 by Zhang & Stephens (2009)'s empirical Bayes method, as the R
// package loo's gpdfit does (with its weakly informative prior pulling k
// towards 0.5), and returns the shape k and scale σ.
func gpdFit(x []float64) (k, sigma float64) {
	n := len(x)
	const prior = 3.0
	m := 30 + int(math.Sqrt(float64(n)))
	xstar := x[int(float64(n)/4+0.5)-1]
	theta := make([]float64, m)
	lt := make([]float64, m)
	for j := range m {
		theta[j] = 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/prior/xstar
		// Profile log-likelihood n·(log(a/kk) − kk − 1) with a = −θ.
		a := -theta[j]
		var kk float64
		for _, v := range x {
			kk += math.Log1p(a * v)
		}
		kk /= float64(n)
		lt[j] = float64(n) * (math.Log(a/kk) - kk - 1)
	}
	mx := slices.Max(lt)
	var s float64
	for _, v := range lt {
		s += math.Exp(v - mx)
	}
	var th float64
	for j, v := range lt {
		th += theta[j] * math.Exp(v-mx) / s
	}
	for _, v := range x {
		k += math.Log1p(-th * v)
	}
	k /= float64(n)
	sigma = -k / th
	// loo's adjust_k_wip: towards 0.5 with weight 10.
	const a = 10.0
	k = k*float64(n)/(float64(n)+a) + a*0.5/(float64(n)+a)
	return k, sigma
}

// gpdQuantile is the generalised Pareto distribution's p-quantile.
func gpdQuantile(p, k, sigma float64) float64 {
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// LOO is the result of PSIS-LOO (Vehtari, Gelman & Gabry 2017).
type LOO struct {
	// ELPD is the expected log pointwise predictive density
	// Σ_i log p(y_i | y_−i) estimated by PSIS, SE its standard error
	// √(N·Var_i elpd_i), and PLOO the effective number of parameters
	// Σ_i (lpd_i − elpd_i), lpd_i = log mean_s p(y_i | ·, θ_s).
	ELPD, SE, PLOO float64
	// Pointwise holds each point's elpd_i, LPD its lpd_i and K its Pareto
	// k̂.
	Pointwise, LPD, K []float64
	// KOver07 and KOver1 count the points with k̂ > 0.7 (unreliable) and
	// k̂ > 1.
	KOver07, KOver1 int
	// REff holds each point's relative efficiency (PSISLOOChains; nil for
	// PSISLOO, which takes the draws as independent).
	REff []float64
	// Draws is the number of draws the estimate was made from.
	Draws int
}

// RelativeEff returns the relative efficiency of the draws of
// exp(logValues) for each point, their effective sample size over their
// number, as loo's relative_eff(exp(ll), chain_id) computes it: the
// multi-chain ESS of Geyer's initial monotone sequence on the unsplit,
// untransformed chains. ll[i] holds point i's values draw by draw, the
// chains' draws one chain after another, chains of equal length. A point
// whose ESS is undefined (constant values) gets 1.
func RelativeEff(ll [][]float64, chains int) ([]float64, error) {
	if chains < 1 {
		return nil, fmt.Errorf("diag: relative efficiency: %d chains", chains)
	}
	r := make([]float64, len(ll))
	for i, x := range ll {
		S := len(x)
		if S%chains != 0 {
			return nil, fmt.Errorf("diag: relative efficiency: %d draws of point %d do not split into %d chains of equal length", S, i, chains)
		}
		n := S / chains
		ch := make([][]float64, chains)
		for c := range ch {
			ch[c] = make([]float64, n)
			for s := range n {
				ch[c][s] = math.Exp(x[c*n+s])
			}
		}
		r[i] = 1
		if e := essCore(ch); e > 0 && !math.IsInf(e, 0) {
			r[i] = e / float64(S)
		}
	}
	return r, nil
}

// PSISLOOChains is PSISLOO for draws from chains Markov chains of equal
// length, ll[i] holding point i's draws one chain after another: each
// point's PSIS tail is sized by its relative efficiency (RelativeEff), as
// loo's loo(ll, r_eff = relative_eff(exp(ll), chain_id)) does.
func PSISLOOChains(ll [][]float64, chains int) (*LOO, error) {
	reff, err := RelativeEff(ll, chains)
	if err != nil {
		return nil, fmt.Errorf("diag: PSIS-LOO: %w", err)
	}
	r, err := psisLOO(ll, reff)
	if err != nil {
		return nil, err
	}
	r.REff = reff
	return r, nil
}

// PSISLOO estimates leave-one-out predictive densities from posterior
// draws: ll[i][s] is the log predictive density of point i at draw s,
// log p(y_i | y_−i, θ_s) for a model whose points are not conditionally
// independent (Bürkner, Gabry & Vehtari 2021), log p(y_i | θ_s) for one
// whose are. The importance ratios of leaving point i out are
// 1/p(y_i | ·, θ_s), smoothed by PSIS; elpd_i = log(Σ_s w_s p_s / Σ_s w_s).
// The draws count as independent; PSISLOOChains accounts for
// autocorrelated chains.
func PSISLOO(ll [][]float64) (*LOO, error) {
	return psisLOO(ll, nil)
}

// psisLOO is PSISLOO with point i's PSIS tail sized by reff[i] (nil: 1).
func psisLOO(ll [][]float64, reff []float64) (*LOO, error) {
	N := len(ll)
	if N == 0 {
		return nil, errors.New("diag: PSIS-LOO: no points")
	}
	S := len(ll[0])
	if S < 2 {
		return nil, fmt.Errorf("diag: PSIS-LOO: %d draws, want at least 2", S)
	}
	r := &LOO{Pointwise: make([]float64, N), LPD: make([]float64, N), K: make([]float64, N), Draws: S}
	neg := make([]float64, S)
	for i, x := range ll {
		if len(x) != S {
			return nil, fmt.Errorf("diag: PSIS-LOO: point %d has %d draws, point 0 %d", i, len(x), S)
		}
		for s, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("diag: PSIS-LOO: point %d, draw %d: log density %v", i, s, v)
			}
			neg[s] = -v
		}
		re := 1.0
		if reff != nil {
			re = reff[i]
		}
		lw, k := PSISReff(neg, re)
		a := make([]float64, S)
		for s := range a {
			a[s] = lw[s] + x[s]
		}
		r.Pointwise[i] = floats.LogSumExp(a) - floats.LogSumExp(lw)
		r.LPD[i] = floats.LogSumExp(x) - math.Log(float64(S))
		r.K[i] = k
		if k > 0.7 {
			r.KOver07++
		}
		if k > 1 {
			r.KOver1++
		}
		r.ELPD += r.Pointwise[i]
		r.PLOO += r.LPD[i] - r.Pointwise[i]
	}
	if N > 1 {
		r.SE = math.Sqrt(float64(N)) * SD(r.Pointwise)
	}
	return r, nil
}

// ELPDDiff returns the difference Σ_i (a_i − b_i) of two models' pointwise
// elpd on the same points and its standard error √(N·Var_i(a_i − b_i)),
// paired as the R package loo's loo_compare does.
func ELPDDiff(a, b []float64) (diff, se float64, err error) {
	if len(a) != len(b) || len(a) < 2 {
		return 0, 0, fmt.Errorf("diag: elpd difference of %d and %d points: want the same points, at least 2", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
		diff += d[i]
	}
	return diff, math.Sqrt(float64(len(d))) * SD(d), nil
}
