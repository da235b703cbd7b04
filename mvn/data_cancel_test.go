package mvn

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSyntheticContextCancel: a cancellation during the generation of a
// large synthetic dataset (Σ's Cholesky factorisation, then O(n·d²) draws)
// stops it within a second.
func TestSyntheticContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, _, _, err := SyntheticContext(ctx, 4000, 1500, 1, SynthOptions{})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SyntheticContext returned %v after %v, want context.Canceled", err, took)
	}
	if lat := took - 200*time.Millisecond; lat > time.Second {
		t.Errorf("returned %v after the cancellation, want under a second", lat)
	}
	t.Logf("returned %v after the cancellation", took-200*time.Millisecond)
}
