package tempering

import "math"

// State is a point of a chain at one level with its cached evaluations, so
// that nothing is recomputed needlessly. The fields are valid for the level
// (density) the state was last evaluated or rebased on.
type State struct {
	// U is the position in the sampling space (len Dim).
	U []float64
	// LogDensity is log h(U) of the state's level; −∞ if it could not be
	// evaluated.
	LogDensity float64
	// LogLik is the log-likelihood of the level's observations at U, not
	// multiplied by the level's β.
	LogLik float64
	// LogPrior is log p(U).
	LogPrior float64
	// GradLik and GradPrior hold the gradients of LogLik and LogPrior when
	// HasGrad is true.
	GradLik, GradPrior []float64
	// HasGrad reports whether GradLik and GradPrior are valid at U.
	HasGrad bool
	// Replica identifies the replica that the state belongs to (PT and SPT
	// follow replicas between levels to count round trips).
	Replica int

	// pre[k] is the log-likelihood at U on level k's subset X_k for
	// preFrom ≤ k < len(pre), valid while preOK (SPT, STT with a
	// PrefixLiker target): the values a Density's evaluation gives for its
	// own and all hotter levels.
	pre     []float64
	preFrom int
	preOK   bool
}

// prefixLik returns the cached log-likelihood at s.U on level k's subset,
// if the state holds a valid one.
func (s *State) prefixLik(k int) (float64, bool) {
	if !s.preOK || k < s.preFrom || k >= len(s.pre) || math.IsNaN(s.pre[k]) {
		return 0, false
	}
	return s.pre[k], true
}

// NewState returns a State of dimension dim at the origin, not evaluated.
func NewState(dim int) *State {
	buf := make([]float64, 3*dim)
	return &State{
		U:          buf[:dim:dim],
		GradLik:    buf[dim : 2*dim : 2*dim],
		GradPrior:  buf[2*dim:],
		LogDensity: math.Inf(-1),
	}
}

// CopyFrom makes s a copy of o (positions and caches) without allocating.
// Both must have the same dimension.
func (s *State) CopyFrom(o *State) {
	copy(s.U, o.U)
	s.LogDensity, s.LogLik, s.LogPrior = o.LogDensity, o.LogLik, o.LogPrior
	s.HasGrad = o.HasGrad
	if o.HasGrad {
		copy(s.GradLik, o.GradLik)
		copy(s.GradPrior, o.GradPrior)
	}
	s.Replica = o.Replica
	s.preOK = o.preOK
	if o.preOK {
		if len(s.pre) < len(o.pre) {
			s.pre = make([]float64, len(o.pre))
		}
		copy(s.pre, o.pre)
		s.preFrom = o.preFrom
	}
}

// Grad writes the gradient of the log density of d at s into dst, from the
// state's cached gradients: dst = β·GradLik + GradPrior. s.HasGrad must be
// true.
func (d *Density) Grad(s *State, dst []float64) {
	for i := range dst {
		dst[i] = d.beta*s.GradLik[i] + s.GradPrior[i]
	}
}

// Density is the log density of one level of the ladder,
//
//	log h(u) = β·log p(X_S | u) + log p(u),
//
// with β = β_m and S all observations for PT and TT, and β = 1 and S = X_m
// for SPT and STT. It evaluates its Target and counts every evaluation in
// its level's LevelStats. Evaluation errors, NaN and +∞ are turned into a
// log density of −∞ (and counted), so they never propagate.
type Density struct {
	target Target
	level  int
	beta   float64 // multiplies the log-likelihood
	subset []int   // nil: all observations
	stats  *LevelStats

	// SPT and STT with a PrefixLiker target, at levels whose subset is a
	// prefix of the permutation that the hotter levels' subsets are
	// prefixes of: pl is the target, preK the sizes N_{m+1}, …, N_M and
	// levels the number of levels.
	pl     PrefixLiker
	preK   []int
	levels int

	// gr is the target as a GradResumer (SPT only), nil otherwise.
	gr GradResumer

	// halt is the chain's: once it is stopped, evaluations give −∞
	// without calling the target (Step then drops the iteration and its
	// counts).
	halt *halt
}

// Level returns the index m of the density's level (0 is the target).
func (d *Density) Level() int { return d.level }

// Beta returns the factor β multiplying the log-likelihood (1 for the
// subsampled drivers, whose temperature comes from the subset size).
func (d *Density) Beta() float64 { return d.beta }

// Subset returns the indices of the observations the level conditions on;
// nil means all of them. The slice must not be modified.
func (d *Density) Subset() []int { return d.subset }

