package subtemper

import (
	"context"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
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
// then, that a proposal below MinProposalESS is not used, and that each
// kernel gets its most draws (IndependenceDraws, WarmKernelDraws).
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
		if want := map[bool]int{true: IndependenceDraws, false: WarmKernelDraws}[c.imh]; st.Draws != want {
			t.Errorf("importance ESS %v: %d draws per chain at most, want %d", c.ess, st.Draws, want)
		}
	}
}

// TestVarianceSplitTail: VarianceSplitTail compresses b's lower tail
// where the posterior falls there more slowly than a Gaussian (b
// log-Gamma(1) in the split space: 3.0 nats at 4 sd below its mode) and
// leaves the plain split where it falls faster (b with a quartic wall:
// 264 nats), from the same mode and Laplace covariance.
func TestVarianceSplitTail(t *testing.T) {
	split := gp.VarianceSplit{}
	v0 := []float64{0.3, 0, 0}
	mode := make([]float64, 3)
	split.ToTarget(v0, mode)
	// The Laplace covariance in u of the unit one in v: J·Jᵀ, J = ∂u/∂v
	// by central differences.
	const h = 1e-6
	jac := make([]float64, 9)
	for j := range 3 {
		vp, vm := append([]float64(nil), v0...), append([]float64(nil), v0...)
		vp[j] += h
		vm[j] -= h
		up, um := make([]float64, 3), make([]float64, 3)
		split.ToTarget(vp, up)
		split.ToTarget(vm, um)
		for i := range 3 {
			jac[i*3+j] = (up[i] - um[i]) / (2 * h)
		}
	}
	cov := make([]float64, 9)
	for i := range 3 {
		for k := range 3 {
			for j := range 3 {
				cov[i*3+k] += jac[i*3+j] * jac[k*3+j]
			}
		}
	}
	for _, c := range []struct {
		name  string
		b     func(b float64) float64
		tail  bool
		falls float64
	}{
		{"log-gamma", func(b float64) float64 { return b - math.Exp(b) }, true, 3 + math.Exp(-4)},
		{"quartic", func(b float64) float64 { return -b*b/2 - b*b*b*b }, false, 264},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := splitTarget{b: c.b}
			if fall, _, err := TailFall(context.Background(), tg, mode, cov); err != nil || math.Abs(fall-c.falls) > 1e-6*c.falls {
				t.Errorf("TailFall %v (%v), want %v", fall, err, c.falls)
			}
			tr, evals, err := VarianceSplitTail(context.Background(), tg, mode, cov)
			if err != nil {
				t.Fatal(err)
			}
			if evals != 2 {
				t.Errorf("evals %d, want 2", evals)
			}
			tail, ok := tr.(gp.VarianceSplitTail)
			if ok != c.tail {
				t.Fatalf("transform %T: want the tail compressed %v (b's fall at 4 sd %.3g nats, a Gaussian's 8)", tr, c.tail, c.falls)
			}
			if ok && (math.Abs(tail.Center) > 1e-6 || math.Abs(tail.Scale-TailScale) > 1e-6) {
				t.Errorf("centre %v, scale %v: want b's mode 0 and TailScale × its sd 1", tail.Center, tail.Scale)
			}
		})
	}
	if _, _, err := VarianceSplitTail(context.Background(), splitTarget{b: func(float64) float64 { return 0 }}, mode, cov[:4]); err == nil {
		t.Error("a covariance of the wrong size: no error")
	}
}

// splitTarget is a density on u = (u₀, log σf, log σn) that is, in the
// variance split's space v = (u₀, a, b), N(0.3, 1) in u₀ and a and exp(b(v₂))
// in b (up to the split's constant Jacobian).
type splitTarget struct{ b func(float64) float64 }

func (splitTarget) Dim() int                           { return 3 }
func (splitTarget) NumObs() int                        { return 0 }
func (splitTarget) LogPrior(u, grad []float64) float64 { clear(grad); return 0 }
func (s splitTarget) Clone() (tempering.Target, error) { return s, nil }
func (s splitTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	if grad != nil {
		return 0, errors.New("splitTarget: no gradient")
	}
	v := make([]float64, 3)
	gp.VarianceSplit{}.FromTarget(u, v)
	return -(v[0]-0.3)*(v[0]-0.3)/2 - v[1]*v[1]/2 + s.b(v[2]), nil
}

// TestChainSpace: the messages name the variance split, say when b's
// tail is compressed and where, and name nothing for other spaces.
func TestChainSpace(t *testing.T) {
	plain := ChainSpace(gp.VarianceSplit{})
	tail := ChainSpace(gp.VarianceSplitTail{Center: -2.44, Scale: 1.9})
	if !strings.Contains(plain, "log(σn²/σf²)") || strings.Contains(plain, "compressed") {
		t.Errorf("plain split: %q", plain)
	}
	if !strings.HasPrefix(tail, plain) || !strings.Contains(tail, "compressed (sinh) below -2.44") {
		t.Errorf("tail split: %q", tail)
	}
	if s := ChainSpace(tempering.Identity{}) + ChainSpace(nil); s != "" {
		t.Errorf("other spaces: %q", s)
	}
}

// TestFitGPWarmStartGOMAXPROCS: the warm-started default (the mode on
// nested subsets, the proposal's importance rounds, the screened
// independence sampler; their evaluations run side by side on clones)
// gives the same draws for a seed at GOMAXPROCS 1 and 2.
func TestFitGPWarmStartGOMAXPROCS(t *testing.T) {
	data, _, err := gp.Synthetic(120, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var draws [2][][][]float64
	for i, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		st := DefaultGPSettings()
		st.Draws = 100
		fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", WarmStart: WarmStartOn, Settings: &st,
			WarmKeep: &WarmKeep{Draws: true}})
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := fit.Settings.Kernel.(tempering.Independence); !ok || k.Screen == nil {
			t.Fatalf("GOMAXPROCS %d: kernel %T, want the screened independence sampler", procs, fit.Settings.Kernel)
		}
		draws[i] = fit.Draws
		fit.Close()
	}
	if !reflect.DeepEqual(draws[0], draws[1]) {
		t.Error("draws differ between GOMAXPROCS 1 and 2")
	}
}

// TestFitGPImportanceGOMAXPROCS: the default from N = WarmStartMinN, the
// warm start then importance sampling (its batches evaluated by as many
// workers as GOMAXPROCS allows, its refits and any climbs), gives the
// same weighted sample for a seed at GOMAXPROCS 1 and 2.
func TestFitGPImportanceGOMAXPROCS(t *testing.T) {
	data, _, err := gp.Synthetic(120, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ws [2]*WeightedSample
	for i, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", WarmStart: WarmStartOn, Importance: ImportanceOn})
		if err != nil {
			t.Fatal(err)
		}
		if fit.Weighted == nil || len(fit.Weighted.Draws) <= fit.Weighted.Reused {
			t.Fatalf("GOMAXPROCS %d: no fresh weighted draws (%+v)", procs, fit.Weighted)
		}
		ws[i] = fit.Weighted
		fit.Close()
	}
	if !reflect.DeepEqual(ws[0].Draws, ws[1].Draws) || !reflect.DeepEqual(ws[0].LogWeights, ws[1].LogWeights) {
		t.Errorf("weighted samples differ between GOMAXPROCS 1 and 2: %d and %d draws", len(ws[0].Draws), len(ws[1].Draws))
	}
}
