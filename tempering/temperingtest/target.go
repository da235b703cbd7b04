package temperingtest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/tempering"
)

// TargetOptions configures CheckTarget. Zero fields take the documented
// defaults, so the zero value is a sensible check.
type TargetOptions struct {
	// Points are the points u (len Dim, in the sampling space) at which
	// the target is checked; its log prior and log-likelihood must be
	// finite at each. Empty means the starting points of 3 chains when the
	// target is a tempering.Starter, then 2 points drawn uniformly in
	// (−2, 2)^Dim (Run's initialisation rule).
	Points [][]float64
	// Seed determines the random points and the subsets.
	Seed uint64
	// Step is the finite-difference step h. Zero means 1e-5.
	Step float64
	// GradTol is the largest relative error of a gradient component,
	// relative to the largest finite-difference component (CompareGrad).
	// Zero means 1e-5.
	GradTol float64
	// ValueTol is the largest relative difference |a−b|/max(1, |a|, |b|)
	// between two values that must agree up to rounding: the same
	// log-likelihood computed with and without gradient, on a clone, in
	// another order, after a reordering, from prefixes or a resume. Zero
	// means 1e-8.
	ValueTol float64
}

func (o TargetOptions) withDefaults() TargetOptions {
	if o.Step == 0 {
		o.Step = 1e-5
	}
	if o.GradTol == 0 {
		o.GradTol = 1e-5
	}
	if o.ValueTol == 0 {
		o.ValueTol = 1e-8
	}
	return o
}

// TargetTest runs CheckTarget and reports its error, if any, with t.Error.
func TargetTest(t testing.TB, target tempering.Target, opts TargetOptions) {
	t.Helper()
	if err := CheckTarget(target, opts); err != nil {
		t.Error(err)
	}
}

// CheckTarget checks a tempering.Target and the optional interfaces it
// implements, and returns every discrepancy found (joined), or nil:
//
//   - Values: Dim ≥ 1, NumObs ≥ 1, finite log prior and log-likelihood
//     at every point; the same values with and without gradient.
//   - Gradients of LogPrior and of LogLik (all observations and a subset)
//     against central finite differences (FiniteDiff, CompareGrad).
//   - Subsets: LogLik on 0..N−1 and on a permutation of it equals LogLik
//     on nil (all); LogLik on nested prefixes perm[:N_m] of a random
//     permutation, largest first as SPT evaluates them, equals a fresh
//     evaluation (on a clone, smallest first) and the same subset listed
//     in reverse order: a subset is a set, and no value may depend on
//     what was evaluated before.
//   - Clone: the clone gives the original's values; after the clone is
//     evaluated elsewhere (and reordered, for a tempering.Reorderer) the
//     original still gives its own; the two evaluated concurrently (run
//     with -race) give the values they give alone.
//   - tempering.PrefixLiker: with ok, the value and gradient are
//     LogLik's and pre[j] is LogLik on the leading ks[j] observations.
//   - tempering.GradResumer: whenever a resume says ok (after an
//     evaluation without gradient on the same subset, on a longer one, at
//     another point, after an evaluation elsewhere), its value and
//     gradient are those of a fresh evaluation.
//   - tempering.Reorderer: reordering changes no value.
//   - tempering.Starter and tempering.PriorSampler: their points have
//     finite density.
//
// A panic in the target is reported as an error. Clones the check makes
// are closed if they implement io.Closer. It costs about 6·Dim + 4·log₂N
// evaluations per point and a few dozen more: give it a small data set.
func CheckTarget(target tempering.Target, opts TargetOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the target panicked: %v\n%s", r, debug.Stack())
		}
	}()
	c := &checker{tg: target, o: opts.withDefaults(), rng: rand.New(rand.NewPCG(opts.Seed, 0x7a59e7))}
	if err := c.shape(); err != nil {
		return err
	}
	ref, err := target.Clone()
	if err != nil {
		return fmt.Errorf("Clone: %w", err)
	}
	defer closeTarget(ref)
	c.ref = ref
	points := c.points()
	var good [][]float64
	for i, p := range points {
		if c.finite(i, p) {
			good = append(good, p)
		}
	}
	if len(good) == 0 {
		return errors.Join(c.errs...)
	}
	for i, p := range good {
		c.gradients(i, p)
		c.subsets(i, p)
		c.prefixes(i, p)
	}
	c.clone(good)
	c.resume(good)
	c.reorder(good[0])
	c.starts()
	return errors.Join(c.errs...)
}

