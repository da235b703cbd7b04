package tempering

import "math"

// A sampler is a path × a communication scheme. The path is the family
// of densities h_0 (the target), …, h_M that the levels of the ladder
// sample: tempered full-data densities (powerPath) or the posteriors of
// nested data subsets (subsetPath). The scheme (scheme.go) is how the
// levels communicate once per iteration: swaps between neighbouring
// levels, or a tempered transition up the ladder and down. Each Driver
// is one pair, chosen once when the chain is built (newPathScheme):
//
//	None: powerPath with one level, swapScheme (nothing to swap)
//	PT:   powerPath,                swapScheme
//	TT:   powerPath,                transitionScheme
//	SPT:  subsetPath,               swapScheme
//	STT:  subsetPath drawn afresh,  transitionScheme
//
// The counters, the warm-up's bookkeeping and the ladder's adaptation
// (tally.go, ladderadapt.go) stay with the Chain; the path and the scheme
// hold the arithmetic.

// path is the family of level densities a chain samples. Only start and
// refresh draw random numbers (the subsets); the evaluations its methods
// make are counted by the densities.
type path interface {
	// sizes returns the initial number of observations each level of
	// the ladder betas conditions on, out of n.
	sizes(betas []float64, n int) []int
	// configure makes d, level m's density on a ladder of subset sizes
	// sizes (its target, β_m and counters already set), the path's: which
	// observations it conditions on, what multiplies their
	// log-likelihood, and which of the target's shortcuts (PrefixLiker,
	// GradResumer) its evaluations use.
	configure(c *Chain, d *Density, m int, sizes []int)
	// start readies the path's levels on the chain c once its densities
	// are built, before the states are first evaluated.
	start(c *Chain)
	// refresh begins an iteration: a path whose levels are drawn afresh
	// every iteration draws them (from c's random stream).
	refresh(c *Chain)
	// resumed readies the path after a checkpoint's state was
	// restored over it.
	resumed() error
	// fits reports whether a ladder of subset sizes can be built on it.
	fits(sizes []int) bool

	// annealing returns each level's annealing coordinate, in which the
	// ladder's adaptation places the levels: β_m, or N_m/N.
	annealing(betas []float64, sizes []int, n int) []float64
	// place turns annealing coordinates xs, proposed over the current
	// ones x, into a ladder over n observations; ok is false if xs makes
	// no valid ladder.
	place(xs, x []float64, n int) (betas []float64, sizes []int, ok bool)

	// swapLiks returns the log-likelihoods that a swap between the
	// states a of level lo and b of level hi needs: a's on hi's
	// observations and b's on lo's.
	swapLiks(lo, hi *Density, a, b *State) (aLL, bLL float64)
	// kept completes the caches of b, offered to swap from hi's level and
	// staying there.
	kept(hi *Density, b *State)
	// swapped makes the caches of a, now at hi's level, and b, now at
	// lo's, those of their new levels, given their log-likelihoods aLL
	// and bLL there (from swapLiks); settled when no later swap of the
	// iteration evaluates b again.
	swapped(lo *Density, a, b *State, aLL, bLL float64, settled bool)
	// moveTo makes s's caches those of density d, with gradient if grad
	// (see Chain.moveTo).
	moveTo(d *Density, s *State, grad bool)
}

var (
	_ path = (*powerPath)(nil)
	_ path = (*subsetPath)(nil)
)

// powerPath tempers the full-data likelihood: log h_m = β_m·log p(X|θ) +
// log p(θ). Every level conditions on all observations, so a state's
// cached log-likelihood serves at every level.
type powerPath struct{}

func (*powerPath) sizes(betas []float64, n int) []int {
	s := make([]int, len(betas))
	for m := range s {
		s[m] = n
	}
	return s
}

func (*powerPath) configure(*Chain, *Density, int, []int) {}
func (*powerPath) start(*Chain)                           {}
func (*powerPath) refresh(*Chain)                         {}
func (*powerPath) resumed() error                         { return nil }
func (*powerPath) fits([]int) bool                        { return true }