// Eval evaluates the density at s.U and fills the state's caches; with
// grad, it also evaluates the gradients (s.HasGrad reports whether they are
// valid). It returns s.LogDensity.
func (d *Density) Eval(s *State, grad bool) float64 {
	var gl, gp []float64
	if grad {
		gl, gp = s.GradLik, s.GradPrior
	}
	s.HasGrad = false
	s.preOK = false
	lp := d.target.LogPrior(s.U, gp)
	d.stats.PriorEvals++
	if !validLog(lp) {
		d.invalid(lp)
		s.LogPrior, s.LogLik, s.LogDensity = math.Inf(-1), math.Inf(-1), math.Inf(-1)
		return s.LogDensity
	}
	s.LogPrior = lp
	s.LogLik = d.evalLik(s, gl)
	s.LogDensity = d.combine(s.LogLik, lp)
	s.HasGrad = grad && s.LogDensity > math.Inf(-1)
	return s.LogDensity
}

// evalLik evaluates the level's log-likelihood at s.U (with gradient into
// grad if non-nil), counting it; failures give −∞. It does not change
// s's value caches, only its cache of values on hotter levels' subsets,
// which it refreshes when the target can give them and drops otherwise.
func (d *Density) evalLik(s *State, grad []float64) float64 {
	if grad != nil {
		d.stats.EvalsGrad++
	} else {
		d.stats.Evals++
	}
	s.preOK = false
	if d.halt.stopped() {
		return math.Inf(-1)
	}
	var (
		ll  float64
		ok  bool
		err error
	)
	if d.pl != nil {
		if len(s.pre) < d.levels {
			s.pre = make([]float64, d.levels)
		}
		ll, ok, err = d.pl.LogLikPrefixes(d.subset, s.U, grad, d.preK, s.pre[d.level+1:d.levels])
	} else {
		ll, err = d.target.LogLik(d.subset, s.U, grad)
	}
	if err != nil {
		d.stats.Failed++
		return math.Inf(-1)
	}
	if !validLog(ll) {
		d.invalid(ll)
		return math.Inf(-1)
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			d.stats.Invalid++
			return math.Inf(-1)
		}
	}
	if ok {
		s.pre[d.level] = ll
		s.preFrom, s.preOK = d.level, true
	}
	return ll
}

// prefixLik returns the log-likelihood at s.U on the level's subset from
// s's cache of an evaluation on a colder level's subset, counting the
// reuse, if s holds one.
func (d *Density) prefixLik(s *State) (float64, bool) {
	if d.pl == nil {
		return 0, false
	}
	ll, ok := s.prefixLik(d.level)
	if ok {
		d.stats.PrefixReuses++
	}
	return ll, ok
}

// resumeGrad gives s, which holds the level's log-likelihood at s.U but
// no gradient, the gradients of the level's log density, completing the
// target's last evaluation (without gradient, at s.U, on a subset of which
// the level's subset is a prefix), when the target can (GradResumer). It
// reports whether it did; if not, s is unchanged. A resume that fails as
// an evaluation would leaves the state without gradient: its next
// evaluation (by the level's transition) fails the same way and is
// counted then.
func (d *Density) resumeGrad(s *State) bool {
	if d.gr == nil || d.halt.stopped() {
		return false
	}
	ll, ok, err := d.gr.LogLikResume(d.subset, s.U, s.GradLik)
	if !ok || err != nil || !validLog(ll) {
		return false
	}
	for _, g := range s.GradLik {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return false
		}
	}
	// The state's values stay as they are: exactly what an evaluation on
	// the level's subset gives, where a resume on a shorter prefix agrees
	// with it only to rounding.
	lp := d.target.LogPrior(s.U, s.GradPrior)
	d.stats.PriorEvals++
	d.stats.GradResumes++
	if !validLog(lp) {
		d.invalid(lp)
		return false
	}
	s.HasGrad = true
	return true
}

// combine returns β·ll + lp, −∞ if ll is.
func (d *Density) combine(ll, lp float64) float64 {
	if math.IsInf(ll, -1) {
		return ll
	}
	return d.beta*ll + lp
}

// rebase sets s's log density to this level's from its cached full-data
// log-likelihood and prior; valid only when d and the state's previous
// level condition on the same observations (PT and TT).
func (d *Density) rebase(s *State) {
	s.LogDensity = d.combine(s.LogLik, s.LogPrior)
}

// invalid counts a NaN or +∞ log density; −∞ is a legitimate value (zero
// density) and is not counted.
func (d *Density) invalid(v float64) {
	if !math.IsInf(v, -1) {
		d.stats.Invalid++
	}
}

// validLog reports whether v is a usable finite log density.
func validLog(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}
