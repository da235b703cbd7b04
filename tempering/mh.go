package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MH is the Gaussian random-walk Metropolis–Hastings kernel. At a level with
// inverse temperature β_m it proposes u' = u + σ·s⊙z, z ~ N(0, I), where s
// is the square root of a diagonal covariance (1 until adapted) and σ the
// level's scale, and makes Steps such proposals per transition.
//
// During warm-up each level adapts as Adapt says, in the same windowed
// scheme as HMC: σ by dual averaging towards acceptance TargetAccept, and
// (AdaptDiag) s² from the level's states in the slow windows, after each
// update of which σ restarts at 2.38/√D (Roberts, Gelman & Gilks 1997's
// optimal scale for a Gaussian target whose variances are s²). Everything
// is frozen at the end of warm-up. The zero value adapts; AdaptNone keeps
// the paper's fixed σ_m = Sigma·β_m^{-1/2}. A transition costs Steps log
// density evaluations without gradient, which makes MH a cheap kernel for
// the hotter levels of a tempered sampler (see PerLevel).
type MH struct {
	// Sigma is the proposal scale σ at β = 1 (σ_m = Sigma·β_m^{-1/2} at
	// level m; the starting point when adapting). Zero means 0.1 (the
	// paper's).
	Sigma float64
	// Steps is the number of proposals per transition. Zero means 1.
	Steps int
	// Adapt says what warm-up tunes: AdaptDiag (the zero value) the scale
	// and a diagonal covariance, AdaptStep the scale only, AdaptNone
	// nothing. AdaptDense is not supported.
	Adapt Adaptation
	// TargetAccept is the acceptance rate the scale's adaptation aims at.
	// Zero means DefaultMHTargetAccept.
	TargetAccept float64
}

// DefaultMHTargetAccept is the acceptance rate MH's adaptation aims at by
// default: 0.3, between the 0.234 that is optimal in high dimensions and
// the 0.44 of one dimension (Roberts, Gelman & Gilks 1997).
const DefaultMHTargetAccept = 0.3

var _ Kernel = MH{}

// NeedsGrad returns false: MH uses no gradients.
func (MH) NeedsGrad() bool { return false }

// NewLevel returns the MH transition for a level with inverse temperature beta.
func (k MH) NewLevel(dim int, beta float64) (LevelKernel, error) {
	sigma, steps, target := k.Sigma, k.Steps, k.TargetAccept
	if sigma == 0 {
		sigma = DefaultMHScale
	}
	if steps == 0 {
		steps = 1
	}
	if target == 0 {
		target = DefaultMHTargetAccept
	}
	switch {
	case !(sigma > 0) || math.IsInf(sigma, 0):
		return nil, fmt.Errorf("tempering: MH scale σ must be positive and finite, got %v", k.Sigma)
	case steps < 1:
		return nil, fmt.Errorf("tempering: MH needs at least 1 proposal per transition, got %d", k.Steps)
	case !(target > 0 && target < 1):
		return nil, fmt.Errorf("tempering: MH target acceptance must lie in (0,1), got %v", k.TargetAccept)
	case !k.Adapt.valid():
		return nil, fmt.Errorf("tempering: MH: unknown adaptation %d", int(k.Adapt))
	case k.Adapt == AdaptDense:
		return nil, fmt.Errorf("tempering: MH adapts a diagonal covariance only, not a dense one")
	case !(beta > 0 && beta <= 1):
		return nil, fmt.Errorf("tempering: MH level needs β in (0,1], got %v", beta)
	case dim < 1:
		return nil, fmt.Errorf("tempering: MH needs dimension ≥ 1, got %d", dim)
	}
	l := &mhLevel{
		scale: sigma / math.Sqrt(beta),
		steps: steps,
		ad:    newAdapter(k.Adapt, dim, target),
		prop:  NewState(dim),
	}
	if k.Adapt.metricAdapts() {
		l.sd, l.newInv = make([]float64, dim), make([]float64, dim)
		for i := range l.sd {
			l.sd[i] = 1
		}
	}
	return l, nil
}

type mhLevel struct {
	scale  float64
	steps  int
	sd     []float64 // proposal sd per coordinate (nil: 1)
	ad     adapter
	newInv []float64 // adaptation's variance estimate
	prop   *State
}

func (l *mhLevel) Init(d *Density, s *State) { d.Eval(s, false) }

// Adapt starts (or restarts) warm-up adaptation over the next n
// transitions' proposals.
func (l *mhLevel) Adapt(n int) { l.ad.begin(n*l.steps, l.scale) }

// EndWarmup freezes the scale at dual averaging's averaged value.
func (l *mhLevel) EndWarmup() { l.scale = l.ad.end(l.scale) }

// Tuning returns the scale and, once adapted, the proposal variances as
// InvMetric.
func (l *mhLevel) Tuning() Tuning {
	t := Tuning{StepSize: l.scale}
	if l.sd != nil {
		t.InvMetric = make([]float64, len(l.sd))
		for i, v := range l.sd {
			t.InvMetric[i] = v * v
		}
	}
	return t
}

// SetTuning sets the scale and (InvMetric, when the kernel adapts one) the
// proposal variances; invalid entries are ignored.
func (l *mhLevel) SetTuning(t Tuning) {
	if t.StepSize > 0 && !math.IsInf(t.StepSize, 0) {
		l.scale = t.StepSize
		l.ad.da.restart(l.scale)
	}
	if l.sd == nil || len(t.InvMetric) != len(l.sd) {
		return
	}
	for _, v := range t.InvMetric {
		if !(v > 0) || math.IsInf(v, 0) {
			return
		}
	}
	for i, v := range t.InvMetric {
		l.sd[i] = math.Sqrt(v)
	}
}

// Step makes the transition's proposals from s, each accepted with
// probability min(1, h(u')/h(u)).
func (l *mhLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := StepInfo{StepSize: l.scale}
	var sum float64
	p := l.prop
	for range l.steps {
		for i, x := range s.U {
			sd := 1.0
			if l.sd != nil {
				sd = l.sd[i]
			}
			p.U[i] = x + l.scale*sd*rng.NormFloat64()
		}
		a := 0.0
		if lh := d.Eval(p, false); math.IsInf(lh, -1) {
			info.Failed = true
		} else {
			logA := lh - s.LogDensity
			a = math.Exp(min(0, logA))
			if logA >= 0 || math.Log(rng.Float64()) < logA {
				info.Accepted = true
				p.Replica = s.Replica
				s.CopyFrom(p)
			}
		}
		sum += a
		if l.ad.active {
			l.learn(a, s.U)
		}
	}
	info.AcceptProb = sum / float64(l.steps)
	return info
}

// learn feeds one proposal's acceptance probability and the state after
// it to the adaptation; after an update of the proposal variances the
// scale restarts at 2.38/√D.
func (l *mhLevel) learn(a float64, u []float64) {
	eps, update := l.ad.learn(a, u, l.newInv)
	l.scale = eps
	if update {
		for i, v := range l.newInv {
			l.sd[i] = math.Sqrt(v)
		}
		l.scale = 2.38 / math.Sqrt(float64(len(u)))
		l.ad.da.restart(l.scale)
	}
}
