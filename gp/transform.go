package gp

import (
	"fmt"
	"math"
)

// VarianceSplit is the sampling space that tempering's Settings.Transform
// can move a GP's chains in: u = log θ = (log ℓ_1..log ℓ_D, log σf,
// log σn) is seen as v = (log ℓ_1..log ℓ_D, a, b) with
//
//	a = ½·log(σf² + σn²)   (the log sd of y at a point, signal and noise),
//	b = log(σn²/σf²)       (the log noise-to-signal variance ratio),
//
// and back σf² = e^{2a}/(1 + e^b), σn² = e^{2a}/(1 + e^{−b}). The
// log-Jacobian is the constant −log 2.
//
// Where the inputs are many and the length scales short against the
// spacing of the points (D = 8 and up), the kernel matrix is nearly
// diagonal and the data fix σf² + σn² tightly but their split loosely:
// in (log σf, log σn) the posterior is a curved ridge with a long tail
// towards σn → 0 and a wall where σf falls below the signal's variance,
// which no single metric fits. In v the ridge is the straight line
// a = constant, and the tail and the wall lie along b.
//
// The zero value is ready to use; it acts on the last two coordinates,
// whatever D is.
type VarianceSplit struct{}

// ToTarget sets u = g(v).
func (VarianceSplit) ToTarget(v, u []float64) {
	d := len(v)
	copy(u[:d-2], v[:d-2])
	splitToTarget(v[d-2], v[d-1], u)
}

// splitToTarget sets the last two coordinates of u, log σf and log σn,
// from a and b.
func splitToTarget(a, b float64, u []float64) {
	d := len(u)
	u[d-2] = a - 0.5*softplus(b)
	u[d-1] = a - 0.5*softplus(-b)
}

// FromTarget sets v = g⁻¹(u).
func (VarianceSplit) FromTarget(u, v []float64) {
	d := len(u)
	copy(v[:d-2], u[:d-2])
	uf, un := u[d-2], u[d-1]
	hi, lo := max(uf, un), min(uf, un)
	v[d-2] = hi + 0.5*math.Log1p(math.Exp(2*(lo-hi)))
	v[d-1] = 2 * (un - uf)
}

// Pullback sets gv = (∂u/∂v)ᵀ·gu.
func (VarianceSplit) Pullback(v, gu, gv []float64) {
	d := len(v)
	copy(gv[:d-2], gu[:d-2])
	splitPullback(v[d-1], gu, gv)
}

// splitPullback sets the last two coordinates of gv, the gradient with
// respect to a and b at b, from those of gu (log σf, log σn).
func splitPullback(b float64, gu, gv []float64) {
	d := len(gu)
	gf, gn := gu[d-2], gu[d-1]
	gv[d-2] = gf + gn
	gv[d-1] = 0.5 * (sigmoid(-b)*gn - sigmoid(b)*gf)
}

// LogJacobian returns log|det ∂u/∂v| = −log 2; its gradient is zero.
func (VarianceSplit) LogJacobian(v, grad []float64) float64 { return -math.Ln2 }

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid returns 1/(1 + e^−x).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// VarianceSplitTail is VarianceSplit with the left tail of b compressed:
// the chains move in v = (log ℓ_1..log ℓ_D, a, w) with
//
//	b = Center + Scale·w         for w ≥ 0,
//	b = Center + Scale·sinh(w)   for w < 0,
//
// a map that is C² at w = 0 and whose log-Jacobian is −log 2 + log Scale,
// plus log cosh w on the left.
//
// At D = 8 the posterior along b falls nearly linearly towards σn → 0
// (an exponential tail: as σn vanishes the likelihood goes flat and the
// prior on σn alone bounds it), a tail that a Student-t fitted at the
// mode under-covers. In w the log density along that tail falls like
// e^{|w|}: a tail lighter than a Gaussian's, which the fitted t
// over-covers. Center is meant to be
// b at the posterior mode and Scale a multiple of b's Laplace standard
// deviation there (NewVarianceSplitTail). Scale must be positive.
type VarianceSplitTail struct {
	Center, Scale float64
}

// NewVarianceSplitTail returns the VarianceSplitTail centred at the mode's
// b with Scale mult times b's standard deviation under the Gaussian
// approximation N(mode, cov) in u = log θ (cov Dim×Dim row-major, as
// tempering.WarmStart's Mode and Cov). It returns an error if the
// dimensions disagree or the scale is not positive and finite.
func NewVarianceSplitTail(mode, cov []float64, mult float64) (VarianceSplitTail, error) {
	d := len(mode)
	if d < 2 || len(cov) != d*d {
		return VarianceSplitTail{}, fmt.Errorf("gp: variance split tail: mode of length %d with a covariance of %d entries", d, len(cov))
	}
	f, n := d-2, d-1
	// b = 2(log σn − log σf).
	varB := 4 * (cov[n*d+n] + cov[f*d+f] - 2*cov[f*d+n])
	tr := VarianceSplitTail{Center: 2 * (mode[n] - mode[f]), Scale: mult * math.Sqrt(varB)}
	if !(tr.Scale > 0) || math.IsInf(tr.Scale, 0) {
		return VarianceSplitTail{}, fmt.Errorf("gp: variance split tail: scale %v (multiple %v of b's sd %v) is not positive and finite", tr.Scale, mult, math.Sqrt(varB))
	}
	return tr, nil
}

// b returns b at the chain coordinate w, and db/dw.
func (t VarianceSplitTail) b(w float64) (b, db float64) {
	if w >= 0 {
		return t.Center + t.Scale*w, t.Scale
	}
	return t.Center + t.Scale*math.Sinh(w), t.Scale * math.Cosh(w)
}

// ToTarget sets u = g(v).
func (t VarianceSplitTail) ToTarget(v, u []float64) {
	d := len(v)
	copy(u[:d-2], v[:d-2])
	b, _ := t.b(v[d-1])
	splitToTarget(v[d-2], b, u)
}

// FromTarget sets v = g⁻¹(u).
func (t VarianceSplitTail) FromTarget(u, v []float64) {
	VarianceSplit{}.FromTarget(u, v)
	d := len(u)
	if x := (v[d-1] - t.Center) / t.Scale; x >= 0 {
		v[d-1] = x
	} else {
		v[d-1] = math.Asinh(x)
	}
}

// Pullback sets gv = (∂u/∂v)ᵀ·gu.
func (t VarianceSplitTail) Pullback(v, gu, gv []float64) {
	d := len(v)
	copy(gv[:d-2], gu[:d-2])
	b, db := t.b(v[d-1])
	splitPullback(b, gu, gv)
	gv[d-1] *= db
}

// LogJacobian returns log|det ∂u/∂v| = −log 2 + log Scale, plus log cosh w
// where w < 0, and adds its gradient (tanh w there) to grad if non-nil.
func (t VarianceSplitTail) LogJacobian(v, grad []float64) float64 {
	lj := -math.Ln2 + math.Log(t.Scale)
	w := v[len(v)-1]
	if w >= 0 {
		return lj
	}
	if grad != nil {
		grad[len(v)-1] += math.Tanh(w)
	}
	// log cosh w = |w| + log(1 + e^{−2|w|}) − log 2, without overflow.
	return lj - w + math.Log1p(math.Exp(2*w)) - math.Ln2
}