// checker holds one CheckTarget's target, a clone of it for fresh
// reference evaluations, the random permutation whose prefixes are the
// subsets, their sizes N = N_0 > N_1 > … > 1 (halving), and the errors.
type checker struct {
	tg, ref tempering.Target
	o       TargetOptions
	rng     *rand.Rand
	dim, n  int
	perm    []int
	sizes   []int
	errs    []error
}

func (c *checker) errorf(format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, a...))
}

// shape checks the dimensions and draws the subsets.
func (c *checker) shape() error {
	c.dim, c.n = c.tg.Dim(), c.tg.NumObs()
	if c.dim < 1 || c.n < 1 {
		return fmt.Errorf("Dim() = %d, NumObs() = %d: both must be at least 1", c.dim, c.n)
	}
	for i, p := range c.o.Points {
		if len(p) != c.dim {
			return fmt.Errorf("option Points[%d] has length %d, Dim() is %d", i, len(p), c.dim)
		}
	}
	c.perm = c.rng.Perm(c.n)
	for k := c.n; ; k /= 2 {
		c.sizes = append(c.sizes, k)
		if k == 1 {
			break
		}
	}
	return nil
}

// sub returns the prefix of the permutation of level m's size, the last
// level's if there are fewer levels.
func (c *checker) sub(m int) []int { return c.perm[:c.sizes[min(m, len(c.sizes)-1)]] }

// points returns Options.Points or the default points.
func (c *checker) points() [][]float64 {
	if len(c.o.Points) > 0 {
		return c.o.Points
	}
	var ps [][]float64
	if s, ok := c.tg.(tempering.Starter); ok {
		for ch := range 3 {
			u := make([]float64, c.dim)
			s.Start(ch, 3, u)
			ps = append(ps, u)
		}
	}
	for range 2 {
		u := make([]float64, c.dim)
		for i := range u {
			u[i] = -2 + 4*c.rng.Float64()
		}
		ps = append(ps, u)
	}
	return ps
}

// close reports whether a and b agree to Options.ValueTol.
func (c *checker) close(a, b float64) bool {
	return math.Abs(a-b) <= c.o.ValueTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// closeAll reports whether a and b agree componentwise to ValueTol.
func (c *checker) closeAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !c.close(a[i], b[i]) {
			return false
		}
	}
	return true
}

// lik evaluates tg's log-likelihood, recording an error or a value that is
// not finite under what; ok is false then.
func (c *checker) lik(what string, tg tempering.Target, subset []int, u, grad []float64) (float64, bool) {
	ll, err := tg.LogLik(subset, u, grad)
	if err != nil {
		c.errorf("%s: LogLik on %s: %v", what, describe(subset), err)
		return ll, false
	}
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		c.errorf("%s: LogLik on %s = %v", what, describe(subset), ll)
		return ll, false
	}
	return ll, true
}

// describe names a subset in messages.
func describe(subset []int) string {
	if subset == nil {
		return "all observations (nil)"
	}
	return fmt.Sprintf("a subset of %d", len(subset))
}

// finite checks that the log prior and log-likelihood are finite at p.
func (c *checker) finite(i int, p []float64) bool {
	what := fmt.Sprintf("point %d %v", i, p)
	if lp := c.tg.LogPrior(p, nil); math.IsNaN(lp) || math.IsInf(lp, 0) {
		c.errorf("%s: LogPrior = %v (choose Points where the density is finite)", what, lp)
		return false
	}
	_, ok := c.lik(what, c.tg, nil, p, nil)
	return ok
}

// closeTarget closes a clone that holds resources.
func closeTarget(t tempering.Target) {
	if cl, ok := t.(io.Closer); ok {
		_ = cl.Close()
	}
}

// prefixOf returns the first k indices of subset (of 0..N−1 for nil).
func prefixOf(subset []int, k int) []int {
	if subset != nil {
		return subset[:k]
	}
	p := make([]int, k)
	for i := range p {
		p[i] = i
	}
	return p
}

// reversed returns a reversed copy of s.
func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}