func (*powerPath) annealing(betas []float64, _ []int, _ int) []float64 {
	return append([]float64(nil), betas...)
}

func (p *powerPath) place(xs, _ []float64, n int) ([]float64, []int, bool) {
	for m := 1; m < len(xs)-1; m++ { // guard against rounding ties
		if !(xs[m] < xs[m-1]) {
			xs[m] = math.Nextafter(xs[m-1], 0)
		}
	}
	return xs, p.sizes(xs, n), checkBetas(xs) == nil
}

// swapLiks returns the cached full-data log-likelihoods: no evaluation.
func (*powerPath) swapLiks(_, _ *Density, a, b *State) (float64, float64) {
	return a.LogLik, b.LogLik
}

// kept and swapped have nothing to do: the full-data log-likelihood and
// its gradient are the same at every level.
func (*powerPath) kept(*Density, *State)                                    {}
func (*powerPath) swapped(*Density, *State, *State, float64, float64, bool) {}

// moveTo rebases s: free.
func (*powerPath) moveTo(d *Density, s *State, _ bool) { d.rebase(s) }

// subsetPath conditions on nested subsets: log h_m = log p(X_m|θ) +
// log p(θ), X_M ⊂ … ⊂ X_1 ⊂ X_0 = X, the prefixes X_m = perm[:N_m] of a
// permutation of the observations. With fresh the subsets are drawn anew
// every iteration (STT), otherwise once per chain (SPT).
type subsetPath struct {
	perm    []int     // backing array of the recursive subsets
	fresh   bool      `ckpt:"-"`
	reorder Reorderer `ckpt:"-"` // the target, if it lays out data by perm
}

// newSubsetPath returns a subset path over n observations, perm the
// identity until the subsets are drawn.
func newSubsetPath(n int, fresh bool) *subsetPath {
	p := &subsetPath{perm: make([]int, n), fresh: fresh}
	for i := range p.perm {
		p.perm[i] = i
	}
	return p
}

func (*subsetPath) sizes(betas []float64, n int) []int {
	s := SubsetSizes(betas, n)
	s[0] = n
	return s
}

func (p *subsetPath) configure(c *Chain, d *Density, m int, sizes []int) {
	t := c.target
	d.beta = 1
	if m > 0 {
		d.subset = p.perm[:sizes[m]]
	} else if !p.fresh {
		// All observations, in the order whose prefixes are the hotter
		// levels' subsets, so that level 0's evaluations give their
		// values too. (Subsets drawn afresh every iteration would
		// outdate level 0's cached values.)
		d.subset = p.perm
	}
	// Fresh subsets are looked up only when a state moves without
	// gradient: with a kernel that needs gradients, never.
	if pl, ok := t.(PrefixLiker); ok && d.subset != nil && (!p.fresh || !c.needGrad) {
		d.pl, d.preK, d.levels = pl, sizes[m+1:], len(sizes)
	}
	// Only a level whose kernel uses gradients has one completed (with
	// PerLevel's MH above the target, level 0 alone).
	if gr, ok := t.(GradResumer); ok && !p.fresh && c.levelNeedsGrad(m) {
		d.gr = gr
	}
}

// start draws the chain's first subsets.
func (p *subsetPath) start(c *Chain) {
	p.reorder, _ = c.target.(Reorderer)
	p.draw(c)
}

func (p *subsetPath) refresh(c *Chain) {
	if p.fresh {
		p.draw(c)
	}
}

// draw draws recursive subsets X_M ⊂ … ⊂ X_1 without replacement by
// partial Fisher–Yates shuffles of nested prefixes of perm: X_m =
// perm[:N_m]. A later shuffle only permutes inside the prefix, so earlier
// sets keep their content and each X_m is a uniform subset of X_{m−1}.
func (p *subsetPath) draw(c *Chain) {
	prev := len(p.perm)
	for m := 1; m < len(c.sizes); m++ {
		k := c.sizes[m]
		for i := range k {
			j := i + c.rng.IntN(prev-i)
			p.perm[i], p.perm[j] = p.perm[j], p.perm[i]
		}
		prev = k
	}
	if p.reorder != nil {
		if err := p.reorder.Reorder(p.perm); err != nil {
			p.reorder = nil // an optimisation only: carry on without it
			return
		}
		c.countReorder()
	}
}

