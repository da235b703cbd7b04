package tempering

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// SurrogateTransition is the surrogate transition kernel (Liu, Monte
// Carlo Strategies in Scientific Computing, §9.4): from the state x it
// runs Steps Metropolis–Hastings steps that leave the cheap surrogate
// density π̃ = Surrogate^β invariant (each an independence proposal from
// the surrogate's t with probability Independent, else a random walk of
// scale 2.38/√Dim in the t's metric), reaching x′, and accepts x′ with
// probability min(1, π(x′)π̃(x)/(π(x)π̃(x′))). The surrogate chain's
// kernel is a mixture of reversible kernels, so its Steps-th power is
// reversible with respect to π̃, which makes that ratio the exact
// Metropolis–Hastings correction: the chain leaves π invariant however
// well π̃ fits, and only its efficiency depends on the fit. A transition
// costs one log density without gradient (plus Local more) and Steps
// surrogate evaluations. Where π̃ is close to π, x′ is nearly
// independent of x and nearly always accepted.
type SurrogateTransition struct {
	// Surrogate approximates the level's density at β = 1.
	Surrogate *Surrogate
	// Steps is the number of surrogate steps per transition. Zero means
	// 50.
	Steps int
	// Independent is the probability that a surrogate step proposes from
	// the surrogate's t rather than by a random walk; in [0, 1]. Zero
	// means 0.5; a negative value means none.
	Independent float64
	// Local is the number of random-walk Metropolis steps on the exact
	// density after each transition, as Independence.Local.
	Local int
	// Near is the probability that a transition's surrogate chain makes a
	// single random-walk step instead of Steps steps: a local move whose
	// exact acceptance is near the exact density's own ratio, which moves
	// a chain that has reached a point where the surrogate is too low
	// (π/π̃ high), where proposals from afar are all rejected. In [0, 1).
	// Zero means none.
	Near float64
}

var _ Kernel = SurrogateTransition{}

// NeedsGrad returns false: the kernel uses log density values only.
func (SurrogateTransition) NeedsGrad() bool { return false }

// NewLevel returns the kernel's transition at a level of inverse
// temperature beta, whose surrogate is Surrogate^β.
func (k SurrogateTransition) NewLevel(dim int, beta float64) (LevelKernel, error) {
	steps, ind := k.Steps, k.Independent
	if steps == 0 {
		steps = 50
	}
	switch {
	case ind == 0:
		ind = 0.5
	case ind < 0:
		ind = 0
	}
	switch {
	case k.Surrogate == nil:
		return nil, errors.New("tempering: surrogate transition kernel needs a surrogate")
	case k.Surrogate.Dim() != dim:
		return nil, fmt.Errorf("tempering: surrogate of dimension %d for a target of dimension %d", k.Surrogate.Dim(), dim)
	case steps < 1:
		return nil, fmt.Errorf("tempering: surrogate transition kernel needs at least 1 step, got %d", steps)
	case !(ind <= 1):
		return nil, fmt.Errorf("tempering: surrogate transition kernel's independence probability must be at most 1, got %v", ind)
	case !(k.Near >= 0 && k.Near < 1):
		return nil, fmt.Errorf("tempering: surrogate transition kernel's near probability must be in [0, 1), got %v", k.Near)
	case k.Local < 0:
		return nil, fmt.Errorf("tempering: surrogate transition kernel's local steps must be ≥ 0, got %d", k.Local)
	case !(beta > 0 && beta <= 1):
		return nil, fmt.Errorf("tempering: surrogate transition kernel level needs β in (0,1], got %v", beta)
	}
	return &surrogateLevel{s: k.Surrogate, beta: beta, steps: steps, ind: ind, local: k.Local, near: k.Near,
		x: make([]float64, dim), y: make([]float64, dim), z: make([]float64, dim), prop: NewState(dim)}, nil
}

type surrogateLevel struct {
	s       *Surrogate
	beta    float64
	steps   int
	ind     float64
	local   int
	x, y, z []float64
	prop    *State
	near    float64
}

func (l *surrogateLevel) Init(d *Density, s *State) { d.Eval(s, false) }
func (l *surrogateLevel) Adapt(int)                 {}
func (l *surrogateLevel) EndWarmup()                {}

// Tuning returns the surrogate's t scale matrix as InvMetricDense, for
// the record.
func (l *surrogateLevel) Tuning() Tuning { return factorTuning(l.s.chol, len(l.x)) }

// SetTuning does nothing: the surrogate is fixed when the kernel is built.
func (l *surrogateLevel) SetTuning(Tuning) {}

func (l *surrogateLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := l.correct(rng, d, s, l.chain(rng, s))
	for range l.local {
		l.localStep(rng, d, s)
	}
	return info
}

// chain runs the Metropolis–Hastings chain on the surrogate from s.U,
// leaving its end point in l.x, and returns the surrogate's log density
// there less that at s.U.
func (l *surrogateLevel) chain(rng *rand.Rand, s *State) float64 {
	copy(l.x, s.U)
	lx, tx := l.s.logParts(l.x, l.z)
	start := l.beta * lx
	cur := start
	rw := 2.38 / math.Sqrt(float64(len(l.x)))
	steps, ind := l.steps, l.ind
	if l.near > 0 && rng.Float64() < l.near {
		steps, ind = 1, 0
	}
	for range steps {
		independent := ind > 0 && rng.Float64() < ind
		if independent {
			l.s.draw(rng, l.z, l.y)
		} else {
			l.s.walk(rng, l.z, l.x, rw, l.y)
		}
		ly, ty := l.s.logParts(l.y, l.z)
		logA := l.beta*ly - cur
		if independent {
			logA -= ty - tx // the t's ratio: it proposed y whatever x was
		}
		if logA >= 0 || math.Log(rng.Float64()) < logA {
			copy(l.x, l.y)
			cur, tx = l.beta*ly, ty
		}
	}
	return cur - start
}

// correct accepts the surrogate chain's end point l.x with the exact
// Metropolis–Hastings ratio, sur being the surrogate's log density at
// l.x less that at s.U (0 in a broken variant that only tests build).
func (l *surrogateLevel) correct(rng *rand.Rand, d *Density, s *State, sur float64) StepInfo {
	q := l.prop
	q.CopyFrom(s)
	copy(q.U, l.x)
	info := StepInfo{StepSize: 1}
	if math.IsInf(d.Eval(q, false), -1) {
		info.Failed = true
		return info
	}
	accept(rng, s, q, q.LogDensity-s.LogDensity-sur, &info)
	return info
}

// localStep makes one random-walk Metropolis step on the exact density,
// the proposal N(u, (2.38²/Dim)·the t's scale matrix).
func (l *surrogateLevel) localStep(rng *rand.Rand, d *Density, s *State) {
	q := l.prop
	q.CopyFrom(s)
	l.s.walk(rng, l.z, s.U, 2.38/math.Sqrt(float64(len(s.U))), q.U)
	if !math.IsInf(d.Eval(q, false), -1) {
		accept(rng, s, q, q.LogDensity-s.LogDensity, &StepInfo{})
	}
}
