package subtemper

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// TestSaveLoadKernel: a Matérn fit saves its kernel in fit.json and reads
// back to the same model (the same predictions bit for bit, which differ
// from the squared exponential's at the same draws); a fit.json without
// "kernel" (written before the field existed) reads as the squared
// exponential, and an unknown kernel is refused.
func TestSaveLoadKernel(t *testing.T) {
	data, _, err := gp.Synthetic(30, 2, 7, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", Kernel: gp.Matern52, Settings: &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.PT, Kernel: tempering.MH{Sigma: 0.2}, Swap: tempering.Sweep, Levels: 2},
		Control: tempering.Control{Warmup: 10, Draws: 10, Chains: 2, Seed: 4},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	m, err := fit.Model()
	if err != nil || m.Kernel() != gp.Matern52 {
		t.Fatalf("fit's model: kernel %v, %v", m.Kernel(), err)
	}
	dir := t.TempDir()
	if err := fit.Save(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FitFile))
	if err != nil {
		t.Fatal(err)
	}
	var fj map[string]any
	if err := json.Unmarshal(raw, &fj); err != nil || fj["kernel"] != "matern52" {
		t.Fatalf("fit.json kernel = %v (%v)", fj["kernel"], err)
	}
	back, err := LoadGPFit(dir, "gonum")
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if back.Kernel != gp.Matern52 {
		t.Errorf("loaded kernel %v, want matern52", back.Kernel)
	}
	x := []float64{0, 0, 1, -1, 5, 5}
	ctx := context.Background()
	p1, err := fit.Predict(ctx, x, 3, PredictOptions{Draws: 7})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(ctx, x, 3, PredictOptions{Draws: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1.YMean, p2.YMean) || !slices.Equal(p1.FSD, p2.FSD) {
		t.Errorf("predictions differ after Save/Load: %v %v", p1.YMean, p2.YMean)
	}
	// The same folder without "kernel": the squared exponential.
	delete(fj, "kernel")
	old, _ := json.Marshal(fj)
	if err := os.WriteFile(filepath.Join(dir, FitFile), old, 0o644); err != nil {
		t.Fatal(err)
	}
	se, err := LoadGPFit(dir, "gonum")
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	if se.Kernel != gp.SE {
		t.Errorf("fit.json without kernel read as %v, want se", se.Kernel)
	}
	p3, err := se.Predict(ctx, x, 3, PredictOptions{Draws: 7})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(p1.YMean, p3.YMean) {
		t.Error("the squared exponential predicts what Matérn 5/2 does")
	}
	fj["kernel"] = "matern72"
	bad, _ := json.Marshal(fj)
	if err := os.WriteFile(filepath.Join(dir, FitFile), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGPFit(dir, "gonum"); !errors.Is(err, ErrIncompleteFit) || !strings.Contains(err.Error(), "matern72") {
		t.Errorf("unknown kernel: %v", err)
	}
}
