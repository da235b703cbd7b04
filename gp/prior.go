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

// LengthFamily names the prior family of the length scales ℓ_d.
type LengthFamily string

const (
	// LengthLogNormal is the paper's family, log ℓ_d ~ N(μ0, σ0²)
	// (LengthMedian e^μ0, LengthSigma σ0). The empty family means it.
	LengthLogNormal LengthFamily = "lognormal"
	// LengthInvHalfT puts a half-Student-t on the inverse length scale,
	// 1/ℓ_d ~ half-t(ν = LengthDF, scale LengthScale): its density at
	// 1/ℓ_d = 0 is positive, so an input the data do not use can be
	// switched off (ℓ_d → ∞) as a maximum-likelihood fit does, where the
	// lognormal family holds ℓ_d near e^μ0.
	LengthInvHalfT LengthFamily = "invhalft"
)

// Prior is the prior on θ = (ℓ_1..ℓ_D, σf, σn):
//
//	ℓ_d ~ LogNormal(μ0, σ0), i.e. log ℓ_d ~ N(μ0, σ0²), independently
//	      (or 1/ℓ_d ~ half-t(ν, s) with LengthFamily LengthInvHalfT),
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
	// LengthFamily is the length scales' family; "" means
	// LengthLogNormal. LengthDF (ν > 0; 0 means 3) and LengthScale (s > 0;
	// 0 means 1) are LengthInvHalfT's parameters, ignored by the
	// lognormal family.
	LengthFamily LengthFamily `json:",omitempty"`
	LengthDF     float64      `json:",omitempty"`
	LengthScale  float64      `json:",omitempty"`
}

// Default parameters of the LengthInvHalfT family.
const (
	InvHalfTDF    = 3.0
	InvHalfTScale = 1.0
)

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
		{"LengthDF", p.LengthDF}, {"LengthScale", p.LengthScale},
	} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return Prior{}, fmt.Errorf("gp: prior: %s = %v, want a positive finite number (0 for the paper's value)", f.name, f.v)
		}
	}
	switch p.LengthFamily {
	case "", LengthLogNormal, LengthInvHalfT:
	default:
		return Prior{}, fmt.Errorf("gp: prior: length-scale family %q, want %q or %q", p.LengthFamily, LengthLogNormal, LengthInvHalfT)
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
	if p.LengthFamily == LengthInvHalfT {
		set(&p.LengthDF, InvHalfTDF)
		set(&p.LengthScale, InvHalfTScale)
	}
	return p
}

// lengthLogDensity returns the log density of u = log ℓ of one length
// scale under p (the log-Jacobian of ℓ = e^u included) and its derivative
// in u. The receiver must hold its defaults (see defaults).
func (p Prior) lengthLogDensity(u float64) (lp, grad float64) {
	if p.LengthFamily == LengthInvHalfT {
		// ρ = e^{−u} ~ half-t(ν, s): log p(u) = log p_ρ(ρ) + log ρ.
		nu, s := p.LengthDF, p.LengthScale
		rho := math.Exp(-u)
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg0, _ := math.Lgamma(nu / 2)
		r2 := (rho / s) * (rho / s)
		lp = math.Ln2 + lg1 - lg0 - 0.5*math.Log(nu*math.Pi) - math.Log(s) - (nu+1)/2*math.Log1p(r2/nu) - u
		return lp, (nu+1)*r2/(nu+r2) - 1
	}
	mu, sd := math.Log(p.LengthMedian), p.LengthSigma
	z := (u - mu) / sd
	return -math.Log(sd) - 0.5*math.Log(2*math.Pi) - 0.5*z*z, -z / sd
}

// LengthLogDensity returns the log density of u = log ℓ_d under p's
// length-scale prior (the log-Jacobian of ℓ = e^u included): the density
// a figure of log ℓ_d overlays.
func (p Prior) LengthLogDensity(u float64) float64 {
	lp, _ := p.defaults().lengthLogDensity(u)
	return lp
}

// LengthMedianValue returns the prior median of every ℓ_d: e^μ0 for the
// lognormal family, 1/(s·t_ν(0.75)) for the inverse half-t.
func (p Prior) LengthMedianValue() float64 {
	q := p.defaults()
	if q.LengthFamily == LengthInvHalfT {
		return 1 / (q.LengthScale * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: q.LengthDF}.Quantile(0.75))
	}
	return q.LengthMedian
}

// LogDensity returns log p(u) for u = log θ (len d+2), including the
// log-Jacobian Σ u of θ = exp(u), and, if grad is non-nil (len d+2),
// overwrites grad with its gradient. In u the terms are
//
//	u_d ~ N(μ0, σ0²):  −(u_d−μ0)²/(2σ0²) − log(σ0√(2π))
//	σ = e^u ~ Gamma(a, b):  a·log b − lgamma(a) + a·u − b·e^u
//
// or, under the inverse half-t family, with ρ = e^{−u_d} ~ half-t(ν, s),
//
//	log(2Γ((ν+1)/2)/(Γ(ν/2)√(νπ)·s)) − (ν+1)/2·log(1 + ρ²/(νs²)) − u_d.
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
	var lp float64
	for j := 0; j < d; j++ {
		l, g := q.lengthLogDensity(u[j])
		lp += l
		if grad != nil {
			grad[j] = g
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
// paper's prior θ* = (e, …, e, 4, 1). Under the inverse half-t family ℓ_d
// has no mean; its entries are the prior median of ℓ_d instead.
func (p Prior) Mean(d int) []float64 {
	q := p.defaults()
	th := make([]float64, d+2)
	el := q.LengthMedian * math.Exp(0.5*q.LengthSigma*q.LengthSigma)
	if q.LengthFamily == LengthInvHalfT {
		el = q.LengthMedianValue()
	}
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
		if q.LengthFamily == LengthInvHalfT {
			t := distuv.StudentsT{Mu: 0, Sigma: q.LengthScale, Nu: q.LengthDF, Src: rng}.Rand()
			th[j] = 1 / math.Abs(t)
			continue
		}
		th[j] = math.Exp(mu + q.LengthSigma*rng.NormFloat64())
	}
	th[d] = distuv.Gamma{Alpha: q.SignalShape, Beta: q.SignalRate, Src: rng}.Rand()
	th[d+1] = distuv.Gamma{Alpha: q.NoiseShape, Beta: q.NoiseRate, Src: rng}.Rand()
	return th
}
