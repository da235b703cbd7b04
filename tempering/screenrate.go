package tempering

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// EvalsPerTransition estimates the log density evaluations the kernel
// makes per transition at β = 1. Without a screen that is 1 + Local.
// With one, it is what passes the screen: the kernel runs iters
// transitions from Center on the screen's own density, where the screen
// is exact and its first stage passes what it would pass on the
// posterior, as far as the screen fits it; their evaluations are
// counted. The surrogate's evaluations are cheap (a kernel sum), so
// this costs a small fraction of one full-data evaluation. rng drives
// the run.
func (k Independence) EvalsPerTransition(rng *rand.Rand, iters int) (float64, error) {
	if k.Screen == nil {
		return float64(1 + k.Local), nil
	}
	if iters < 1 {
		return 0, fmt.Errorf("tempering: estimating the screen's evaluations needs at least 1 transition, got %d", iters)
	}
	dim := k.Screen.Dim()
	l, err := k.NewLevel(dim, 1)
	if err != nil {
		return 0, err
	}
	d := &Density{target: screenTarget{s: k.Screen, z: make([]float64, dim)}, beta: 1, stats: &LevelStats{}, halt: &halt{}}
	s := NewState(dim)
	copy(s.U, k.Center)
	l.Init(d, s)
	if !validLog(s.LogDensity) {
		return 0, errors.New("tempering: the screen's density is not finite at the proposal's centre")
	}
	d.stats.Evals = 0
	for range iters {
		l.Step(rng, d, s)
	}
	return float64(d.stats.Evals) / float64(iters), nil
}

// screenTarget is a Surrogate as a Target: its log density the
// log-likelihood, a flat prior, one observation.
type screenTarget struct {
	s *Surrogate
	z []float64
}

func (t screenTarget) Dim() int                           { return t.s.Dim() }
func (t screenTarget) NumObs() int                        { return 1 }
func (t screenTarget) LogPrior(u, grad []float64) float64 { return 0 }
func (t screenTarget) LogLik(_ []int, u, _ []float64) (float64, error) {
	return t.s.LogDensity(u, t.z), nil
}
func (t screenTarget) Clone() (Target, error) {
	return screenTarget{s: t.s, z: make([]float64, t.s.Dim())}, nil
}
