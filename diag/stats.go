package diag

import (
	"math"
	"slices"
)

// safeExp bounds the binary exponents of draws that the sums of squares of
// this package take as they are. Below 2^safeExp in magnitude, a sum of up
// to 2^100 squared deviations cannot overflow; above 2^−safeExp, the square
// of the largest deviation of draws that are not all equal cannot
// underflow. Draws beyond the bounds are scaled by a power of two first.
const safeExp = 448

// scaleExp returns e such that the largest finite |v| in xs lies in
// [2^(e−1), 2^e), when that lies outside [2^−safeExp, 2^safeExp]; else, and
// when there is no finite non-zero draw, 0. Dividing the draws by 2^e
// (exact, for draws that are not subnormal) brings them near 1.
func scaleExp(xs ...[]float64) int {
	var m float64
	for _, x := range xs {
		for _, v := range x {
			if a := math.Abs(v); a > m && !math.IsInf(a, 0) {
				m = a
			}
		}
	}
	if m == 0 || math.IsNaN(m) {
		return 0
	}
	_, e := math.Frexp(m)
	if e >= -safeExp && e <= safeExp {
		return 0
	}
	return e
}

// scaled returns a copy of x with every value multiplied by 2^−e (exactly,
// unless it is subnormal before or after).
func scaled(x []float64, e int) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Ldexp(v, -e)
	}
	return y
}

// scaledChains returns chains with every draw multiplied by 2^−e, a copy,
// or chains itself for e == 0.
func scaledChains(chains [][]float64, e int) [][]float64 {
	if e == 0 {
		return chains
	}
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c] = scaled(x, e)
	}
	return out
}

// Mean returns the arithmetic mean of x (with a second pass that corrects
// rounding, as R's mean does), or NaN for empty x. A NaN in x gives NaN;
// +Inf and −Inf together give NaN. Finite draws have a finite mean, even
// when their sum exceeds the float64 range.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	m := mean(x)
	if math.IsInf(m, 0) || math.IsNaN(m) {
		// Overflow of the sum of finite draws: average them scaled by a
		// power of two (exactly), and scale back.
		if e := scaleExp(x); e != 0 && !slices.ContainsFunc(x, func(v float64) bool { return math.IsInf(v, 0) || math.IsNaN(v) }) {
			return math.Ldexp(mean(scaled(x, e)), e)
		}
	}
	return m
}

// mean is Mean without the guard against overflow.
func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	n := float64(len(x))
	m := s / n
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	var t float64
	for _, v := range x {
		t += v - m
	}
	return m + t/n
}

// SD returns the sample standard deviation of x, with denominator
// len(x) − 1 (R's sd). It is NaN for fewer than 2 draws and when x holds a
// NaN or an infinite value. Draws of any finite magnitude give a finite SD
// (as long as it is within the float64 range): the squares are summed
// over the draws scaled by a power of two, which leaves ordinary draws
// as they are.
func SD(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	if e := scaleExp(x); e != 0 {
		return math.Ldexp(math.Sqrt(variance(scaled(x, e))), e)
	}
	return math.Sqrt(variance(x))
}

// variance is the sample variance of x, denominator len(x) − 1. Its sum of
// squares may overflow or underflow for draws beyond 2^±safeExp in
// magnitude: callers scale them first (see scaleExp).
func variance(x []float64) float64 {
	m := Mean(x)
	var s float64
	for _, v := range x {
		d := v - m
		s += d * d
	}
	return s / float64(len(x)-1)
}

// Quantile returns the p-quantile of x by R's default rule (type 7: linear
// interpolation between order statistics x₍ₖ₎ at k = 1 + (n−1)p), which
// posterior's quantile2 uses. It returns NaN if x is empty, p is outside
// [0, 1] or NaN, or x holds a NaN (quantile2 returns NA for draws with NA).
func Quantile(x []float64, p float64) float64 {
	if len(x) == 0 || !(p >= 0 && p <= 1) || slices.ContainsFunc(x, math.IsNaN) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileSorted(s, p)
}

// quantileSorted is Quantile on sorted s, without checks, computed as R's
// quantile.default computes type 7.
func quantileSorted(s []float64, p float64) float64 {
	index := 1 + float64(len(s)-1)*p
	lo := math.Floor(index)
	hi := math.Ceil(index)
	q := s[int(lo)-1]
	if xh := s[int(hi)-1]; index > lo && xh != q {
		h := index - lo
		q = (1-h)*q + h*xh
	}
	return q
}

// Median returns the median of x (the mean of the two middle order
// statistics for even len(x)), or NaN if x is empty or holds a NaN.
func Median(x []float64) float64 {
	if len(x) == 0 || slices.ContainsFunc(x, math.IsNaN) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return medianSorted(s)
}

// medianSorted is Median on sorted, non-empty s.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return Mean(s[n/2-1 : n/2+1])
}

// madConst scales the median absolute deviation to estimate the standard
// deviation of normal draws (R's mad default, 1.4826).
const madConst = 1.4826

// MAD returns the median absolute deviation about the median, scaled by
// 1.4826 as R's mad is: 1.4826·median(|x − median(x)|). It returns NaN if x
// is empty or holds a NaN.
func MAD(x []float64) float64 {
	if len(x) == 0 || slices.ContainsFunc(x, math.IsNaN) {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return madSorted(s)
}

// madSorted is MAD on sorted, non-empty, NaN-free s. The absolute
// deviations are merged in order from the two sorted runs on either side of
// the median, in O(n).
func madSorted(s []float64) float64 {
	m := medianSorted(s)
	if math.IsInf(m, 0) {
		return math.NaN() // R: Inf − Inf is NaN, and so is the median
	}
	k, _ := slices.BinarySearch(s, m) // s[:k] < m ≤ s[k:]
	d := make([]float64, 0, len(s))
	i, j := k-1, k
	for i >= 0 || j < len(s) {
		if j >= len(s) || (i >= 0 && m-s[i] <= s[j]-m) {
			d = append(d, math.Abs(s[i]-m))
			i--
		} else {
			d = append(d, math.Abs(s[j]-m))
			j++
		}
	}
	return madConst * medianSorted(d)
}
