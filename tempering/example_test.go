package tempering_test

import (
	"context"
	"fmt"
	"math"

	"github.com/subtemper/subtemper/tempering"
)

// normalMean is a one-parameter model: x_n ~ N(θ, 1), θ ~ N(0, 10²).
type normalMean struct{ x []float64 }

func (m normalMean) Dim() int    { return 1 }
func (m normalMean) NumObs() int { return len(m.x) }

func (m normalMean) LogPrior(u, grad []float64) float64 {
	if grad != nil {
		grad[0] = -u[0] / 100
	}
	return -0.5 * u[0] * u[0] / 100
}

func (m normalMean) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, g := 0.0, 0.0
	add := func(x float64) {
		ll -= 0.5 * (x - u[0]) * (x - u[0])
		g += x - u[0]
	}
	if subset == nil {
		for _, x := range m.x {
			add(x)
		}
	} else {
		for _, n := range subset {
			add(m.x[n])
		}
	}
	if grad != nil {
		grad[0] = g
	}
	return ll, nil
}

func (m normalMean) Clone() (tempering.Target, error) { return m, nil }

func ExampleRun() {
	model := normalMean{x: []float64{2.1, 1.7, 2.4, 1.9, 2.3, 2.0, 1.6, 2.2}}
	res, err := tempering.Run(context.Background(), model, &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.STT, Kernel: tempering.MH{Sigma: 0.3}, Levels: 3},
		Control: tempering.Control{Warmup: 500, Draws: 5000, Seed: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, n := 0.0, 0
	for _, chain := range res.Draws {
		for _, u := range chain {
			sum += u[0]
			n++
		}
	}
	fmt.Printf("posterior mean ≈ %.1f from %d draws\n", math.Round(10*sum/float64(n))/10, n)
	// The ladder is adaptive by default: M = 3 as set, the hottest
	// subset round(N/8) = 1 as BetaMin's default, the others placed
	// during warm-up (LadderFixed would keep the geometric [8 4 2 1]).
	fmt.Printf("levels %d, subset sizes %v\n", len(res.Betas), res.SubsetSizes)
	// Output:
	// posterior mean ≈ 2.0 from 15000 draws
	// levels 4, subset sizes [8 6 3 1]
}
