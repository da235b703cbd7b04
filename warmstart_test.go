package subtemper

import (
	"context"
	"math"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// TestFitGPWarmStart checks FitGP's warm start: with WarmStartOn the fit
// records the mode, runs the kernel alone on one mode with the short
// warm-up, and its draws surround the mode; with MAP it holds the mode
// alone, whose log posterior is at least that of every draw of the full
// fit.
func TestFitGPWarmStart(t *testing.T) {
	data, _, err := gp.Synthetic(120, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fit, err := FitGP(ctx, data, GPOptions{Backend: "gonum", WarmStart: WarmStartOn})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if fit.Mode == nil || !fit.Mode.Unimodal() {
		t.Fatalf("warm start %+v, want one mode", fit.Mode)
	}
	if fit.Settings.Driver != tempering.None || fit.Settings.Warmup != tempering.WarmStartWarmup || fit.Settings.InitTuning == nil {
		t.Errorf("settings after the warm start: driver %v, warm-up %d, tuning %v", fit.Settings.Driver, fit.Settings.Warmup, fit.Settings.InitTuning)
	}
	if p := fit.Mode.Proposal; p != nil && p.ESS() >= MinProposalESS {
		k, ok := fit.Settings.Kernel.(tempering.Independence)
		wide := 0.0
		if p.ESS() < WideBelowESS {
			wide = IndependenceWide
		}
		if !ok || k.Local != IndependenceLocal || k.Wide != wide || len(k.Center) == 0 {
			t.Errorf("proposal of importance ESS %.2f: kernel %T %+v, want the fitted independence kernel with %d local steps and wide weight %v", p.ESS(), fit.Settings.Kernel, fit.Settings.Kernel, IndependenceLocal, wide)
		}
	} else {
		t.Logf("the proposal was not used (%+v): the independence kernel's settings are not checked", p)
	}
	sum, err := fit.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sum {
		if th := math.Exp(fit.Mode.Mode[i]); th < s.Q5 || th > s.Q95 {
			t.Errorf("%s: mode %.4g outside the draws' 90%% interval [%.4g, %.4g]", s.Name, th, s.Q5, s.Q95)
		}
	}

	mp, err := FitGP(ctx, data, GPOptions{Backend: "gonum", MAP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	if len(mp.Draws) != 1 || len(mp.Draws[0]) != 1 || mp.Result != nil {
		t.Fatalf("MAP fit holds %d chains, result %v", len(mp.Draws), mp.Result)
	}
	m, err := fit.Model()
	if err != nil {
		t.Fatal(err)
	}
	lp := func(u []float64) float64 {
		ll, err := m.LogLik(nil, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ll + m.LogPrior(u, nil)
	}
	best := lp(mp.Draws[0][0])
	for _, ch := range fit.Draws {
		for _, u := range ch {
			if v := lp(u); v > best+1e-6 {
				t.Fatalf("a draw has log posterior %.6f above the MAP's %.6f", v, best)
			}
		}
	}
	if _, err := mp.Predict(ctx, []float64{0, 0}, 1, PredictOptions{}); err != nil {
		t.Errorf("predicting from the MAP fit: %v", err)
	}
	if _, err := FitGP(ctx, data, GPOptions{Backend: "gonum", WarmStart: 7}); err == nil {
		t.Error("an unknown warm-start mode was accepted")
	}
}

// TestWarmSettingsWide checks that WarmSettings mixes the wider t into a
// fitted proposal whose importance ESS is below WideBelowESS, and only
// then, and that a proposal below MinProposalESS is not used.
func TestWarmSettingsWide(t *testing.T) {
	cov := []float64{1, 0.2, 0.2, 2}
	for _, c := range []struct {
		ess  float64
		imh  bool
		wide float64
	}{{0.8, true, 0}, {WideBelowESS, true, 0}, {0.35, true, IndependenceWide}, {MinProposalESS - 0.01, false, 0}} {
		ws := &tempering.WarmStart{Mode: []float64{0, 1}, Cov: cov, Inits: [][]float64{{0, 1}}, Modes: 1,
			Proposal: &tempering.Proposal{Transform: gp.VarianceSplit{}, Center: []float64{0, 1}, Cov: cov, DF: 5, Scale: 1.2, ImportanceESS: c.ess}}
		st := WarmSettings(DefaultGPSettings(), ws, false)
		k, ok := st.Kernel.(tempering.Independence)
		if ok != c.imh || ok && (k.Wide != c.wide || k.Local != IndependenceLocal) {
			t.Errorf("importance ESS %v: kernel %T %+v, want independence %v with wide weight %v", c.ess, st.Kernel, st.Kernel, c.imh, c.wide)
		}
	}
}
