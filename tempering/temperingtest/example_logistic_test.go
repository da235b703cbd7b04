package temperingtest_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// logistic is a user's model: Bayesian logistic regression
// y_n ~ Bernoulli(σ(x_n·β)), β ~ N(0, 2² I). It implements
// tempering.Target, whose LogLik on any subset of the observations is all
// that the subsampling drivers (SPT, STT) need, and tempering.PrefixLiker,
// which gives SPT the values on the hotter levels' subsets from the same
// pass over the data.
type logistic struct {
	x [][]float64 // covariates, with a leading 1 for the intercept
	y []float64   // 0 or 1
}

func (m logistic) Dim() int    { return len(m.x[0]) }
func (m logistic) NumObs() int { return len(m.y) }

func (m logistic) LogPrior(u, grad []float64) float64 {
	lp := 0.0
	for i, b := range u {
		lp -= b * b / 8
		if grad != nil {
			grad[i] = -b / 4
		}
	}
	return lp
}

func (m logistic) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, _, err := m.LogLikPrefixes(subset, u, grad, nil, nil)
	return ll, err
}

// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood of
// the first ks[j] observations of the subset.
func (m logistic) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	clear(grad)
	n := len(m.y)
	if subset != nil {
		n = len(subset)
	}
	ll := 0.0
	for k := range n {
		i := k
		if subset != nil {
			i = subset[k]
		}
		eta := 0.0
		for j, v := range m.x[i] {
			eta += v * u[j]
		}
		// log σ(η) = η − log(1 + e^η), log(1 − σ(η)) = −log(1 + e^η).
		ll += m.y[i]*eta - softplus(eta)
		r := m.y[i] - 1/(1+math.Exp(-eta))
		for j := range grad {
			grad[j] += r * m.x[i][j]
		}
		for j, kj := range ks {
			if kj == k+1 {
				pre[j] = ll
			}
		}
	}
	return ll, true, nil
}

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

// Clone returns m itself: the model has no workspaces, and its data are
// read-only.
func (m logistic) Clone() (tempering.Target, error) { return m, nil }

// newLogistic simulates n observations with β = (−0.5, 1.5, −1).
func newLogistic(n int, seed uint64) logistic {
	rng := rand.New(rand.NewPCG(seed, 1))
	beta := []float64{-0.5, 1.5, -1}
	var m logistic
	for range n {
		x := []float64{1, rng.NormFloat64(), rng.NormFloat64()}
		eta := beta[0] + beta[1]*x[1] + beta[2]*x[2]
		y := 0.0
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y = 1
		}
		m.x, m.y = append(m.x, x), append(m.y, y)
	}
	return m
}

// A user-defined model, checked with the kit, sampled by tempering by
// subsampling (SPT: the hotter levels condition on nested subsets of the
// observations) and summarised with package diag.
func Example_logisticRegression() {
	model := newLogistic(200, 1)
	if err := temperingtest.CheckTarget(model, temperingtest.TargetOptions{}); err != nil {
		fmt.Println("the model fails its checks:", err)
		return
	}
	res, err := tempering.Run(context.Background(), model, &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.SPT, Levels: 4},
		Control: tempering.Control{Warmup: 300, Draws: 500, Seed: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("SPT with %d levels, subset sizes %v\n", len(res.SubsetSizes), res.SubsetSizes)
	var sums []diag.Summary
	for j, name := range []string{"intercept", "x1", "x2"} {
		chains := make([][]float64, len(res.Draws))
		for c, draws := range res.Draws {
			for _, u := range draws {
				chains[c] = append(chains[c], u[j])
			}
		}
		s, err := diag.SummarizeChains(name, chains)
		if err != nil {
			fmt.Println(err)
			return
		}
		sums = append(sums, s)
		fmt.Printf("%-9s mean %5.1f, 90%% interval [%4.1f, %4.1f]\n", name, s.Mean, s.Q5, s.Q95)
	}
	v := diag.Judge(sums, len(res.Draws))
	fmt.Printf("R-hat below %.2f: %v\n", diag.RhatMax, v.MaxRhat < diag.RhatMax)
	// Output:
	// SPT with 5 levels, subset sizes [200 124 67 38 25]
	// intercept mean  -0.2, 90% interval [-0.5,  0.1]
	// x1        mean   1.2, 90% interval [ 0.9,  1.6]
	// x2        mean  -1.0, 90% interval [-1.3, -0.7]
	// R-hat below 1.01: true
}
