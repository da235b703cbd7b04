package diag

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// ParetoKMax is the largest Pareto k̂ (PSIS) of a weighted sample's raw
// log weights whose estimates are trusted (Vehtari, Simpson, Gelman, Yao
// & Gabry, "Pareto smoothed importance sampling"): above it the weights'
// tail is too heavy for the central limit theorem to hold in practice.
const ParetoKMax = 0.7

// WeightedMean returns the estimate of the mean of x under the
// normalised weights w (Σw = 1) of a self-normalised importance sample,
// its standard error by the delta method, √Σw²(x−μ)², and its effective
// sample size, x's weighted variance over the squared standard error
// (+Inf where x is constant over the draws of positive weight).
func WeightedMean(x, w []float64) (mean, se, ess float64) {
	for i, xi := range x {
		mean += w[i] * xi
	}
	var v, s2 float64
	for i, xi := range x {
		e := xi - mean
		v += w[i] * e * e
		s2 += w[i] * w[i] * e * e
	}
	return mean, math.Sqrt(s2), essOf(v, s2)
}

// essOf is a weighted estimate's ESS: the variance v of the function
// under the posterior over the estimate's variance s2 (+Inf for s2 = 0).
func essOf(v, s2 float64) float64 {
	if s2 == 0 {
		return math.Inf(1)
	}
	return v / s2
}

// weightedOrder returns the indices of x in increasing order of x.
func weightedOrder(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	return order
}

// below returns which draws, taken in increasing order of x, make up the
// weighted mass up to x's weighted p-quantile (the smallest x whose
// weight with all smaller ones' reaches p), and that mass.
func below(w []float64, order []int, p float64) (in []bool, mass float64) {
	in = make([]bool, len(w))
	for _, i := range order {
		if mass >= p {
			break
		}
		mass += w[i]
		in[i] = true
	}
	return in, mass
}

// WeightedQuantile returns the p-quantile of x under the normalised
// weights w: the smallest x whose weight together with that of every
// smaller x reaches p (NaN for no draws).
func WeightedQuantile(x, w []float64, p float64) float64 {
	return weightedQuantile(x, w, weightedOrder(x), p)
}

func weightedQuantile(x, w []float64, order []int, p float64) float64 {
	var cum float64
	for _, i := range order {
		cum += w[i]
		if cum >= p {
			return x[i]
		}
	}
	if len(order) == 0 {
		return math.NaN()
	}
	return x[order[len(order)-1]] // rounding left the sum below p
}

// WeightedTailESS returns the effective sample size of the weighted
// estimate of the probability that x lies at or below its weighted
// p-quantile (WeightedQuantile), as WeightedMean's of that indicator:
// the tail ESS of a weighted sample, for p = 0.05 and 0.95.
func WeightedTailESS(x, w []float64, p float64) float64 {
	return weightedTailESS(w, weightedOrder(x), p)
}

func weightedTailESS(w []float64, order []int, p float64) float64 {
	in, mass := below(w, order, p)
	var s2 float64
	for i, wi := range w {
		f := 0.0
		if in[i] {
			f = 1
		}
		s2 += wi * wi * (f - mass) * (f - mass)
	}
	return essOf(mass*(1-mass), s2)
}

// SummarizeWeighted summarises one variable of a weighted sample: its
// draws x with normalised weights w (Σw = 1), as importance sampling
// makes them. Mean, SD, Median, MAD, Q5 and Q95 are the weighted ones
// (quantiles as WeightedQuantile); ESSMean, ESSBulk and MCSEMean the
// mean's (WeightedMean: a weighted sample has no rank-normalised form);
// ESSTail the smaller of WeightedTailESS at 0.05 and 0.95. The R-hats and
// the paper's ESS, which compare chains, are NaN. It returns an error
// for no draws, draws and weights of different lengths, a non-finite
// draw or a negative weight.
func SummarizeWeighted(name string, x, w []float64) (Summary, error) {
	switch {
	case len(x) == 0:
		return Summary{}, fmt.Errorf("diag: variable %q: no draws", name)
	case len(w) != len(x):
		return Summary{}, fmt.Errorf("diag: variable %q: %d draws and %d weights", name, len(x), len(w))
	}
	for i, xi := range x {
		if math.IsNaN(xi) || math.IsInf(xi, 0) {
			return Summary{}, fmt.Errorf("diag: variable %q: draw %d is %v", name, i+1, xi)
		}
		if !(w[i] >= 0) {
			return Summary{}, fmt.Errorf("diag: variable %q: weight %d is %v", name, i+1, w[i])
		}
	}
	nan := math.NaN()
	s := Summary{Name: name, Rhat: nan, RhatBulk: nan, RhatTail: nan, RhatPaper: nan, ESSPaper: nan}
	s.Mean, s.MCSEMean, s.ESSMean = WeightedMean(x, w)
	s.ESSBulk = s.ESSMean
	var v float64
	for i, xi := range x {
		v += w[i] * (xi - s.Mean) * (xi - s.Mean)
	}
	s.SD = math.Sqrt(v)
	order := weightedOrder(x)
	s.Median = weightedQuantile(x, w, order, 0.5)
	s.Q5, s.Q95 = weightedQuantile(x, w, order, 0.05), weightedQuantile(x, w, order, 0.95)
	s.ESSTail = min(weightedTailESS(w, order, 0.05), weightedTailESS(w, order, 0.95))
	dev := make([]float64, len(x))
	for i, xi := range x {
		dev[i] = math.Abs(xi - s.Median)
	}
	s.MAD = madConst * WeightedQuantile(dev, w, 0.5)
	return s, nil
}

// JudgeWeighted returns the convergence verdict on the summaries of the
// variables of a weighted sample (SummarizeWeighted) whose raw log
// weights have Pareto k̂ k: k̂ at most ParetoKMax and every variable's
// bulk- and tail-ESS at least need. MaxRhat is NaN (no chains to
// compare).
func JudgeWeighted(vars []Summary, k, need float64) Verdict {
	v := Verdict{Weighted: true, ParetoK: k, ESSNeeded: need, MaxRhat: math.NaN(), MinESSBulk: math.Inf(1), MinESSTail: math.Inf(1)}
	if len(vars) == 0 {
		v.MinESSBulk, v.MinESSTail = math.NaN(), math.NaN()
		return v
	}
	for _, s := range vars {
		eb, et := nanTo0(s.ESSBulk), nanTo0(s.ESSTail)
		v.MinESSBulk, v.MinESSTail = min(v.MinESSBulk, eb), min(v.MinESSTail, et)
		if !(eb >= need) {
			v.LowESSBulk = append(v.LowESSBulk, s.Name)
		}
		if !(et >= need) {
			v.LowESSTail = append(v.LowESSTail, s.Name)
		}
	}
	v.HighK = !(k <= ParetoKMax)
	v.Converged = !v.HighK && len(v.LowESSBulk) == 0 && len(v.LowESSTail) == 0
	return v
}

func nanTo0(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

// NormalizeWeights returns exp(lw) scaled to sum to one (zero where lw is
// −∞): the normalised weights of log weights known up to a constant.
func NormalizeWeights(lw []float64) []float64 {
	top := math.Inf(-1)
	for _, v := range lw {
		top = max(top, v)
	}
	w := make([]float64, len(lw))
	var s float64
	for i, v := range lw {
		w[i] = math.Exp(v - top)
		s += w[i]
	}
	for i := range w {
		w[i] /= s
	}
	return w
}
