package tempering_test

import (
	"context"
	"fmt"

	"github.com/subtemper/subtemper/tempering"
)

// ExampleImportanceSample weighs the normal mean's posterior from a
// proposal fitted around its mode: the warm start's mode and Laplace
// approximation, a Student-t fitted to the posterior by importance
// sampling, then a weighted sample that reuses the fit's draws and
// stops once every ESS reaches 400.
func ExampleImportanceSample() {
	ctx := context.Background()
	model := normalMean{x: []float64{2.1, 1.7, 2.4, 1.9, 2.3, 2.0, 1.6, 2.2}}
	ws, err := tempering.FindMode(ctx, model, tempering.WarmStartOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := ws.FitProposal(ctx, model, tempering.ProposalOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := tempering.ImportanceSample(ctx, model, p.Kernel(), p.Transform, tempering.ImportanceOptions{Seed: 1, Reuse: p})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The exact posterior mean is 16.2/8.01 = 2.022.
	fmt.Printf("converged %v, Pareto k̂ below 0.5 %v, mean %.1f, standard error below 0.05 %v\n", res.Converged, res.K < 0.5, res.Means[0], res.SE[0] < 0.05)
	// Output: converged true, Pareto k̂ below 0.5 true, mean 2.0, standard error below 0.05 true
}
