package diag

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/subtemper/subtemper/internal/plural"
	"gonum.org/v1/gonum/mathext"
)

// constTol is posterior's tolerance for constant draws: draws whose range
// max − min is below it are treated as constant (is_constant in posterior,
// .Machine$double.eps in R).
const constTol = 2.220446049250313e-16

// rankOffset is the fractional offset c of the rank normalization
// z = Φ⁻¹((r − c)/(S − 2c + 1)), Blom's 3/8, as in posterior's z_scale.
const rankOffset = 3.0 / 8

// ErrNoDraws, ErrEmptyChain and ErrRagged are the structural problems that
// Validate reports (wrapped with detail); test for them with errors.Is.
var (
	ErrNoDraws    = errors.New("no chains")
	ErrEmptyChain = errors.New("empty chain")
	ErrRagged     = errors.New("chains of unequal length")
)

// Validate reports whether chains, the draws of one variable indexed
// [chain][draw], can be passed to the estimators of this package: it needs
// at least one chain, at least one draw per chain and the same number of
// draws in every chain. It does not look at the values: NaN, ±Inf and
// constant draws are valid input whose diagnostics are NaN (see the package
// documentation). The estimators return NaN for input that Validate
// rejects.
func Validate(chains [][]float64) error {
	if err := validate(chains); err != nil {
		return fmt.Errorf("diag: %w", err)
	}
	return nil
}

// validate is Validate without the package's prefix in its message, for
// callers that add it with their own context.
func validate(chains [][]float64) error {
	if len(chains) == 0 {
		return ErrNoDraws
	}
	n := len(chains[0])
	for c, x := range chains {
		if len(x) == 0 {
			return fmt.Errorf("chain %d: %w", c, ErrEmptyChain)
		}
		if len(x) != n {
			return fmt.Errorf("chain %d has %s, chain 0 has %d: %w", c, plural.Count(len(x), "draw", "draws"), n, ErrRagged)
		}
	}
	return nil
}

// shape returns the number of chains and draws per chain, and false if
// Validate would reject chains.
func shape(chains [][]float64) (c, n int, ok bool) {
	if validate(chains) != nil {
		return 0, 0, false
	}
	return len(chains), len(chains[0]), true
}

// Pool returns all draws of chains in one slice, chain after chain.
func Pool(chains [][]float64) []float64 {
	var size int
	for _, x := range chains {
		size += len(x)
	}
	out := make([]float64, 0, size)
	for _, x := range chains {
		out = append(out, x...)
	}
	return out
}

// hasNaN reports whether any draw is NaN.
func hasNaN(chains [][]float64) bool {
	return hasAny(chains, math.IsNaN)
}

// hasInf reports whether any draw is +Inf or −Inf.
func hasInf(chains [][]float64) bool {
	return hasAny(chains, func(v float64) bool { return math.IsInf(v, 0) })
}

func hasAny(chains [][]float64, f func(float64) bool) bool {
	return slices.ContainsFunc(chains, func(x []float64) bool { return slices.ContainsFunc(x, f) })
}

// returnsNaN is posterior's should_return_NA: a NaN or an infinite draw, or
// draws that are constant to within constTol.
func returnsNaN(chains [][]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range chains {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return true
			}
			lo = min(lo, v)
			hi = max(hi, v)
		}
	}
	return math.Abs(hi-lo) < constTol
}

// SplitChains splits each of the C chains into its first and second half,
// giving 2C chains of ⌊n/2⌋ draws in posterior's order: the first halves of
// chains 0..C−1, then their second halves. For an odd n
// the middle draw of each chain is dropped, as posterior's split does. A
// single draw per chain is not split. The halves share memory with chains.
// SplitChains returns nil for input that Validate rejects.
func SplitChains(chains [][]float64) [][]float64 {
	c, n, ok := shape(chains)
	if !ok {
		return nil
	}
	if n == 1 {
		return slices.Clone(chains)
	}
	h := n / 2
	out := make([][]float64, 2*c)
	for i, x := range chains {
		out[i] = x[:h:h]
		out[c+i] = x[n-h:]
	}
	return out
}

// Fold returns |x − median|, the draws folded about the median of all
// draws (posterior's fold_draws), in the shape of chains. It returns nil for
// input that Validate rejects.
func Fold(chains [][]float64) [][]float64 {
	if _, _, ok := shape(chains); !ok {
		return nil
	}
	return foldAbout(chains, Median(Pool(chains)))
}

// foldAbout returns |x − m| in the shape of chains.
func foldAbout(chains [][]float64, m float64) [][]float64 {
	out := make([][]float64, len(chains))
	for c, x := range chains {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = math.Abs(v - m)
		}
		out[c] = y
	}
	return out
}

// RankNormalize returns the rank-normalized draws of chains, posterior's
// z_scale: each draw is replaced by Φ⁻¹((r − 3/8)/(S + 1/4)), where r is
// its rank among all S draws of all chains (ties get their average rank)
// and Φ⁻¹ the standard normal quantile. ±Inf draws get the extreme ranks.
// It returns nil for input that Validate rejects or that holds a NaN.
func RankNormalize(chains [][]float64) [][]float64 {
	if _, _, ok := shape(chains); !ok || hasNaN(chains) {
		return nil
	}
	return zScale(chains)
}

// zScale is RankNormalize without the checks; chains must hold no NaN.
func zScale(chains [][]float64) [][]float64 {
	pool := Pool(chains)
	order := argsort(pool)
	z := make([]float64, len(pool))
	den := float64(len(pool)) - 2*rankOffset + 1
	for lo := 0; lo < len(order); {
		// order[lo:hi] are tied; their 1-based ranks lo+1..hi average to
		// (lo+1+hi)/2.
		hi := lo + 1
		for hi < len(order) && order[hi].key == order[lo].key {
			hi++
		}
		r := float64(lo+1+hi) / 2
		v := mathext.NormalQuantile((r - rankOffset) / den)
		for _, e := range order[lo:hi] {
			z[e.pos] = v
		}
		lo = hi
	}
	out := make([][]float64, len(chains))
	for c, x := range chains {
		out[c], z = z[:len(x):len(x)], z[len(x):]
	}
	return out
}
