package subtemper

import (
	"context"
	"math"
	"testing"

	"github.com/subtemper/subtemper/gp"
)

// pitCheck predicts 500 held-out points of a GP drawn from the prior
// (gp.Synthetic: 200 training points, then 500 test points from the same
// function) at θ = the generator's θ with every length scale multiplied
// by ellScale, and returns the PIT's KS p-value and the 90% coverage.
func pitCheck(t *testing.T, d int, seed uint64, ellScale float64) (p, cov90 float64) {
	t.Helper()
	all, theta, err := gp.Synthetic(700, d, seed, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.Prefix(200)
	u := make([]float64, d+2)
	for i := range u {
		u[i] = math.Log(theta[i])
		if i < d {
			u[i] += math.Log(ellScale)
		}
	}
	pr, err := (gp.Prior{}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	fit := &GPFit{Data: train, Prior: pr, Backend: "gonum", Draws: [][][]float64{{u}}}
	defer fit.Close()
	y := all.Y[200:]
	pred, err := fit.Predict(context.Background(), all.X[200*d:], len(y), PredictOptions{Y: y})
	if err != nil {
		t.Fatal(err)
	}
	m, err := pred.Metrics(y)
	if err != nil {
		t.Fatal(err)
	}
	return m.PITKSP, m.Coverage90
}

// TestPITCalibration: predictions at the θ the data were drawn from give
// uniform PITs over 500 test points (KS p > 0.01) at D = 1 and 3, and
// length scales fixed 10 times too short do not.
//
// A too-short ℓ reverts the predictive to the prior's N(0, σf² + σn²),
// which is calibrated on average over functions drawn from the prior: the
// PITs reveal it only when the function's values over the test inputs are
// unlike that marginal, as in the two data sets below (at D = 3 the
// generator's seeds 1 and 4; of seeds 1–6 at D = 3, three give p < 0.01).
func TestPITCalibration(t *testing.T) {
	for _, d := range []int{1, 3} {
		for seed := uint64(1); seed <= 6; seed++ {
			if p, cov := pitCheck(t, d, seed, 1); !(p > 0.01) {
				t.Errorf("D = %d, seed %d, the true θ: PIT KS p = %.3g (90%% coverage %.2f), want > 0.01", d, seed, p, cov)
			}
		}
	}
	for _, seed := range []uint64{1, 4} {
		if p, cov := pitCheck(t, 3, seed, 0.1); !(p < 0.01) {
			t.Errorf("D = 3, seed %d, ℓ 10× too short: PIT KS p = %.3g (90%% coverage %.2f), want < 0.01", seed, p, cov)
		}
	}
}
