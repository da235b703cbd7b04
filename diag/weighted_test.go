package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestWeightedQuantileByHand(t *testing.T) {
	x := []float64{3, 1, 2}
	w := []float64{0.5, 0.2, 0.3}
	// In order: 1 (0.2), 2 (cumulative 0.5), 3 (1).
	for _, c := range []struct{ p, want float64 }{{0.05, 1}, {0.2, 1}, {0.21, 2}, {0.5, 2}, {0.51, 3}, {1, 3}} {
		if got := WeightedQuantile(x, w, c.p); got != c.want {
			t.Errorf("WeightedQuantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// The tail indicator at 0.2: draw 1 alone, mass 0.2; its estimate's
	// variance Σw²(f−0.2)² = 0.04·0.64 + (0.25+0.09)·0.04 = 0.0392.
	if got, want := WeightedTailESS(x, w, 0.2), 0.2*0.8/0.0392; math.Abs(got-want) > 1e-12 {
		t.Errorf("WeightedTailESS = %v, want %v", got, want)
	}
}

func TestSummarizeWeightedEqualWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1001
	x := make([]float64, n)
	w := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()*2 + 1
		w[i] = 1 / float64(n)
	}
	s, err := SummarizeWeighted("x", x, w)
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(x))
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("mean", s.Mean, Mean(x))
	near("sd", s.SD, SD(x)*math.Sqrt(float64(n-1)/float64(n)))
	near("median", s.Median, sorted[n/2])
	near("q5", s.Q5, sorted[int(math.Ceil(0.05*float64(n)))-1])
	near("q95", s.Q95, sorted[int(math.Ceil(0.95*float64(n)))-1])
	near("mad", s.MAD, MAD(x))
	// Equal weights: the mean's ESS is the number of draws.
	near("ess_bulk", s.ESSBulk, float64(n))
	if !math.IsNaN(s.Rhat) || !math.IsNaN(s.ESSPaper) {
		t.Errorf("R-hat %v and the paper's ESS %v of a weighted sample, want NaN", s.Rhat, s.ESSPaper)
	}
}

// TestWeightedCalibrated checks the standard errors and tail ESS of a
// self-normalised importance sample of N(0.5, 0.8²) from N(0, 1) against
// the spread of the estimates over replications.
func TestWeightedCalibrated(t *testing.T) {
	const reps, n = 400, 400
	mu, sd := 0.5, 0.8
	tq := mu - 1.6448536269514722*sd // the target's 5% quantile
	var zMean, zTail float64
	rng := rand.New(rand.NewPCG(3, 4))
	x, lw := make([]float64, n), make([]float64, n)
	for range reps {
		for i := range x {
			x[i] = rng.NormFloat64()
			e := (x[i] - mu) / sd
			lw[i] = -e*e/2 + x[i]*x[i]/2
		}
		w := NormalizeWeights(lw)
		m, se, _ := WeightedMean(x, w)
		zMean += (m - mu) * (m - mu) / (se * se)
		var p float64
		for i, xi := range x {
			if xi <= tq {
				p += w[i]
			}
		}
		ess := WeightedTailESS(x, w, 0.05)
		zTail += (p - 0.05) * (p - 0.05) * ess / (0.05 * 0.95)
	}
	zMean /= reps
	zTail /= reps
	if zMean < 0.8 || zMean > 1.25 {
		t.Errorf("mean z² of the means %.3f, want about 1", zMean)
	}
	if zTail < 0.75 || zTail > 1.35 {
		t.Errorf("mean z² of the 5%% tail %.3f, want about 1", zTail)
	}
}

func TestSummarizeWeightedErrors(t *testing.T) {
	for _, c := range []struct {
		x, w []float64
		want string
	}{
		{nil, nil, "no draws"},
		{[]float64{1, 2}, []float64{1}, "2 draws and 1 weights"},
		{[]float64{1, math.NaN()}, []float64{0.5, 0.5}, "draw 2 is NaN"},
		{[]float64{1, 2}, []float64{1.5, -0.5}, "weight 2 is -0.5"},
	} {
		_, err := SummarizeWeighted("v", c.x, c.w)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SummarizeWeighted(%v, %v): error %v, want one saying %q", c.x, c.w, err, c.want)
		}
	}
}

func TestJudgeWeighted(t *testing.T) {
	vars := []Summary{{Name: "a", ESSBulk: 500, ESSTail: 450}, {Name: "b", ESSBulk: 420, ESSTail: 401}}
	if v := JudgeWeighted(vars, 0.3, 400); !v.Converged || !math.IsNaN(v.MaxRhat) || v.MinESSTail != 401 {
		t.Errorf("k̂ 0.3, every ESS ≥ 400: %+v, want converged, min tail-ESS 401", v)
	}
	v := JudgeWeighted(vars, 0.75, 400)
	if v.Converged || !v.HighK || !strings.Contains(v.String(), "Pareto k̂ 0.75 > 0.7") {
		t.Errorf("k̂ 0.75: %+v (%s), want not converged for k̂", v, v)
	}
	v = JudgeWeighted(vars, 0.3, 420)
	if v.Converged || !slices.Equal(v.LowESSTail, []string{"b"}) || len(v.LowESSBulk) != 0 {
		t.Errorf("need 420: %+v, want b low in tail-ESS only", v)
	}
	if s := JudgeWeighted(vars, 0.3, 400).String(); !strings.HasPrefix(s, "converged (Pareto k̂ 0.30 ≤ 0.7") {
		t.Errorf("String() = %q", s)
	}
}
