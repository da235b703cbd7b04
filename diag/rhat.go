package diag

import "math"

// rhatCore is posterior's .rhat without its checks:
// sqrt((B/W + n − 1)/n) with B = n·var(chain means) and W the mean of the
// within-chain variances. It needs at least 2 chains and 2 draws per chain.
func rhatCore(chains [][]float64) float64 {
	c, n := len(chains), len(chains[0])
	if c < 2 || n < 2 {
		return math.NaN()
	}
	b, w := betweenWithin(chains)
	return math.Sqrt((b/w + float64(n) - 1) / float64(n))
}

// betweenWithin returns B = n/(C−1)·Σ(mean_c − mean)² and W, the mean of the
// within-chain sample variances, of the draws divided by a power of two
// 2^e that brings draws of a very large or very small magnitude near 1
// (e = 0 for ordinary draws; see scaleExp): B and W are 4^e times smaller
// than those of the draws, and ratios of them are the same.
func betweenWithin(chains [][]float64) (b, w float64) {
	chains = scaledChains(chains, scaleExp(chains...))
	c, n := len(chains), len(chains[0])
	means := make([]float64, c)
	for i, x := range chains {
		means[i] = Mean(x)
		w += variance(x)
	}
	w /= float64(c)
	b = float64(n) * variance(means)
	return b, w
}

// RhatPaper returns the paper's potential scale reduction (eq. 8), the
// classic Gelman–Rubin R̂ of C chains of S draws without splitting or rank
// normalization: sqrt(Var/W) with Var = (S−1)/S·W + B/S,
// B = S/(C−1)·Σ_c(mean_c − mean)² and W the mean within-chain variance. It
// equals posterior's rhat_basic(x, split = FALSE).
//
// It is NaN for input that Validate rejects, for fewer than 2 chains or 2
// draws per chain, and for draws that hold NaN or ±Inf or are constant. It
// is +Inf when every chain is constant but the chains differ.
func RhatPaper(chains [][]float64) float64 {
	if _, _, ok := shape(chains); !ok || returnsNaN(chains) {
		return math.NaN()
	}
	return rhatCore(chains)
}

// ESSPaper returns the paper's effective sample size (eq. 9),
// C·S·min(1, Var/B), with Var and B as in RhatPaper. Its NaN cases are
// those of RhatPaper; it is C·S when the chain means agree exactly (B = 0).
func ESSPaper(chains [][]float64) float64 {
	c, n, ok := shape(chains)
	if !ok || c < 2 || n < 2 || returnsNaN(chains) {
		return math.NaN()
	}
	b, w := betweenWithin(chains)
	s := float64(n)
	v := (s-1)/s*w + b/s
	return float64(c) * s * math.Min(1, v/b)
}

// RhatBasic returns the split R̂ of the raw draws, without rank
// normalization (posterior's rhat_basic with split = TRUE). It is NaN for
// input that Validate rejects, for fewer than 4 draws per chain and for
// draws that hold NaN or ±Inf or are constant.
func RhatBasic(chains [][]float64) float64 {
	if _, n, ok := shape(chains); !ok || n < 4 || returnsNaN(chains) {
		return math.NaN()
	}
	return rhatCore(SplitChains(chains))
}

// rankRhat is posterior's .rhat(z_scale(.split_chains(x))) for NaN-free x
// with at least 4 draws per chain.
func rankRhat(chains [][]float64) float64 {
	z := zScale(SplitChains(chains))
	if returnsNaN(z) {
		return math.NaN()
	}
	return rhatCore(z)
}

// RhatBulk returns the rank-normalized split R̂ (Vehtari et al. 2021): the
// split R̂ of the rank-normalized draws (see RankNormalize), ranked after
// splitting, so that for an odd number of draws the dropped middle draws
// take no part.
//
// It is NaN for input that Validate rejects, for fewer than 4 draws per
// chain (posterior 1.4 returns a number for 2 or 3 draws that comes from a
// transposition in its chain splitting), for draws that hold a NaN, and for
// constant draws. ±Inf draws are ranked like any other. It is +Inf when
// every split chain is constant but they differ.
func RhatBulk(chains [][]float64) float64 {
	if _, n, ok := shape(chains); !ok || n < 4 || hasNaN(chains) {
		return math.NaN()
	}
	return rankRhat(chains)
}

// RhatTail returns the folded rank-normalized split R̂: RhatBulk of the
// draws folded about the median of all draws (see Fold). Its NaN cases are
// those of RhatBulk, and also draws whose folding is undefined (more than
// half of them +Inf, or −Inf). Finite draws that span more than the
// float64 range are folded halved, so that no distance overflows.
func RhatTail(chains [][]float64) float64 {
	if _, n, ok := shape(chains); !ok || n < 4 || hasNaN(chains) {
		return math.NaN()
	}
	return tailRhat(chains, Median(Pool(chains)))
}

// tailRhat is RhatTail of NaN-free chains whose median is m.
func tailRhat(chains [][]float64, m float64) float64 {
	f := foldAbout(chains, m)
	if hasNaN(f) {
		return math.NaN()
	}
	if hasInf(f) && !hasInf(chains) {
		// Finite draws whose distance from the median overflows: they
		// span more than the float64 range, and the overflowed distances
		// would tie at +Inf. Halving the draws and the median (exact
		// above 2^−1021) halves every distance and keeps their order,
		// which is all the ranks see.
		f = foldAbout(scaledChains(chains, 1), m/2)
	}
	return rankRhat(f)
}

// Rhat returns the rank-normalized split R̂ of Vehtari et al. (2021), the
// larger of RhatBulk and RhatTail, as posterior's rhat. It is NaN when
// either is NaN.
func Rhat(chains [][]float64) float64 {
	return nanMax(RhatBulk(chains), RhatTail(chains))
}

// nanMax is R's max of two numbers: NaN if either is NaN.
func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return max(a, b)
}

// nanMin is R's min of two numbers: NaN if either is NaN.
func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return min(a, b)
}
