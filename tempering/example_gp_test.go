package tempering_test

import (
	"context"
	"fmt"
	"math"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// Example_gaussianProcess samples a synthetic GP's hyperparameters with subsampled
// tempered transitions and HMC, the paper's recommended sampler.
func Example_gaussianProcess() {
	be, err := linalg.Get("gonum") // or "openblas", "cuda" when compiled in
	if err != nil {
		panic(err)
	}
	data, _, err := gp.Synthetic(64, 2, 1, gp.Prior{}) // or gp.ReadCSVFile(path, gp.CSVOptions{})
	if err != nil {
		panic(err)
	}
	m, err := gp.New(be, data, gp.Options{})
	if err != nil {
		panic(err)
	}
	res, err := tempering.Run(context.Background(), m, &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.SPT, Kernel: tempering.HMC{Steps: 10, Jitter: 0.2}, Swap: tempering.DEO},
		Control: tempering.Control{Warmup: 200, Draws: 300, Seed: 1},
	})
	if err != nil {
		panic(err)
	}
	// ℓ_1 in natural units, one series per chain.
	chains := make([][]float64, len(res.Draws))
	for c, draws := range res.Draws {
		for _, u := range draws {
			chains[c] = append(chains[c], math.Exp(u[0]))
		}
	}
	fmt.Printf("%d chains × %d draws, R-hat < 1.1: %v\n", len(chains), len(chains[0]), diag.Rhat(chains) < 1.1)
	// Output: 3 chains × 300 draws, R-hat < 1.1: true
}
