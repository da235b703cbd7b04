package subtemper

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
)

// TestConcurrentPredict: Predict called on one fit from 8 goroutines at
// once (as from an HTTP handler) gives, bit for bit, the answers of the
// same calls made one after another, and (under -race) without a data
// race. Concurrent calls used to share the model's workspaces: answers off
// by up to 253.
func TestConcurrentPredict(t *testing.T) {
	data, _, err := gp.Synthetic(60, 2, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draws := make([][][]float64, 2)
	for c := range draws {
		for range 20 {
			u := make([]float64, data.D+2)
			for i := range u {
				u[i] = 0.3 * rng.NormFloat64()
			}
			draws[c] = append(draws[c], u)
		}
	}
	prior, err := gp.Prior{}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	fit := &GPFit{Data: data, Prior: prior, Backend: linalg.FastestName(), Draws: draws}
	defer fit.Close()
	const calls = 8
	inputs := make([][]float64, calls)
	for k := range inputs {
		inputs[k] = make([]float64, (5+k)*data.D)
		for i := range inputs[k] {
			inputs[k][i] = 2 * rng.NormFloat64()
		}
	}
	ctx := context.Background()
	want := make([]*gp.Predictive, calls)
	for k, x := range inputs {
		if want[k], err = fit.Predict(ctx, x, len(x)/data.D, PredictOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		got := make([]*gp.Predictive, calls)
		errs := make([]error, calls)
		var wg sync.WaitGroup
		for k, x := range inputs {
			wg.Go(func() { got[k], errs[k] = fit.Predict(ctx, x, len(x)/data.D, PredictOptions{}) })
		}
		wg.Wait()
		for k := range calls {
			if errs[k] != nil {
				t.Fatalf("round %d, call %d: %v", round, k, errs[k])
			}
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Fatalf("round %d, call %d: concurrent answer differs from the sequential one: mean %v, want %v", round, k, got[k].YMean, want[k].YMean)
			}
		}
	}
}
