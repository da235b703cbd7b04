package mvn_test

import (
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/mvn"
)

// The analytic posterior of the mean, for all observations (β = 1) and for
// a tempered subsample (the first 8 observations, β = 1/8), next to a
// batched evaluation of the log-likelihood and its gradient.
func Example() {
	data, sigma, theta, err := mvn.Synthetic(256, 3, 1, mvn.SynthOptions{})
	if err != nil {
		log.Fatal(err)
	}
	m, err := mvn.New(linalg.Default(), data, sigma, mvn.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Printf("Σ =\n%.2f\n", mat.Formatted(sigma))
	fmt.Printf("true θ = %.3f\n", theta)

	post, err := m.Posterior(nil, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("posterior mean = %.3f\n", post.Mean)
	fmt.Printf("posterior sd of θ_1 = %.4f, corr(θ_1, θ_2) = %.2f\n",
		math.Sqrt(post.Cov.At(0, 0)), post.Cov.At(0, 1)/math.Sqrt(post.Cov.At(0, 0)*post.Cov.At(1, 1)))

	hot, err := m.Posterior([]int{0, 1, 2, 3, 4, 5, 6, 7}, 0.125)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tempered (n = 8, β = 1/8): mean = %.3f, sd of θ_1 = %.3f\n", hot.Mean, math.Sqrt(hot.Cov.At(0, 0)))

	// Two parameter vectors at once: the posterior mean and the origin.
	thetas := append(append([]float64(nil), post.Mean...), 0, 0, 0)
	out, grads := make([]float64, 2), make([]float64, 6)
	if err := m.LogLikBatch(nil, thetas, out, grads); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("log-lik = %.2f, %.2f\n", out[0], out[1])
	fmt.Printf("gradient at the origin = %.2f\n", grads[3:])
	// Output:
	// Σ =
	// ⎡1.00  0.50  0.25⎤
	// ⎢0.50  1.00  0.50⎥
	// ⎣0.25  0.50  1.00⎦
	// true θ = [0.906 0.444 -0.783]
	// posterior mean = [0.919 0.415 -0.745]
	// posterior sd of θ_1 = 0.0623, corr(θ_1, θ_2) = 0.50
	// tempered (n = 8, β = 1/8): mean = [0.147 0.295 -0.372], sd of θ_1 = 0.681
	// log-lik = -1020.88, -1285.84
	// gradient at the origin = [243.90 147.74 -325.89]
}
