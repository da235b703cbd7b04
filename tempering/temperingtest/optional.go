package temperingtest

import (
	"math"
	"math/rand/v2"

	"github.com/subtemper/subtemper/tempering"
)

// resumeCase is one sequence of the GradResumer check: an evaluation
// without gradient on first at firstU, optionally something else, then a
// resume on sub at u.
type resumeCase struct {
	name       string
	first, sub []int
	firstU, u  []float64
	between    func()
}

// resume checks that every resume that says ok gives the value and
// gradient of a fresh evaluation, including resumes that should refuse.
func (c *checker) resume(points [][]float64) {
	gr, ok := c.tg.(tempering.GradResumer)
	if !ok {
		return
	}
	p, q := points[0], points[len(points)-1]
	if len(points) == 1 {
		q = make([]float64, len(p))
		for k := range p {
			q[k] = p[k] + 0.25
		}
	}
	s1, s2 := c.sub(1), c.sub(2)
	g := make([]float64, c.dim)
	for _, rc := range []resumeCase{
		{name: "the same subset and point", first: s1, firstU: p, sub: s1, u: p},
		{name: "a prefix of the subset", first: s1, firstU: p, sub: s2, u: p},
		{name: "all observations", first: nil, firstU: p, sub: nil, u: p},
		{name: "another point", first: s1, firstU: p, sub: s1, u: q},
		{name: "a subset longer than the last", first: s2, firstU: p, sub: s1, u: p},
		{name: "the subset listed in reverse", first: s1, firstU: p, sub: reversed(s1), u: p},
		{name: "an evaluation with gradient in between", first: s1, firstU: p, sub: s1, u: p,
			between: func() { _, _ = c.tg.LogLik(s1, q, g) }},
		{name: "an evaluation at another point in between", first: s1, firstU: p, sub: s1, u: p,
			between: func() { _, _ = c.tg.LogLik(s2, q, nil) }},
	} {
		what := "LogLikResume after " + rc.name
		if _, ok := c.lik(what, c.tg, rc.first, rc.firstU, nil); !ok {
			continue
		}
		if rc.between != nil {
			rc.between()
		}
		ll, ok, err := gr.LogLikResume(rc.sub, rc.u, g)
		if !ok {
			continue
		}
		g0 := make([]float64, c.dim)
		want, wok := c.lik(what, c.ref, rc.sub, rc.u, g0)
		if err != nil && wok {
			c.errorf("%s: %v, but LogLik gives %.17g", what, err, want)
		}
		if err == nil && wok && (!c.close(ll, want) || !c.closeAll(g, g0)) {
			c.errorf("%s: value %.17g, gradient %v; LogLik %.17g, %v", what, ll, g, want, g0)
		}
	}
}

// reorder checks, on a clone, that Reorder changes no value: on all
// observations, on prefixes of the check's permutation and on a subset in
// reverse order, after a random reordering and after reordering by the
// permutation itself.
func (c *checker) reorder(p []float64) {
	cl := c.newClone()
	if cl == nil {
		return
	}
	defer closeTarget(cl)
	r, ok := cl.(tempering.Reorderer)
	if !ok {
		return
	}
	subs := [][]int{nil, c.sub(1), c.sub(2), reversed(c.sub(1))}
	want := make([]float64, len(subs))
	for j, s := range subs {
		want[j], _ = c.lik("Reorder", cl, s, p, nil)
	}
	for _, perm := range [][]int{c.rng.Perm(c.n), c.perm} {
		if err := r.Reorder(perm); err != nil {
			return // the reordering is only turned off
		}
		for j, s := range subs {
			if got, ok := c.lik("Reorder", cl, s, p, nil); ok && !c.close(got, want[j]) {
				c.errorf("Reorder: after reordering, LogLik on %s = %.17g, before %.17g", describe(s), got, want[j])
			}
		}
	}
}

// starts checks the starting points of a Starter and the prior draws of a
// PriorSampler: finite log prior (and log-likelihood, for starts).
func (c *checker) starts() {
	u := make([]float64, c.dim)
	if s, ok := c.tg.(tempering.Starter); ok {
		for ch := range 3 {
			s.Start(ch, 3, u)
			if lp := c.tg.LogPrior(u, nil); math.IsNaN(lp) || math.IsInf(lp, 0) {
				c.errorf("Start(%d, 3): LogPrior at %v = %v", ch, u, lp)
				continue
			}
			c.lik("Start", c.tg, nil, u, nil)
		}
	}
	if ps, ok := c.tg.(tempering.PriorSampler); ok {
		rng := rand.New(rand.NewPCG(c.o.Seed, 0x9e10))
		for range 5 {
			ps.SamplePrior(rng, u)
			if lp := c.tg.LogPrior(u, nil); math.IsNaN(lp) || math.IsInf(lp, 0) {
				c.errorf("SamplePrior drew %v, whose LogPrior is %v", u, lp)
			}
		}
	}
}
