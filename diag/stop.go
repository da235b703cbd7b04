package diag

import "math"

// StopRule is a rule for ending sampling once the draws suffice, as
// tempering.Settings.Stop takes it (the CLI's --min-ess): enough when every
// variable's R̂ (Rhat) is below RhatMax and its bulk- and tail-ESS reach
// MinESS, and at least ESSPerChainMin per chain, so that a run the rule
// stops is one that Judge calls converged. MinESS may ask more than the
// verdict (a target for the Monte Carlo error of the estimates); a run
// that never reaches it is still judged by Judge's criterion alone.
//
// Stopping on the draws' own diagnostics is a sequential stopping rule of
// the kind Jones, Haran, Caffo & Neath (2006) and Vats, Flegal & Jones
// (2019) study: ending once the effective sample size reaches a target is
// asymptotically valid, and the ESS threshold keeps R̂ and the ESS
// estimates themselves reliable (Vehtari et al. 2021 ask for 100 per chain
// before trusting them).
type StopRule struct {
	// MinESS is the bulk- and tail-ESS every variable needs, all chains
	// together. It is raised to ESSPerChainMin times the number of chains.
	MinESS float64
	// Transform, if non-nil, maps each draw u to the variables judged,
	// in dst (len(dst) = len(u)): the GP's θ = exp(u), say, for R̂ to be
	// that of the reported parameters (its folded half is not invariant
	// under a nonlinear map; the ESS are).
	Transform func(dst, u []float64)
	// Observe, if non-nil, is called after each check with the draws per
	// chain and the smallest bulk- or tail-ESS over the variables (NaN
	// where one is not defined): from it a caller can foresee where the
	// rule will stop (ESS grows about linearly with the draws). The check
	// then computes every variable's ESS; its verdict is the same.
	Observe func(draws int, minESS float64)
}

// Enough reports whether draws (draws[c][s][i]: variable i of draw s of
// chain c, every chain holding the same number of draws) satisfy the rule.
// It is false for fewer than 4 draws per chain, where R̂ is not defined.
func (r StopRule) Enough(draws [][][]float64) bool {
	C := len(draws)
	if C == 0 || len(draws[0]) < 4 || len(draws[0][0]) == 0 {
		return false
	}
	n, dim := len(draws[0]), len(draws[0][0])
	need := max(r.MinESS, ESSPerChainMin*float64(C))
	flat := make([]float64, C*n*dim)
	for c, ch := range draws {
		if len(ch) != n {
			return false
		}
		for s, u := range ch {
			v := flat[(c*n+s)*dim : (c*n+s+1)*dim]
			if r.Transform != nil {
				r.Transform(v, u)
			} else {
				copy(v, u)
			}
		}
	}
	chains := make([][]float64, C)
	for c := range chains {
		chains[c] = make([]float64, n)
	}
	enough, least := true, math.Inf(1)
	for i := range dim {
		for c := range C {
			for s := range n {
				chains[c][s] = flat[(c*n+s)*dim+i]
			}
		}
		if r.Observe == nil {
			// A NaN diagnostic fails: !(x < max) and !(x ≥ need).
			if !(Rhat(chains) < RhatMax) || !(ESSBulk(chains) >= need) || !(ESSTail(chains) >= need) {
				return false
			}
			continue
		}
		bulk, tail := ESSBulk(chains), ESSTail(chains)
		if !(Rhat(chains) < RhatMax) || !(bulk >= need) || !(tail >= need) {
			enough = false
		}
		switch {
		case math.IsNaN(bulk) || math.IsNaN(tail):
			least = math.NaN()
		case !math.IsNaN(least):
			least = min(least, bulk, tail)
		}
	}
	if r.Observe != nil {
		r.Observe(n, least)
	}
	return enough
}

// ExpTransform is a StopRule.Transform that maps u to exp(u), the
// natural parameters of a model sampled on the log scale.
func ExpTransform(dst, u []float64) {
	for i, x := range u {
		dst[i] = math.Exp(x)
	}
}
