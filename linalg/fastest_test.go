package linalg

import (
	"slices"
	"testing"
)

// TestFastestName: the fastest backend is one compiled in, openblas over
// gonum when both are.
func TestFastestName(t *testing.T) {
	names := Names()
	got := FastestName()
	if !slices.Contains(names, got) {
		t.Fatalf("FastestName() = %q, not among %v", got, names)
	}
	if got == DefaultName && slices.Contains(names, "openblas") {
		t.Errorf("FastestName() = gonum with openblas compiled in")
	}
	if Fastest().Name() != got {
		t.Errorf("Fastest().Name() = %q, FastestName() = %q", Fastest().Name(), got)
	}
}
