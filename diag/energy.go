package diag

import "math"

// EBFMIMin is the E-BFMI below which Stan warns that the momentum
// resampling of HMC or NUTS explores the energy distribution poorly
// (Betancourt 2016, "Diagnosing suboptimal cotangent disintegrations in
// Hamiltonian Monte Carlo").
const EBFMIMin = 0.3

// EBFMI returns the energy Bayesian fraction of missing information of
// one chain's Hamiltonian energies E_1..E_n (Stan's energy__, in draw
// order) as Stan computes it:
//
//	E-BFMI = Σ_{n≥2} (E_n − E_{n−1})² / Σ_n (E_n − Ē)².
//
// (ArviZ's bfmi divides the mean squared difference by the variance,
// which is this times n/(n−1).) Values near 1 say that resampling the
// momentum moves the chain across the marginal energy distribution in a
// few draws; values below EBFMIMin that it cannot. It returns NaN for
// fewer than two energies, a non-finite one, or constant energies.
func EBFMI(energy []float64) float64 {
	n := len(energy)
	if n < 2 {
		return math.NaN()
	}
	var mean float64
	for _, e := range energy {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return math.NaN()
		}
		mean += e
	}
	mean /= float64(n)
	var num, den float64
	for i, e := range energy {
		den += (e - mean) * (e - mean)
		if i > 0 {
			d := e - energy[i-1]
			num += d * d
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}
