package tempering

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Independence is the independence Metropolis–Hastings kernel: every
// proposal is drawn from one fixed distribution, a multivariate Student-t
// with DF degrees of freedom, location Center and scale matrix
// Scale·Cov/β (β the level's inverse temperature), and accepted with
// probability min(1, h(u′)q(u)/(h(u)q(u′))). Built from a Laplace
// approximation (WarmStart.Apply fills Center and Cov when they are
// empty) or from a proposal fitted by importance sampling
// (WarmStart.FitProposal, Proposal.Kernel), it suits the concentrated
// posteriors of large data: a transition costs one log density evaluation without gradient
// (for a GP a Cholesky factorisation, a third of a gradient's cost), and
// an accepted proposal is independent of the state it replaces. The
// t's heavier tails keep the ratio h/q bounded where the posterior's
// tails are lighter, so the chain does not stick in the tails. Nothing
// adapts; the exactness of the chain does not depend on how well q fits,
// only its efficiency does (its acceptance rate is the diagnostic).
type Independence struct {
	// Center is the proposal's location (len Dim) and Cov its scale
	// matrix (Dim×Dim, row-major, symmetric positive definite).
	Center, Cov []float64
	// Split makes the proposal a split-t (Geweke's): where it is set
	// (len 2·Dim), the coordinates z = L⁻¹(u − Center) whitened by the
	// scale matrix's Cholesky factor L have the scales Split[2i] below
	// zero and Split[2i+1] above it, each side drawn with probability
	// proportional to its scale, so the density stays continuous and its
	// normalisation does not depend on u. It covers a posterior that
	// reaches further on one side of its mode than on the other (a long
	// tail). Nil means a symmetric t.
	Split []float64
	// Scale multiplies Cov. Zero means 1.
	Scale float64
	// DF is the Student-t's degrees of freedom (> 0; +Inf: Gaussian).
	// Zero means 7.
	DF float64
	// Wide is the weight of a second, wider component: the proposal is
	// the mixture (1−Wide)·t(Center, Scale·Cov) + Wide·t(Center,
	// WideScale·Scale·Cov), with the same degrees of freedom. A wide
	// component bounds the weights posterior/proposal where the
	// posterior's tails reach further than the fitted t (defensive
	// importance sampling): an independence chain that reaches such a
	// tail leaves it again instead of sticking. In [0, 1); zero means a
	// single t.
	Wide float64
	// WideScale multiplies the wide component's scale matrix (> 1). Zero
	// means 4 (twice the spread).
	WideScale float64
	// Local is the number of random-walk Metropolis steps after each
	// independence proposal, each from N(u, (2.38²/Dim)·Scale·Cov/β):
	// where the posterior has more mass than the proposal (a tail it
	// under-covers) an independence chain sticks, and local steps keep it
	// moving there. Each costs one more log density evaluation.
	Local int
	// Screen, if set, screens every proposal (independence and local)
	// by delayed acceptance (Christen and Fox, 2005): it is first
	// accepted or rejected on Screen's approximation of the log density
	// (times β), and only a proposal the screen accepts is evaluated and
	// then accepted with the exact ratio divided by the screen's. The
	// chain stays exact whatever the screen; a screen close to the
	// density saves the evaluations of the proposals it rejects. Nil
	// means none.
	Screen *Surrogate
}

var _ Kernel = Independence{}

// NeedsGrad returns false: the kernel uses log density values only.
func (Independence) NeedsGrad() bool { return false }