func (p *subsetPath) resumed() error {
	for _, k := range p.perm {
		if k < 0 || k >= len(p.perm) {
			return errCodec
		}
	}
	if p.reorder != nil {
		return p.reorder.Reorder(p.perm)
	}
	return nil
}

func (p *subsetPath) fits(sizes []int) bool {
	for _, k := range sizes {
		if k < 1 || k > len(p.perm) {
			return false
		}
	}
	return true
}

func (*subsetPath) annealing(_ []float64, sizes []int, n int) []float64 {
	x := make([]float64, len(sizes))
	for m, s := range sizes {
		x[m] = float64(s) / float64(n)
	}
	return x
}

// place rounds xs to strictly decreasing sizes (N_0 = N, N_M as before),
// with fewer levels if N_0 − N_M is smaller than M; β_m = N_m/N.
func (*subsetPath) place(xs, x []float64, n int) ([]float64, []int, bool) {
	sizes := nestedSizes(xs, n, int(math.Round(x[len(x)-1]*float64(n))))
	betas := make([]float64, len(sizes))
	for m, s := range sizes {
		betas[m] = float64(s) / float64(n)
	}
	betas[0] = 1
	return betas, sizes, len(sizes) >= 2
}

// swapLiks evaluates each state's log-likelihood on the other level's
// subset (without gradient, counted at the level whose subset is used),
// except that a's on X_m ⊂ X_{m−1} comes free from its evaluation on
// X_{m−1} when the target is a PrefixLiker.
func (*subsetPath) swapLiks(lo, hi *Density, a, b *State) (aLL, bLL float64) {
	var ok bool
	if aLL, ok = hi.prefixLik(a); !ok {
		aLL = hi.evalLik(a, nil)
	}
	return aLL, lo.evalLik(b, nil)
}

// kept: if b came to its level in this iteration's swaps, it has no
// gradient there; its evaluation on X_{m−1} just now, of which X_m is a
// prefix, gives it (GradResumer targets).
func (*subsetPath) kept(hi *Density, b *State) {
	if !b.HasGrad {
		hi.resumeGrad(b)
	}
}

// swapped: b, evaluated last, on X_{m−1}, gets its gradient there from
// that evaluation, unless a later swap evaluates it again (on X_{m−2}):
// then a rejection (kept) or a later acceptance gives it. a gets its
// gradient on X_m from level m's next transition.
func (*subsetPath) swapped(lo *Density, a, b *State, aLL, bLL float64, settled bool) {
	a.LogLik, b.LogLik = aLL, bLL
	a.HasGrad, b.HasGrad = false, false
	if settled {
		lo.resumeGrad(b)
	}
}

// moveTo evaluates s's log-likelihood on X_m, with gradient if grad;
// without it, s's cached gradient is invalid afterwards. Without
// gradient, a move to a hotter level is free when s holds the value on
// X_m from its evaluation on X_{m−1} (PrefixLiker targets).
func (*subsetPath) moveTo(d *Density, s *State, grad bool) {
	if grad && !s.HasGrad {
		d.Eval(s, true)
		return
	}
	if !grad {
		if ll, ok := d.prefixLik(s); ok {
			s.LogLik = ll
			s.LogDensity = d.combine(ll, s.LogPrior)
			s.HasGrad = false
			return
		}
	}
	var g []float64
	if grad {
		g = s.GradLik
	}
	s.LogLik = d.evalLik(s, g)
	s.LogDensity = d.combine(s.LogLik, s.LogPrior)
	s.HasGrad = grad && !math.IsInf(s.LogDensity, -1)
}
