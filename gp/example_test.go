package gp_test

import (
	"fmt"
	"log"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
)

// Evaluate the log marginal likelihood of a GP and its gradient for a CSV
// file, after standardising inputs and target, at the prior mean θ*.
func Example() {
	data, err := gp.ReadCSVFile("testdata/small.csv", gp.CSVOptions{Target: "yield"})
	if err != nil {
		log.Fatal(err)
	}
	std, s, err := gp.Standardize(data, true, true)
	if err != nil {
		log.Fatal(err)
	}
	m, err := gp.New(linalg.Default(), std, gp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	u := m.StartPoints()[0] // log θ*
	grad := make([]float64, m.Dim())
	ll, err := m.LogLik(nil, u, grad)
	if err != nil {
		log.Fatal(err)
	}
	lp := m.LogPrior(u, nil)
	fmt.Printf("N = %d, inputs %v, target %q\n", m.NumObs(), data.Names, data.Target)
	fmt.Printf("θ* = %.4f\n", gp.Theta(nil, u))
	fmt.Printf("θ* in original units = %.4f\n", s.Original(nil, gp.Theta(nil, u)))
	fmt.Printf("log p(y | θ*) = %.4f, log p(u*) = %.4f\n", ll, lp)
	fmt.Printf("∂/∂log θ = %.4f\n", grad)
	// Output:
	// N = 12, inputs [temperature pressure], target "yield"
	// θ* = [2.7183 2.7183 4.0000 1.0000]
	// θ* in original units = [29.7204 0.9801 2.1621 0.5405]
	// log p(y | θ*) = -20.3110, log p(u*) = -2.9482
	// ∂/∂log θ = [-2.1203 2.0365 -2.0786 -4.4832]
}