// NewLevel returns the kernel's transition at a level of inverse
// temperature beta, whose proposal's scale matrix is Scale·Cov/β.
func (k Independence) NewLevel(dim int, beta float64) (LevelKernel, error) {
	scale, df := k.Scale, k.DF
	if scale == 0 {
		scale = 1
	}
	if df == 0 {
		df = 7
	}
	switch {
	case len(k.Center) != dim || len(k.Cov) != dim*dim:
		return nil, fmt.Errorf("tempering: independence kernel needs a centre of length %d and a %d×%d scale matrix, got %d and %d entries", dim, dim, dim, len(k.Center), len(k.Cov))
	case !(scale > 0) || math.IsInf(scale, 0):
		return nil, fmt.Errorf("tempering: independence kernel's scale must be positive and finite, got %v", scale)
	case !(df > 0):
		return nil, fmt.Errorf("tempering: independence kernel's degrees of freedom must be positive, got %v", df)
	case !(beta > 0 && beta <= 1):
		return nil, fmt.Errorf("tempering: independence kernel level needs β in (0,1], got %v", beta)
	}
	for _, v := range k.Center {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("tempering: independence kernel's centre is not finite")
		}
	}
	wideScale := k.WideScale
	if wideScale == 0 {
		wideScale = 4
	}
	if !(k.Wide >= 0 && k.Wide < 1) {
		return nil, fmt.Errorf("tempering: independence kernel's wide weight must be in [0, 1), got %v", k.Wide)
	}
	if !(wideScale > 1) || math.IsInf(wideScale, 0) {
		return nil, fmt.Errorf("tempering: independence kernel's wide scale must be finite and above 1, got %v", wideScale)
	}
	if k.Local < 0 {
		return nil, fmt.Errorf("tempering: independence kernel's local steps must be ≥ 0, got %d", k.Local)
	}
	if err := checkSplit(k.Split, dim); err != nil {
		return nil, err
	}
	if k.Screen != nil && k.Screen.Dim() != dim {
		return nil, fmt.Errorf("tempering: independence kernel's screen has dimension %d, want %d", k.Screen.Dim(), dim)
	}
	l := &indepLevel{center: append([]float64(nil), k.Center...), split: append([]float64(nil), k.Split...), df: df, wide: k.Wide, wideScale: wideScale, local: k.Local, chol: make([]float64, dim*dim), z: make([]float64, dim), prop: NewState(dim),
		screen: k.Screen, beta: beta, sz: make([]float64, dim)}
	a := make([]float64, dim*dim)
	for i, v := range k.Cov {
		a[i] = v * scale / beta
	}
	if !cholesky(a, l.chol, dim) {
		return nil, errors.New("tempering: independence kernel's scale matrix is not positive definite")
	}
	return l, nil
}

// checkSplit returns an error unless split is nil or 2·dim positive
// finite scales.
func checkSplit(split []float64, dim int) error {
	if split == nil {
		return nil
	}
	if len(split) != 2*dim {
		return fmt.Errorf("tempering: independence kernel's split needs %d scales, got %d", 2*dim, len(split))
	}
	for _, v := range split {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("tempering: independence kernel's split scales must be positive and finite, got %v", v)
		}
	}
	return nil
}

type indepLevel struct {
	center    []float64
	split     []float64 // nil, or the split-t's scales below and above the centre
	df        float64
	wide      float64 // the wide component's weight (0: none)
	wideScale float64 // its scale matrix over the narrow one's
	local     int
	chol      []float64 // lower Cholesky factor of the scale matrix
	z         []float64
	prop      *State
	screen    *Surrogate // delayed acceptance's screen (nil: none)
	beta      float64
	sz        []float64 // the screen's scratch
}

func (l *indepLevel) Init(d *Density, s *State) { d.Eval(s, false) }
func (l *indepLevel) Adapt(int)                 {}
func (l *indepLevel) EndWarmup()                {}

// Tuning returns the scale matrix as InvMetricDense (the product of its
// factor), for the record.
func (l *indepLevel) Tuning() Tuning { return factorTuning(l.chol, len(l.center)) }

// factorTuning returns a Tuning of step size 1 whose InvMetricDense is
// L·Lᵀ, L the D×D lower factor chol (row-major).
func factorTuning(chol []float64, D int) Tuning {
	t := Tuning{StepSize: 1, InvMetricDense: make([]float64, D*D)}
	for i := range D {
		for j := range D {
			var v float64
			for k := 0; k <= min(i, j); k++ {
				v += chol[i*D+k] * chol[j*D+k]
			}
			t.InvMetricDense[i*D+j] = v
		}
	}
	return t
}

