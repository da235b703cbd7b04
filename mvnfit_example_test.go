package subtemper_test

import (
	"context"
	"fmt"
	"math"

	"github.com/subtemper/subtemper"
)

// ExampleFitMVN samples the mean of a multivariate normal of known
// covariance (the paper's §4.1 model) from synthetic data, through the
// root package alone, and checks the draws against the exact posterior
// that the fit holds beside them.
func ExampleFitMVN() {
	ctx := context.Background()
	data, sigma, _, err := subtemper.SyntheticMVNData(ctx, 500, 3, 1, 0, nil) // Σ: AR(1), ρ = 0.5
	if err != nil {
		panic(err)
	}
	st := subtemper.DefaultGPSettings()
	st.Stop = nil // the default rule judges exp(θ); here every draw is kept
	st.Draws = 500
	fit, err := subtemper.FitMVN(ctx, data, sigma, subtemper.MVNOptions{Backend: "gonum", Settings: &st})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	chains := make([]int, len(fit.Draws))
	for c := range chains {
		chains[c] = c + 1
	}
	sums, v, err := subtemper.Diagnose(&subtemper.Draws{
		Names: []string{"theta_1", "theta_2", "theta_3"}, Chains: chains, Values: byVariable(fit.Draws),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("converged:", v.Converged)
	for i, s := range sums {
		fmt.Printf("%s: mean within 0.2 sd of the exact posterior's: %v\n", s.Name, math.Abs(s.Mean-fit.PostMean[i]) < 0.2*fit.PostSD[i])
	}
	// Output:
	// converged: true
	// theta_1: mean within 0.2 sd of the exact posterior's: true
	// theta_2: mean within 0.2 sd of the exact posterior's: true
	// theta_3: mean within 0.2 sd of the exact posterior's: true
}

// byVariable turns draws[chain][draw][variable] into
// [variable][chain][draw], Draws' order.
func byVariable(draws [][][]float64) [][][]float64 {
	out := make([][][]float64, len(draws[0][0]))
	for v := range out {
		out[v] = make([][]float64, len(draws))
		for c, ch := range draws {
			for _, u := range ch {
				out[v][c] = append(out[v][c], u[v])
			}
		}
	}
	return out
}
