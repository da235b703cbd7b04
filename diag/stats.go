package diag

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean of x (with a second pass that corrects
// rounding, as R's mean does), or NaN for empty x. A NaN in x gives NaN;
// +Inf and −Inf together give NaN.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
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
// NaN or an infinite value.
func SD(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	return math.Sqrt(variance(x))
}

// variance is the sample variance of x, denominator len(x) − 1.
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
