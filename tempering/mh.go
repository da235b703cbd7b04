package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MH is the Gaussian random-walk Metropolis–Hastings kernel. At a level with
// inverse temperature β_m it proposes u' = u + σ_m·z, z ~ N(0, I), with
// σ_m = Sigma·β_m^{-1/2}.
type MH struct {
	// Sigma is the proposal scale σ at β = 1. Zero means 0.1 (the paper's).
	Sigma float64
}

var _ Kernel = MH{}

// NeedsGrad returns false: MH uses no gradients.
func (MH) NeedsGrad() bool { return false }

// NewLevel returns the MH transition for a level with inverse temperature beta.
func (k MH) NewLevel(dim int, beta float64) (LevelKernel, error) {
	sigma := k.Sigma
	if sigma == 0 {
		sigma = 0.1
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("tempering: MH scale σ must be positive and finite, got %v", k.Sigma)
	}
	if !(beta > 0 && beta <= 1) {
		return nil, fmt.Errorf("tempering: MH level needs β in (0,1], got %v", beta)
	}
	if dim < 1 {
		return nil, fmt.Errorf("tempering: MH needs dimension ≥ 1, got %d", dim)
	}
	return &mhLevel{scale: sigma / math.Sqrt(beta), prop: NewState(dim)}, nil
}

type mhLevel struct {
	scale float64
	prop  *State
}

func (l *mhLevel) Init(d *Density, s *State) { d.Eval(s, false) }

func (l *mhLevel) EndWarmup() {}

// Adapt does nothing: MH's scale is fixed.
func (l *mhLevel) Adapt(int) {}

func (l *mhLevel) Tuning() Tuning { return Tuning{StepSize: l.scale} }

func (l *mhLevel) SetTuning(t Tuning) {
	if t.StepSize > 0 {
		l.scale = t.StepSize
	}
}

func (l *mhLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	p := l.prop
	for i, x := range s.U {
		p.U[i] = x + l.scale*rng.NormFloat64()
	}
	info := StepInfo{StepSize: l.scale}
	lh := d.Eval(p, false)
	if math.IsInf(lh, -1) {
		info.Failed = true
	} else {
		logA := lh - s.LogDensity
		info.AcceptProb = math.Exp(min(0, logA))
		if logA >= 0 || math.Log(rng.Float64()) < logA {
			info.Accepted = true
			p.Replica = s.Replica
			s.CopyFrom(p)
		}
	}
	return info
}
