package main

import (
	"strings"
	"testing"

	"github.com/subtemper/subtemper/tempering"
)

// TestKernelLineIndependence: the printed summary names an independence
// sampler's proposal as the run had it, not the flags' MH settings.
func TestKernelLineIndependence(t *testing.T) {
	f := &samplerFlags{mhScale: 0.1}
	s := &runSummary{}
	s.Adapt = "none"
	k := tempering.Independence{DF: 5, Wide: 0.15, Local: 1}
	got := kernelLine(f, s, "imh", k)
	for _, want := range []string{"IMH", "ν=5", "wide t of weight 0.15", "1 local random-walk step each"} {
		if !strings.Contains(got, want) {
			t.Errorf("kernelLine(imh) = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "MH σ") {
		t.Errorf("kernelLine(imh) = %q describes a random-walk MH", got)
	}
	k.Split = []float64{1, 1.25, 1.88, 1}
	if got := kernelLine(f, s, "imh", k); !strings.Contains(got, "split: scales 1–1.88 either side of the mode") {
		t.Errorf("kernelLine(imh) = %q, want it to name the split-t's scales", got)
	}
	if got := kernelLine(f, s, "mh", nil); got != "MH σ=0.1 fixed" {
		t.Errorf("kernelLine(mh) = %q, want %q", got, "MH σ=0.1 fixed")
	}
}
