package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// HMC is Hamiltonian Monte Carlo with a leapfrog integrator and identity
// mass matrix. A trajectory whose energy error H(proposal) − H(current)
// exceeds MaxEnergyError is divergent: it is rejected and counted.
//
// With Adapt, each level's step size is tuned by dual averaging (Hoffman &
// Gelman 2014) towards acceptance TargetAccept during warm-up only; at the
// end of warm-up it is frozen at the averaged value. Adaptation is off by
// default, as in the paper's runs.
type HMC struct {
	// StepSize is the leapfrog step ε (the initial one when adapting).
	// Zero means 0.01 (the paper's).
	StepSize float64
	// Steps is the number L of leapfrog steps. Zero means 10.
	Steps int
	// MaxEnergyError is the divergence threshold. Zero means 1000.
	MaxEnergyError float64
	// Adapt turns on dual-averaging step-size adaptation during warm-up.
	Adapt bool
	// TargetAccept is the acceptance rate adaptation aims at. Zero means 0.8.
	TargetAccept float64
	// Jitter, in [0,1), draws each transition's step size uniformly in
	// ε·(1 ± Jitter), which avoids the non-ergodicity of a fixed trajectory
	// length that is a multiple of a half-period. Zero means no jitter
	// (the paper's).
	Jitter float64
}

var _ Kernel = HMC{}

// NeedsGrad returns true: HMC uses gradients.
func (HMC) NeedsGrad() bool { return true }

// NewLevel returns the HMC transition for a level; ε and L are the same at
// every level (beta is only validated).
func (k HMC) NewLevel(dim int, beta float64) (LevelKernel, error) {
	eps, steps, maxE, target := k.StepSize, k.Steps, k.MaxEnergyError, k.TargetAccept
	if eps == 0 {
		eps = 0.01
	}
	if steps == 0 {
		steps = 10
	}
	if maxE == 0 {
		maxE = 1000
	}
	if target == 0 {
		target = 0.8
	}
	switch {
	case !(eps > 0) || math.IsInf(eps, 0):
		return nil, fmt.Errorf("tempering: HMC step size must be positive and finite, got %v", k.StepSize)
	case steps < 1:
		return nil, fmt.Errorf("tempering: HMC needs at least 1 leapfrog step, got %d", k.Steps)
	case !(maxE > 0):
		return nil, fmt.Errorf("tempering: HMC divergence threshold must be positive, got %v", k.MaxEnergyError)
	case !(target > 0 && target < 1):
		return nil, fmt.Errorf("tempering: HMC target acceptance must lie in (0,1), got %v", k.TargetAccept)
	case !(k.Jitter >= 0 && k.Jitter < 1):
		return nil, fmt.Errorf("tempering: HMC jitter must lie in [0,1), got %v", k.Jitter)
	case !(beta > 0 && beta <= 1):
		return nil, fmt.Errorf("tempering: HMC level needs β in (0,1], got %v", beta)
	case dim < 1:
		return nil, fmt.Errorf("tempering: HMC needs dimension ≥ 1, got %d", dim)
	}
	l := &hmcLevel{
		eps: eps, steps: steps, maxE: maxE, jitter: k.Jitter, adapt: k.Adapt, delta: target,
		prop: NewState(dim), p: make([]float64, dim), g: make([]float64, dim),
	}
	l.mu = math.Log(10 * eps)
	l.logEpsBar = 0
	return l, nil
}

type hmcLevel struct {
	eps    float64
	steps  int
	maxE   float64
	jitter float64
	prop   *State
	p, g   []float64 // momentum, gradient workspace

	// dual averaging
	adapt           bool
	delta, mu       float64
	t               int
	hbar, logEpsBar float64
}

func (l *hmcLevel) Init(d *Density, s *State) { d.Eval(s, true) }

// Adapt restarts dual averaging (when enabled) for the coming n
// transitions, from the current step size.
func (l *hmcLevel) Adapt(int) {}

func (l *hmcLevel) Tuning() Tuning { return Tuning{StepSize: l.eps} }

func (l *hmcLevel) SetTuning(t Tuning) {
	if t.StepSize > 0 {
		l.eps = t.StepSize
		l.mu = math.Log(10 * l.eps)
	}
}

func (l *hmcLevel) EndWarmup() {
	if l.adapt && l.t > 0 {
		l.eps = math.Exp(l.logEpsBar)
	}
	l.adapt = false
}

func (l *hmcLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := StepInfo{StepSize: l.eps}
	if !s.HasGrad {
		// The state arrived without a gradient for this level (after an
		// MH-free rebase, an SPT swap, ...): evaluate it.
		lh, ll, lp := s.LogDensity, s.LogLik, s.LogPrior
		if math.IsInf(d.Eval(s, true), -1) {
			// Keep the state's valid value cache; only the gradient
			// failed.
			s.LogDensity, s.LogLik, s.LogPrior, s.HasGrad = lh, ll, lp, false
			info.Failed = true
			return info
		}
	}
	q, p, g, eps := l.prop, l.p, l.g, l.eps
	if l.jitter > 0 {
		eps *= 1 + l.jitter*(2*rng.Float64()-1)
		info.StepSize = eps
	}
	q.CopyFrom(s)
	k0 := 0.0
	for i := range p {
		p[i] = rng.NormFloat64()
		k0 += p[i] * p[i]
	}
	h0 := -s.LogDensity + 0.5*k0
	d.Grad(q, g)
	for i := range p {
		p[i] += 0.5 * eps * g[i]
	}
	for step := 1; step <= l.steps; step++ {
		for i := range q.U {
			q.U[i] += eps * p[i]
		}
		if math.IsInf(d.Eval(q, true), -1) {
			// A trajectory that reaches zero density (or an evaluation
			// that fails) has infinite energy error: a divergence.
			info.Failed, info.Divergent = true, true
			break
		}
		d.Grad(q, g)
		f := eps
		if step == l.steps {
			f = 0.5 * eps
		}
		for i := range p {
			p[i] += f * g[i]
		}
	}
	if !info.Failed {
		k1 := 0.0
		for _, v := range p {
			k1 += v * v
		}
		dE := -q.LogDensity + 0.5*k1 - h0
		info.EnergyError = dE
		switch {
		case math.IsNaN(dE) || dE > l.maxE:
			info.Divergent = true
		default:
			info.AcceptProb = math.Exp(min(0, -dE))
			if dE <= 0 || math.Log(rng.Float64()) < -dE {
				info.Accepted = true
				q.Replica = s.Replica
				s.CopyFrom(q)
			}
		}
	}
	if l.adapt {
		l.update(info.AcceptProb)
	}
	return info
}

// update performs one dual-averaging step with the acceptance probability a.
func (l *hmcLevel) update(a float64) {
	const gamma, t0, kappa = 0.05, 10.0, 0.75
	l.t++
	t := float64(l.t)
	w := 1 / (t + t0)
	l.hbar = (1-w)*l.hbar + w*(l.delta-a)
	logEps := l.mu - math.Sqrt(t)/gamma*l.hbar
	eta := math.Pow(t, -kappa)
	l.logEpsBar = eta*logEps + (1-eta)*l.logEpsBar
	l.eps = math.Exp(logEps)
}
