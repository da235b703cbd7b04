package temperingtest

import (
	"fmt"
	"math"
	"sync"

	"github.com/subtemper/subtemper/tempering"
)

// gradients compares the gradients of LogPrior and LogLik (on all
// observations and on a subset) at p with finite differences, and the
// values with gradient with those without.
func (c *checker) gradients(i int, p []float64) {
	what := fmt.Sprintf("point %d", i)
	g := make([]float64, c.dim)
	lp := c.tg.LogPrior(p, g)
	if lp0 := c.tg.LogPrior(p, nil); !c.close(lp, lp0) {
		c.errorf("%s: LogPrior with gradient %.17g, without %.17g", what, lp, lp0)
	}
	fd := FiniteDiff(func(v []float64) float64 { return c.tg.LogPrior(v, nil) }, p, c.o.Step)
	if err := CompareGrad(g, fd, c.o.GradTol); err != nil {
		c.errorf("%s: LogPrior's gradient: %w", what, err)
	}
	for _, sub := range [][]int{nil, c.sub(1)} {
		ll, ok := c.lik(what, c.tg, sub, p, g)
		ll0, ok0 := c.lik(what, c.tg, sub, p, nil)
		if !ok || !ok0 {
			continue
		}
		if !c.close(ll, ll0) {
			c.errorf("%s: LogLik on %s with gradient %.17g, without %.17g", what, describe(sub), ll, ll0)
		}
		fd := FiniteDiff(func(v []float64) float64 {
			ll, err := c.tg.LogLik(sub, v, nil)
			if err != nil {
				return math.NaN()
			}
			return ll
		}, p, c.o.Step)
		if err := CompareGrad(g, fd, c.o.GradTol); err != nil {
			c.errorf("%s: LogLik's gradient on %s: %w", what, describe(sub), err)
		}
	}
}

// subsets checks that the full set, listed in any order, gives the value
// of nil, and that nested prefixes evaluated largest first (as SPT does)
// give what a fresh clone gives smallest first, and the same subsets
// listed in reverse.
func (c *checker) subsets(i int, p []float64) {
	what := fmt.Sprintf("point %d", i)
	full, ok := c.lik(what, c.tg, nil, p, nil)
	if !ok {
		return
	}
	for _, s := range [][]int{prefixOf(nil, c.n), c.perm} {
		if v, ok := c.lik(what, c.tg, s, p, nil); ok && !c.close(v, full) {
			c.errorf("%s: LogLik on all %d observations listed as a subset = %.17g, on nil %.17g", what, c.n, v, full)
		}
	}
	vals := make([]float64, len(c.sizes))
	for m := range c.sizes {
		vals[m], _ = c.lik(what, c.tg, c.sub(m), p, nil)
	}
	for m := len(c.sizes) - 1; m >= 0; m-- {
		s := c.sub(m)
		fresh, ok := c.lik(what, c.ref, s, p, nil)
		if ok && !c.close(vals[m], fresh) {
			c.errorf("%s: LogLik on the prefix of %d after the larger prefixes = %.17g, on a fresh clone %.17g", what, len(s), vals[m], fresh)
		}
		rev, ok := c.lik(what, c.tg, reversed(s), p, nil)
		if ok && !c.close(vals[m], rev) {
			c.errorf("%s: LogLik on a subset of %d = %.17g, on the same subset in reverse order %.17g", what, len(s), vals[m], rev)
		}
	}
}

// prefixes checks LogLikPrefixes, with and without gradient, on all
// observations and on a subset, against fresh evaluations.
func (c *checker) prefixes(i int, p []float64) {
	pl, ok := c.tg.(tempering.PrefixLiker)
	if !ok || len(c.sizes) < 2 {
		return
	}
	what := fmt.Sprintf("point %d: LogLikPrefixes", i)
	for m, sub := range [][]int{nil, c.sub(1)} {
		ks := c.sizes[m+1:]
		if len(ks) == 0 {
			continue
		}
		for _, withGrad := range []bool{false, true} {
			var g, g0 []float64
			if withGrad {
				g, g0 = make([]float64, c.dim), make([]float64, c.dim)
			}
			pre := make([]float64, len(ks))
			ll, ok, err := pl.LogLikPrefixes(sub, p, g, ks, pre)
			if err != nil {
				c.errorf("%s on %s: %v", what, describe(sub), err)
			}
			if !ok || err != nil {
				continue
			}
			want, ok := c.lik(what, c.ref, sub, p, g0)
			if ok && (!c.close(ll, want) || !c.closeAll(g, g0)) {
				c.errorf("%s on %s: value %.17g, gradient %v; LogLik %.17g, %v", what, describe(sub), ll, g, want, g0)
			}
			for j, k := range ks {
				want, ok := c.lik(what, c.ref, prefixOf(sub, k), p, nil)
				if ok && !c.close(pre[j], want) {
					c.errorf("%s on %s: pre[%d] (first %d) = %.17g, LogLik on them %.17g", what, describe(sub), j, k, pre[j], want)
				}
			}
		}
	}
}

