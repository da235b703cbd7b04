package gp

import (
	"math"
	"math/rand/v2"
)

// SamplePrior writes a draw from the prior, in the sampling space
// u = log θ, into u (len Dim), using rng. It implements
// tempering.PriorSampler.
func (m *Model) SamplePrior(rng *rand.Rand, u []float64) {
	th := m.prior.Sample(rng, m.data.D)
	for j, v := range th {
		u[j] = math.Log(v)
	}
}
