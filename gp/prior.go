package gp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// The paper's prior hyperparameters (§4.2).
const (
	PaperLengthMu    = 0.5 // μ0: location of log ℓ_d
	PaperLengthSigma = 1.0 // σ0: scale of log ℓ_d
	PaperSignalShape = 4.0 // a_f
	PaperSignalRate  = 1.0 // b_f
	PaperNoiseShape  = 2.0 // a_n
	PaperNoiseRate   = 2.0 // b_n
)

// Prior is the prior on θ = (ℓ_1..ℓ_D, σf, σn):
//
//	ℓ_d ~ LogNormal(μ0, σ0), i.e. log ℓ_d ~ N(μ0, σ0²), independently,
//	σf  ~ Gamma(shape SignalShape, rate SignalRate),
//	σn  ~ Gamma(shape NoiseShape, rate NoiseRate).
//
// The zero value is the paper's prior. Each zero field takes the paper's
// value: LengthMedian = e^0.5 (μ0 = 0.5), LengthSigma = 1, SignalShape = 4,
// SignalRate = 1, NoiseShape = 2, NoiseRate = 2. The location μ0 is given
// through the median e^μ0 of the length-scale prior so that zero can mean
// "default": to ask for μ0 = m, set LengthMedian = math.Exp(m).
type Prior struct {
	LengthMedian float64 // e^μ0 > 0; 0 means e^0.5
	LengthSigma  float64 // σ0 > 0; 0 means 1
	SignalShape  float64 // a_f > 0; 0 means 4
	SignalRate   float64 // b_f > 0; 0 means 1
	NoiseShape   float64 // a_n > 0; 0 means 2
	NoiseRate    float64 // b_n > 0; 0 means 2
}

// WithDefaults returns p with every zero field replaced by the paper's
// value, and an error if a field is negative, NaN or infinite.
func (p Prior) WithDefaults() (Prior, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"LengthMedian", p.LengthMedian}, {"LengthSigma", p.LengthSigma},
		{"SignalShape", p.SignalShape}, {"SignalRate", p.SignalRate},
		{"NoiseShape", p.NoiseShape}, {"NoiseRate", p.NoiseRate},
	} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return Prior{}, fmt.Errorf("gp: prior: %s = %v, want a positive finite number (0 for the paper's value)", f.name, f.v)
		}
	}
	return p.defaults(), nil
}

// Mu0 returns μ0 = log LengthMedian, the location of log ℓ_d (0.5 for the
// zero Prior).
func (p Prior) Mu0() float64 { return math.Log(p.defaults().LengthMedian) }

// defaults replaces zero (or invalid) fields by the paper's values. It does
// not allocate.
func (p Prior) defaults() Prior {
	set := func(v *float64, def float64) {
		if !(*v > 0) || math.IsInf(*v, 0) {
			*v = def
		}
	}
	set(&p.LengthMedian, math.Exp(PaperLengthMu))
	set(&p.LengthSigma, PaperLengthSigma)
	set(&p.SignalShape, PaperSignalShape)
	set(&p.SignalRate, PaperSignalRate)
	set(&p.NoiseShape, PaperNoiseShape)
	set(&p.NoiseRate, PaperNoiseRate)
	return p
}

// LogDensity returns log p(u) for u = log θ (len d+2), including the
// log-Jacobian Σ u of θ = exp(u), and, if grad is non-nil (len d+2),
// overwrites grad with its gradient. In u the terms are
//
//	u_d ~ N(μ0, σ0²):  −(u_d−μ0)²/(2σ0²) − log(σ0√(2π))
//	σ = e^u ~ Gamma(a, b):  a·log b − lgamma(a) + a·u − b·e^u
//
// A u of the wrong length or with a NaN gives −Inf (and a zero gradient).
// The receiver should be valid (see WithDefaults); zero fields mean the
// paper's values.
func (p Prior) LogDensity(u, grad []float64) float64 {
	q := p.defaults()
	n := len(u)
	if grad != nil {
		clear(grad)
	}
	if n < 3 || (grad != nil && len(grad) != n) {
		return math.Inf(-1)
	}
	d := n - 2
	mu, s := math.Log(q.LengthMedian), q.LengthSigma
	norm := -math.Log(s) - 0.5*math.Log(2*math.Pi)
	var lp float64
	for j := 0; j < d; j++ {
		z := (u[j] - mu) / s
		lp += norm - 0.5*z*z
		if grad != nil {
			grad[j] = -z / s
		}
	}
	gam := func(u, a, b float64) (float64, float64) {
		e := math.Exp(u)
		lg, _ := math.Lgamma(a)
		return a*math.Log(b) - lg + a*u - b*e, a - b*e
	}
	lf, gf := gam(u[d], q.SignalShape, q.SignalRate)
	ln, gn := gam(u[d+1], q.NoiseShape, q.NoiseRate)
	lp += lf + ln
	if grad != nil {
		grad[d], grad[d+1] = gf, gn
	}
	if math.IsNaN(lp) {
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1)
	}
	return lp
}

// Mean returns θ* = E[θ] under the prior for input dimension d (len d+2):
// E[ℓ_d] = exp(μ0 + σ0²/2), E[σf] = a_f/b_f, E[σn] = a_n/b_n. For the
// paper's prior θ* = (e, …, e, 4, 1).
func (p Prior) Mean(d int) []float64 {
	q := p.defaults()
	th := make([]float64, d+2)
	el := q.LengthMedian * math.Exp(0.5*q.LengthSigma*q.LengthSigma)
	for j := 0; j < d; j++ {
		th[j] = el
	}
	th[d] = q.SignalShape / q.SignalRate
	th[d+1] = q.NoiseShape / q.NoiseRate
	return th
}

// StartPoints returns the paper's three chain starting points θ*, θ*/2 and
// 2θ* (θ* = Mean(d)) in the sampling space u = log θ.
func (p Prior) StartPoints(d int) [][]float64 {
	th := p.Mean(d)
	out := make([][]float64, 3)
	for k, f := range []float64{1, 0.5, 2} {
		u := make([]float64, len(th))
		for j, v := range th {
			u[j] = math.Log(f * v)
		}
		out[k] = u
	}
	return out
}

// Sample draws θ (len d+2, natural units) from the prior using rng.
func (p Prior) Sample(rng *rand.Rand, d int) []float64 {
	q := p.defaults()
	th := make([]float64, d+2)
	mu := math.Log(q.LengthMedian)
	for j := 0; j < d; j++ {
		th[j] = math.Exp(mu + q.LengthSigma*rng.NormFloat64())
	}
	th[d] = distuv.Gamma{Alpha: q.SignalShape, Beta: q.SignalRate, Src: rng}.Rand()
	th[d+1] = distuv.Gamma{Alpha: q.NoiseShape, Beta: q.NoiseRate, Src: rng}.Rand()
	return th
}