// value is a target's log prior and log-likelihood with gradients at a
// point, for the clone checks.
type value struct {
	lp, ll float64
	glp    []float64
	gll    []float64
	err    error
}

func (v value) String() string {
	if v.err != nil {
		return fmt.Sprintf("log prior %.17g, LogLik error %v", v.lp, v.err)
	}
	return fmt.Sprintf("log prior %.17g (gradient %v), log-likelihood %.17g (gradient %v)", v.lp, v.glp, v.ll, v.gll)
}

func evalAt(tg tempering.Target, sub []int, u []float64) value {
	v := value{glp: make([]float64, len(u)), gll: make([]float64, len(u))}
	v.lp = tg.LogPrior(u, v.glp)
	v.ll, v.err = tg.LogLik(sub, u, v.gll)
	return v
}

func (c *checker) same(a, b value) bool {
	return a.err == nil && b.err == nil && c.close(a.lp, b.lp) && c.close(a.ll, b.ll) &&
		c.closeAll(a.glp, b.glp) && c.closeAll(a.gll, b.gll)
}

// newClone returns a clone of the target, or nil after recording
// Clone's error.
func (c *checker) newClone() tempering.Target {
	cl, err := c.tg.Clone()
	if err != nil {
		c.errorf("Clone: %v", err)
		return nil
	}
	return cl
}

// clone checks that a clone gives the original's values, that using the
// clone (evaluations elsewhere, a reordering) does not change the
// original's, and that the two evaluated concurrently give the same.
func (c *checker) clone(points [][]float64) {
	cl := c.newClone()
	if cl == nil {
		return
	}
	defer closeTarget(cl)
	sub := c.sub(1)
	want := make([]value, len(points))
	for i, p := range points {
		want[i] = evalAt(c.tg, sub, p)
		if got := evalAt(cl, sub, p); !c.same(got, want[i]) {
			c.errorf("Clone: at point %d the clone gives %v, the original %v", i, got, want[i])
		}
	}
	if r, ok := cl.(tempering.Reorderer); ok {
		_ = r.Reorder(c.rng.Perm(c.n))
	}
	for _, p := range points {
		q := make([]float64, len(p))
		for k := range p {
			q[k] = p[k] + 0.25
		}
		evalAt(cl, nil, q)
		evalAt(cl, c.sub(2), q)
	}
	for i, p := range points {
		if got := evalAt(c.tg, sub, p); !c.same(got, want[i]) {
			c.errorf("Clone: after the clone was used, the original gives at point %d %v, before %v", i, got, want[i])
		}
	}
	c.concurrent([]tempering.Target{c.tg, cl}, sub, points, want)
}

// concurrent evaluates the targets in goroutines of their own, each at
// all points three times, and checks that every value is the one the
// original gave alone.
func (c *checker) concurrent(tgs []tempering.Target, sub []int, points [][]float64, want []value) {
	errs := make([]error, len(tgs))
	var wg sync.WaitGroup
	for w, tg := range tgs {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					errs[w] = fmt.Errorf("target %d panicked: %v", w, r)
				}
			}()
			for rep := range 3 * len(points) {
				i := (rep + w) % len(points)
				if got := evalAt(tg, sub, points[i]); !c.same(got, want[i]) {
					errs[w] = fmt.Errorf("Clone: evaluated concurrently with a clone, target %d gives at point %d %v, alone %v", w, i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			c.errs = append(c.errs, err)
		}
	}
}