// SetTuning does nothing: the proposal is fixed when the kernel is built.
func (l *indepLevel) SetTuning(Tuning) {}

// logQ returns the proposal's log density at u up to a constant, the t
// split by split (nil: not split).
func (l *indepLevel) logQ(u, split []float64) float64 {
	m := l.mahal(u, split)
	lq := l.logKernel(m)
	if l.wide == 0 {
		return lq
	}
	// The components' densities, each with its normalisation relative to
	// the narrow one's: the wide one's scale matrix is wideScale times
	// larger, so its density carries wideScale^(−D/2).
	lw := l.logKernel(m/l.wideScale) - 0.5*float64(len(u))*math.Log(l.wideScale)
	a, b := math.Log1p(-l.wide)+lq, math.Log(l.wide)+lw
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logQNorm is what logQ lacks of the proposal's normalised log density:
// the narrow t's normalising constant, its scale matrix's log
// determinant, and the split's 2/(lo+hi) per coordinate.
func (l *indepLevel) logQNorm() float64 {
	D := len(l.center)
	c := logTConst(l.df, D)
	for i := range D {
		c -= math.Log(l.chol[i*D+i])
	}
	if l.split != nil {
		for i := range D {
			c += math.Log(2 / (l.split[2*i] + l.split[2*i+1]))
		}
	}
	return c
}

// logKernel returns the t's (or Gaussian's) log density, up to a
// constant, at squared Mahalanobis distance m.
func (l *indepLevel) logKernel(m float64) float64 {
	if math.IsInf(l.df, 1) {
		return -0.5 * m
	}
	return -0.5 * (l.df + float64(len(l.center))) * math.Log1p(m/l.df)
}

// mahal returns the squared Mahalanobis distance of u from the centre
// under the (narrow) scale matrix.
func (l *indepLevel) mahal(u, split []float64) float64 {
	whiten(l.chol, l.center, u, l.z)
	var m float64
	for i, z := range l.z {
		if split != nil {
			if z > 0 {
				z /= split[2*i+1]
			} else {
				z /= split[2*i]
			}
		}
		m += z * z
	}
	return m
}

// whiten sets z = L⁻¹(u − center), L the lower factor chol (row-major,
// len(u)×len(u)).
func whiten(chol, center, u, z []float64) {
	D := len(u)
	for i := range D {
		v := u[i] - center[i]
		for k := range i {
			v -= chol[i*D+k] * z[k]
		}
		z[i] = v / chol[i*D+i]
	}
}

// lowerOffset sets out = base + sc·L·z, L the lower factor chol
// (row-major, len(out)×len(out)).
func lowerOffset(chol, z, base []float64, sc float64, out []float64) {
	D := len(out)
	for i := D - 1; i >= 0; i-- {
		var v float64
		for k := 0; k <= i; k++ {
			v += chol[i*D+k] * z[k]
		}
		out[i] = base[i] + sc*v
	}
}

func (l *indepLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := l.independent(rng, d, s, l.split, l.screen)
	for range l.local {
		l.localStep(rng, d, s, l.screen)
	}
	return info
}

// screened is delayed acceptance's first stage for the proposal q from s,
// dq being the proposal density's log ratio log q(u′) − log q(u) (0 for a
// symmetric one). It returns c, what the exact log density's change is
// reduced by in the second stage's log ratio, and whether the proposal
// passes the first, whose acceptance probability is p. With a screen, c is
// its log ratio ds (β times the change of its log density) and the first
// stage accepts on ds − dq; the second's ratio, the exact one over the
// screen's, is then (π′ − π − dq) − (ds − dq). Without one every proposal
// passes (p = 1) and c = dq: the plain Metropolis–Hastings ratio.
func (l *indepLevel) screened(rng *rand.Rand, s, q *State, dq float64) (c, p float64, pass bool) {
	if l.screen == nil {
		return dq, 1, true
	}
	ds := l.beta * (l.screen.LogDensity(q.U, l.sz) - l.screen.LogDensity(s.U, l.sz))
	a := ds - dq
	return ds, math.Exp(min(0, a)), a >= 0 || math.Log(rng.Float64()) < a
}

// independent makes the independence proposal's Metropolis–Hastings step,
// its ratio with the proposal's density split by split (l.split but in a
// broken variant that only tests build) and, where the level screens its
// proposals, divided by the screen's ratio when correct is the screen
// (nil only in a broken variant that only tests build).
func (l *indepLevel) independent(rng *rand.Rand, d *Density, s *State, split []float64, correct *Surrogate) StepInfo {
	q := l.prop
	q.CopyFrom(s)
	l.draw(rng, q.U)
	info := StepInfo{StepSize: 1}
	dq := l.logQ(q.U, split) - l.logQ(s.U, split)
	c, p, pass := l.screened(rng, s, q, dq)
	if !pass {
		return info // rejected by the screen: no evaluation, AcceptProb 0
	}
	if math.IsInf(d.Eval(q, false), -1) {
		info.Failed = true
		return info
	}
	if correct == nil {
		c = dq // the exact ratio alone, the screen's left in: the broken variant
	}
	accept(rng, s, q, (q.LogDensity-s.LogDensity)-c, &info)
	info.AcceptProb *= p
	return info
}

// draw sets out to a draw from the proposal (the mixture's component
// chosen by its weight).
func (l *indepLevel) draw(rng *rand.Rand, out []float64) {
	w := 1.0
	if !math.IsInf(l.df, 1) {
		// A χ²_ν/ν draw as a Gamma(ν/2, rate ν/2) one.
		w = gammaRand(rng, l.df/2) * 2 / l.df
	}
	sc := 1 / math.Sqrt(w)
	if l.wide > 0 && rng.Float64() < l.wide {
		sc *= math.Sqrt(l.wideScale)
	}
	l.offset(rng, l.center, sc, l.split, out)
}

// accept replaces s by the proposal q with probability min(1, e^logA),
// recording the probability and the outcome in info.
func accept(rng *rand.Rand, s, q *State, logA float64, info *StepInfo) {
	info.AcceptProb = math.Exp(min(0, logA))
	if logA >= 0 || math.Log(rng.Float64()) < logA {
		info.Accepted = true
		q.Replica = s.Replica
		s.CopyFrom(q)
	}
}

// offset sets out = base + sc·L·z, z standard normal (split by split's
// scales where it is not nil) and L the scale matrix's Cholesky factor.
func (l *indepLevel) offset(rng *rand.Rand, base []float64, sc float64, split []float64, out []float64) {
	D := len(base)
	for i := range D {
		l.z[i] = rng.NormFloat64()
		if split != nil {
			l.z[i] = splitSign(rng, l.z[i], split[2*i], split[2*i+1])
		}
	}
	lowerOffset(l.chol, l.z, base, sc, out)
}

// localStep makes one random-walk Metropolis step from s, the proposal
// N(u, (2.38²/Dim)·the scale matrix), screened as independent's (correct
// as there).
func (l *indepLevel) localStep(rng *rand.Rand, d *Density, s *State, correct *Surrogate) {
	q := l.prop
	q.CopyFrom(s)
	l.offset(rng, s.U, 2.38/math.Sqrt(float64(len(s.U))), nil, q.U)
	c, _, pass := l.screened(rng, s, q, 0)
	if !pass || math.IsInf(d.Eval(q, false), -1) {
		return
	}
	if correct == nil {
		c = 0
	}
	accept(rng, s, q, q.LogDensity-s.LogDensity-c, &StepInfo{})
}

// splitSign turns a standard normal v into the split-t's whitened
// coordinate with the scales lo below and hi above the centre: the side
// drawn with probability proportional to its scale, so the density stays
// continuous at the centre.
func splitSign(rng *rand.Rand, v, lo, hi float64) float64 {
	if rng.Float64()*(lo+hi) < hi {
		return math.Abs(v) * hi
	}
	return -math.Abs(v) * lo
}

// gammaRand draws from Gamma(shape a, rate 1) by Marsaglia and Tsang's
// method (boosted for a < 1).
func gammaRand(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaRand(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
