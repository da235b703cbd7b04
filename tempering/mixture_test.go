package tempering

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// ridgeTarget is a four-dimensional posterior along a bent ridge, the
// mixture of three Gaussians of weights ridgeW centred at ridgeMu, each
// of standard deviations (0.7, 0.15, 1, 1): a flat-topped first
// coordinate whose second bends with it, as a length scale the data
// barely fix drags its neighbours. Its mean is known exactly.
type ridgeTarget struct{}

var (
	ridgeW  = []float64{0.3, 0.4, 0.3}
	ridgeMu = [][]float64{{-1.6, 0.6, 0, 0}, {0, 0, 0, 0}, {1.6, 0.6, 0, 0}}
	ridgeSD = []float64{0.7, 0.15, 1, 1}
)

func (ridgeTarget) Dim() int                           { return 4 }
func (ridgeTarget) NumObs() int                        { return 1 }
func (ridgeTarget) LogPrior(_, grad []float64) float64 { clear(grad); return 0 }
func (r ridgeTarget) Clone() (Target, error)           { return r, nil }

func (ridgeTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	terms := make([]float64, len(ridgeW))
	for c, mu := range ridgeMu {
		terms[c] = math.Log(ridgeW[c])
		for i, x := range u {
			z := (x - mu[i]) / ridgeSD[i]
			terms[c] -= 0.5*z*z + math.Log(ridgeSD[i])
		}
	}
	ll := floats.LogSumExp(terms)
	if grad != nil {
		clear(grad)
		for c, mu := range ridgeMu {
			p := math.Exp(terms[c] - ll)
			for i, x := range u {
				grad[i] -= p * (x - mu[i]) / (ridgeSD[i] * ridgeSD[i])
			}
		}
	}
	return ll - 2*math.Log(2*math.Pi), nil
}

// ridgeMean returns the ridge target's mean.
func ridgeMean() []float64 {
	m := make([]float64, 4)
	for c, mu := range ridgeMu {
		for i := range m {
			m[i] += ridgeW[c] * mu[i]
		}
	}
	return m
}

// TestWeightedEM checks the mixture refit's EM on importance-weighted
// draws: from a broad Gaussian, weighted towards the ridge target, it
// recovers the three components' weights and means.
func TestWeightedEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 20000
	xs := make([][]float64, n)
	lw := make([]float64, n)
	var tg ridgeTarget
	for i := range xs {
		x := make([]float64, 4)
		var lq float64
		for j := range x {
			x[j] = 2 * rng.NormFloat64()
			lq -= x[j] * x[j] / 8
		}
		xs[i] = x
		lp, _ := tg.LogLik(nil, x, nil)
		lw[i] = lp - lq
	}
	w := NormalisedWeights(lw)
	var s2 float64
	for _, v := range w {
		s2 += v * v
	}
	means, covs, pis := weightedEM(xs, w, 1/s2, 3)
	if len(means) != 3 {
		t.Fatalf("%d components, want 3", len(means))
	}
	order := []int{0, 1, 2}
	slices.SortFunc(order, func(a, b int) int { return int(math.Copysign(1, means[a][0]-means[b][0])) })
	for k, c := range order {
		t.Logf("component %d: weight %.3f mean %.2f sd(x0) %.2f", k, pis[c], means[c], math.Sqrt(covs[c][0]))
		if math.Abs(pis[c]-ridgeW[k]) > 0.05 {
			t.Errorf("component %d: weight %.3f, want %.1f", k, pis[c], ridgeW[k])
		}
		for i := range 2 {
			if math.Abs(means[c][i]-ridgeMu[k][i]) > 0.25*ridgeSD[i]+0.05 {
				t.Errorf("component %d: mean[%d] %.3f, want %.1f", k, i, means[c][i], ridgeMu[k][i])
			}
		}
	}
}

