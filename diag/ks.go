package diag

import (
	"math"
	"slices"
)

// KSUniform returns the Kolmogorov–Smirnov statistic of u against the
// uniform distribution on [0, 1], D = sup |F_n(x) − x|, and its
// asymptotic p-value with Stephens' (1970) correction for finite n:
// P(K > (√n + 0.12 + 0.11/√n)·D), K the Kolmogorov distribution. Applied
// to probability integral transforms (the predictive CDF at each observed
// value), a small p-value says the predictive distributions are not
// calibrated. It returns NaN, NaN for an empty u.
func KSUniform(u []float64) (d, p float64) {
	n := len(u)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	x := slices.Clone(u)
	slices.Sort(x)
	for i, v := range x {
		d = max(d, float64(i+1)/float64(n)-v, v-float64(i)/float64(n))
	}
	sn := math.Sqrt(float64(n))
	return d, kolmogorovQ((sn + 0.12 + 0.11/sn) * d)
}

// kolmogorovQ is P(K > t) = 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²t²).
func kolmogorovQ(t float64) float64 {
	if t < 0.2 {
		return 1 // the series converges slowly there; the sum is 1 to 1e-10
	}
	var s float64
	for k := 1; k <= 100; k++ {
		term := math.Exp(-2 * float64(k*k) * t * t)
		if k%2 == 1 {
			s += term
		} else {
			s -= term
		}
		if term < 1e-16 {
			break
		}
	}
	return min(max(2*s, 0), 1)
}
