package fit

import "math"

// FitExponent fits secs[i] ≈ prefactor·ns[i]^alpha by least squares on
// log secs = log prefactor + alpha·log ns, and returns alpha and prefactor.
// It needs at least two points with distinct positive ns and positive secs;
// otherwise (or if the lengths differ) it returns NaN, NaN.
func FitExponent(ns []int, secs []float64) (alpha, prefactor float64) {
	if len(ns) != len(secs) || len(ns) < 2 {
		return math.NaN(), math.NaN()
	}
	var sx, sy float64
	for i, n := range ns {
		if n <= 0 || !(secs[i] > 0) || math.IsInf(secs[i], 0) {
			return math.NaN(), math.NaN()
		}
		sx += math.Log(float64(n))
		sy += math.Log(secs[i])
	}
	k := float64(len(ns))
	mx, my := sx/k, sy/k
	var sxx, sxy float64
	for i, n := range ns {
		dx := math.Log(float64(n)) - mx
		sxx += dx * dx
		sxy += dx * (math.Log(secs[i]) - my)
	}
	if sxx == 0 {
		return math.NaN(), math.NaN()
	}
	alpha = sxy / sxx
	return alpha, math.Exp(my - alpha*mx)
}
