package gp

import "math"

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
	a, b := v[d-2], v[d-1]
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
	b := v[d-1]
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
