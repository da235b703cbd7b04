package gp

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSyntheticContextCancel: a cancellation during the O(n³) Cholesky
// factorisation of the synthetic-data generator stops it within a second
// (n = 4000 takes several seconds on 2 cores; Synthetic had no way to stop).
func TestSyntheticContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := SyntheticContext(ctx, 4000, 2, 1, Prior{})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SyntheticContext returned %v after %v, want context.Canceled", err, took)
	}
	if lat := took - 200*time.Millisecond; lat > time.Second {
		t.Errorf("returned %v after the cancellation, want under a second", lat)
	}
	t.Logf("returned %v after the cancellation", took-200*time.Millisecond)

	// Cancelled before the start: returns at once.
	start = time.Now()
	if _, _, err := SyntheticContext(ctx, 4000, 2, 1, Prior{}); !errors.Is(err, context.Canceled) || time.Since(start) > 100*time.Millisecond {
		t.Errorf("with a cancelled context: %v after %v", err, time.Since(start))
	}
}

// TestStandardizeContextCancel: a cancelled context stops Standardize.
func TestStandardizeContextCancel(t *testing.T) {
	d, _, err := Synthetic(20, 2, 1, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := StandardizeContext(ctx, d, true, true); !errors.Is(err, context.Canceled) {
		t.Errorf("StandardizeContext with a cancelled context: %v", err)
	}
	if _, _, err := StandardizeContext(context.Background(), d, true, true); err != nil {
		t.Errorf("StandardizeContext: %v", err)
	}
}