// TestImportanceSampleMixture checks ImportanceOptions.Mixture on the
// bent ridge, from a proposal that fits its centre only (the Laplace
// approximation at the central mode, widened): over 20 seeds the means
// stay calibrated, and refits by a mixture of three t's need fewer draws
// in all to meet the stop rule than refits by one t: at most 0.8 times
// as many against one symmetric t (the refits before split-t's,
// splitRefits off), and fewer against one split-t (the default, which
// itself follows the ridge's bend better: 0.82 times measured).
func TestImportanceSampleMixture(t *testing.T) {
	defer func(v bool) { splitRefits = v }(splitRefits)
	for _, split := range []bool{false, true} {
		splitRefits = split
		drawsMix, drawsOne := ridgeMixtureDraws(t)
		switch {
		case !split && float64(drawsMix) > 0.8*float64(drawsOne):
			t.Errorf("symmetric refits: %d draws with mixture refits, %d with one t: the mixture did not help", drawsMix, drawsOne)
		case split && drawsMix >= drawsOne:
			t.Errorf("split refits: %d draws with mixture refits, %d with one split-t: the mixture did not help", drawsMix, drawsOne)
		}
	}
}

// ridgeMixtureDraws returns the draws that importance sampling on the
// bent ridge made over 20 seeds with refits by a mixture of three t's
// and with refits by one, failing t unless every mixture fit converged
// with calibrated means.
func ridgeMixtureDraws(t *testing.T) (drawsMix, drawsOne int) {
	t.Helper()
	var tg ridgeTarget
	k := Independence{Center: make([]float64, 4), Cov: make([]float64, 16), DF: 5, Scale: 1.2}
	for i, sd := range ridgeSD {
		k.Cov[i*4+i] = 2 * sd * sd
	}
	mean := ridgeMean()
	var zm float64
	var n int
	for seed := range uint64(20) {
		o := ImportanceOptions{Seed: seed + 1, Batch: 200, Adapt: true, Mixture: 3}
		r, err := ImportanceSample(context.Background(), tg, k, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatalf("seed %d: the mixture's refits did not converge in %d draws", seed+1, len(r.Draws))
		}
		drawsMix += len(r.Draws)
		zm += sumZ2(r, mean)
		n += len(mean)
		o.Mixture = 0
		f, err := ImportanceSample(context.Background(), tg, k, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		drawsOne += len(f.Draws)
	}
	zm /= float64(n)
	t.Logf("split refits %v: mean z² %.2f over %d; draws %d with mixture refits, %d with one t", splitRefits, zm, n, drawsMix, drawsOne)
	if zm < 0.5 || zm > 1.7 {
		t.Errorf("means: mean z² = %.2f, want about 1", zm)
	}
	return drawsMix, drawsOne
}

// TestWeightedEMDegenerate checks that a sample whose weight sits on one
// draw gives no mixture (the refit then keeps its single t), and that a
// negative Mixture is refused.
func TestWeightedEMDegenerate(t *testing.T) {
	xs := [][]float64{{0, 0}, {1, 2}, {-1, 3}}
	if means, _, _ := weightedEM(xs, []float64{0, 1, 0}, 1, 3); means != nil {
		t.Errorf("one draw of all the weight: %d components, want none", len(means))
	}
	var tg ridgeTarget
	k := Independence{Center: make([]float64, 4), Cov: []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}
	if _, err := ImportanceSample(context.Background(), tg, k, nil, ImportanceOptions{Mixture: -1}); err == nil {
		t.Error("Mixture −1: no error")
	}
}

// TestShrinkCov checks the shrinkage of a refit's covariance: three
// draws in four dimensions give a singular covariance, which shrinking
// towards the identity by six draws makes positive definite, between the
// two.
func TestShrinkCov(t *testing.T) {
	xs := [][]float64{{0, 0, 0, 0}, {1, 2, 0, 1}, {-1, 3, 1, 0}}
	_, cov := weightedMoments(xs, []float64{1, 1, 1})
	l := make([]float64, 16)
	if cholesky(slices.Clone(cov), l, 4) {
		t.Fatal("three draws in four dimensions gave a positive definite covariance")
	}
	id := []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	s := slices.Clone(cov)
	shrinkCov(s, id, 3, 6)
	if !cholesky(slices.Clone(s), l, 4) {
		t.Fatal("the shrunk covariance is not positive definite")
	}
	for j := range s {
		if want := (3*cov[j] + 6*id[j]) / 9; math.Abs(s[j]-want) > 1e-12 {
			t.Errorf("entry %d: %v, want %v", j, s[j], want)
		}
	}
}
