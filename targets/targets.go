// Package targets adapts the models (gp.Model, mvn.Model) to
// tempering.Target. The models cannot name tempering.Target in their Clone
// methods without importing the sampler package, which would point the
// dependency arrows the wrong way; these adapters close the gap.
package targets

import (
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
)

// GP adapts a *gp.Model to tempering.Target.
type GP struct{ *gp.Model }

// Clone returns an independent GP target with its own backend workspace.
func (t GP) Clone() (tempering.Target, error) {
	m, err := t.Model.Clone()
	if err != nil {
		return nil, err
	}
	return GP{m}, nil
}

// MVN adapts a *mvn.Model to tempering.Target.
type MVN struct{ *mvn.Model }

// Clone returns an independent MVN target with its own backend workspace.
func (t MVN) Clone() (tempering.Target, error) {
	m, err := t.Model.Clone()
	if err != nil {
		return nil, err
	}
	return MVN{m}, nil
}

var (
	_ tempering.Target = GP{}
	_ tempering.Target = MVN{}
)

// Start implements tempering.Starter: chain c starts at θ*, θ*/2 or 2θ*
// (θ* the prior mean, as in the paper), cycling for more than 3 chains.
func (t GP) Start(c, chains int, u []float64) { copy(u, pick(t.Model.StartPoints(), c)) }

// Start implements tempering.Starter: chain c starts at θ*, θ*/2 or 2θ*
// (θ* the prior mean), cycling for more than 3 chains.
func (t MVN) Start(c, chains int, u []float64) { copy(u, pick(t.Model.StartPoints(), c)) }

func pick(p [][]float64, c int) []float64 { return p[c%len(p)] }

var (
	_ tempering.Starter = GP{}
	_ tempering.Starter = MVN{}
)
