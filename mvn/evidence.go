package mvn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// SamplePrior writes a draw θ ~ N(0, σ0² I) from the prior into u (len D),
// using rng. It implements tempering.PriorSampler.
func (m *Model) SamplePrior(rng *rand.Rand, u []float64) {
	for j := range u {
		u[j] = m.s.sigma0 * rng.NormFloat64()
	}
}

// LogEvidence returns the exact log evidence log p(x_S) = log ∫ p(x_S|θ)
// p(θ) dθ of the observations in subset (nil: all), from the identity
// p(x_S) = p(x_S|θ) p(θ) / p(θ|x_S), which holds at every θ: here at the
// posterior mean, with the Gaussian posterior of Posterior.
func (m *Model) LogEvidence(subset []int) (float64, error) {
	post, err := m.Posterior(subset, 1)
	if err != nil {
		return 0, err
	}
	th := post.Mean
	ll, err := m.LogLik(subset, th, nil)
	if err != nil {
		return 0, fmt.Errorf("mvn: log evidence: %w", err)
	}
	lp := m.LogPrior(th, nil)
	var ch mat.Cholesky
	if !ch.Factorize(post.Cov) {
		return 0, fmt.Errorf("mvn: log evidence: posterior covariance is not positive definite")
	}
	// At its mean the Gaussian posterior's log density is
	// −½ log det(2π Cov).
	d := float64(m.Dim())
	lpost := -0.5 * (d*math.Log(2*math.Pi) + ch.LogDet())
	return ll + lp - lpost, nil
}
