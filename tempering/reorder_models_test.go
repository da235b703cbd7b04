package tempering_test

import (
	"context"
	"math"
	"testing"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
)

// TestMVNSubsampledWithReorder runs SPT and STT on an mvn.Model, which lays
// its data out so that the drivers' subsets are contiguous prefixes, and
// checks the posterior mean against the analytic one, and that the
// reordering ran.
func TestMVNSubsampledWithReorder(t *testing.T) {
	m := newMVNModel(t, 40, 3, 2)
	post, err := m.Posterior(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, drv := range []tempering.Driver{tempering.SPT, tempering.STT} {
		res, err := tempering.Run(context.Background(), m, &tempering.Settings{
			Sampler: tempering.Sampler{Driver: drv, Kernel: tempering.MH{Sigma: 0.15}, Swap: tempering.Sweep},
			Control: tempering.Control{Warmup: 300, Draws: 6000, Seed: 3},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(3) // SPT: once per chain
		if drv == tempering.STT {
			want = 3 * (1 + 300 + 6000) // at construction and every iteration
		}
		if res.Stats.Reorders != want {
			t.Errorf("%v: %d reorders, want %d", drv, res.Stats.Reorders, want)
		}
		for j := range 3 {
			chains := make([][]float64, len(res.Draws))
			for c, dr := range res.Draws {
				for _, u := range dr {
					chains[c] = append(chains[c], u[j])
				}
			}
			mean, se := diag.Mean(diag.Pool(chains)), diag.MCSEMean(chains)
			if z := (mean - post.Mean[j]) / se; math.Abs(z) > 4 {
				t.Errorf("%v: mean[%d] = %.4f, posterior %.4f, MCSE %.4f: %.1f MCSE off", drv, j, mean, post.Mean[j], se, z)
			}
		}
	}
}

// newMVNModel returns the MVN model on synthetic data (n observations of
// dimension d, data seed seed, mvn.Synthetic's defaults) on the gonum
// backend.
func newMVNModel(t *testing.T, n, d int, seed uint64) *mvn.Model {
	t.Helper()
	data, sigma, _, err := mvn.Synthetic(n, d, seed, mvn.SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mvn.New(linalg.Default(), data, sigma, mvn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
