package subtemper

import (
	"context"
	"errors"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// TestFitGPCancelled: a cancelled context gives an error wrapping
// context.Canceled, with the partial fit when sampling had begun.
func TestFitGPCancelled(t *testing.T) {
	data, _, err := gp.Synthetic(30, 1, 2, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fit, err := FitGP(ctx, data, GPOptions{Backend: "gonum"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: fit %v, error %v; want an error wrapping context.Canceled", fit != nil, err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	st := DefaultGPSettings()
	st.Progress = func(chain, iter, total int) {
		if iter >= 150 {
			cancel()
		}
	}
	fit, err = FitGP(ctx, data, GPOptions{Backend: "gonum", Settings: &st})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during warm-up: error %v, want one wrapping context.Canceled", err)
	}
	if fit == nil || fit.Result == nil || !fit.Result.Interrupted {
		t.Errorf("cancelled during sampling: fit %+v; want the partial fit, marked interrupted", fit)
	}

	// A deadline that passes gives context.DeadlineExceeded.
	ctx, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	if _, err := FitGP(ctx, data, GPOptions{Backend: "gonum", Settings: &tempering.Settings{Control: tempering.Control{Chains: 1, Warmup: 10, Draws: 10}}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired deadline: error %v, want one wrapping context.DeadlineExceeded", err)
	}
}
