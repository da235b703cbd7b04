package tempering

import (
	"context"
	"testing"
)

// TestZeroSettingsDefaults: a zero (or nil) Settings resolves to the
// measured defaults (docs/ADAPTATION.md: PT on 10 levels, adapted HMC with L = 10 and jitter
// 0.2, DEO swaps, the adaptive ladder, one base step for TT and STT, 400
// warm-up iterations, 3 chains of 1000 draws), and Warmup: NoWarmup runs
// no warm-up.
func TestZeroSettingsDefaults(t *testing.T) {
	for _, s := range []*Settings{nil, {}} {
		r, err := s.resolve()
		if err != nil {
			t.Fatal(err)
		}
		if r.Driver != PT || r.Driver.String() != "pt" || r.Levels != DefaultLevels || r.fixedM != DefaultLevels {
			t.Errorf("driver %v with M = %d (fixed M %d), want pt with %d", r.Driver, r.Levels, r.fixedM, DefaultLevels)
		}
		if k, ok := r.Kernel.(PerLevel); !ok || k.Target != (HMC{Steps: 10, Jitter: 0.2}) || k.Hot != (MH{}) {
			t.Errorf("kernel %#v, want HMC{Steps: 10, Jitter: 0.2} at the target and MH{} above, both adapting", r.Kernel)
		}
		if r.Kernel != DefaultKernel() {
			t.Errorf("kernel %#v is not DefaultKernel()", r.Kernel)
		}
		if r.Swap != DEO || r.Swap.String() != "deo" {
			t.Errorf("swap schedule %v, want deo", r.Swap)
		}
		if r.Ladder != LadderAdaptive || !r.adaptLadder {
			t.Errorf("ladder %v (adapts: %v), want adaptive", r.Ladder, r.adaptLadder)
		}
		if r.Warmup != DefaultWarmup || DefaultWarmup != 400 || r.Draws != 1000 || r.Chains != 3 || r.Thin != 1 {
			t.Errorf("warm-up %d, draws %d, chains %d, thin %d; want 400, 1000, 3, 1", r.Warmup, r.Draws, r.Chains, r.Thin)
		}
		if r.BaseSteps != DefaultBaseSteps || DefaultBaseSteps != 1 {
			t.Errorf("%d base steps, want 1", r.BaseSteps)
		}
		if len(r.Betas) != DefaultLevels+1 || r.BetaMin != 1.0/8 {
			t.Errorf("initial ladder of %d levels, β* = %v; want %d, 1/8", len(r.Betas), r.BetaMin, DefaultLevels+1)
		}
	}
	// Driver(0) and SwapSchedule(0) are the named defaults, and the names
	// still parse.
	if d, err := ParseDriver("pt"); err != nil || d != Driver(0) {
		t.Errorf("ParseDriver(pt) = %v, %v", d, err)
	}
	if s, err := ParseSwapSchedule("deo"); err != nil || s != SwapSchedule(0) {
		t.Errorf("ParseSwapSchedule(deo) = %v, %v", s, err)
	}

	// The zero Settings runs: the default warm-up adapts the ladder and
	// the kernels (here with fewer draws and a warm-up of its own size).
	tg := newMVNTarget(40, 2, 1)
	res, err := Run(context.Background(), tg, &Settings{Control: Control{Draws: 50, Chains: 1, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Stats.WarmupIterations; got != DefaultWarmup {
		t.Errorf("zero Warmup ran %d warm-up iterations, want %d", got, DefaultWarmup)
	}
	if !res.Ladder.Adaptive || len(res.Tunings[0]) != len(res.Betas) {
		t.Errorf("zero Settings: ladder adaptive %v, %d tunings for %d levels", res.Ladder.Adaptive, len(res.Tunings[0]), len(res.Betas))
	}
	if eps := res.Tunings[0][0].StepSize; eps == 0.01 || !(eps > 0) {
		t.Errorf("zero Settings: level-0 step size %v was not adapted", eps)
	}
	if res.Tunings[0][0].InvMetric == nil {
		t.Error("zero Settings: no adapted diagonal metric")
	}

	// NoWarmup: no warm-up iteration, nothing adapts, the first iteration
	// is the first draw.
	res, err = Run(context.Background(), tg, &Settings{Control: Control{Warmup: NoWarmup, Draws: 20, Chains: 1, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.WarmupIterations != 0 || res.Ladder.Adaptive || len(res.Draws[0]) != 20 {
		t.Errorf("NoWarmup: %d warm-up iterations, adaptive ladder %v, %d draws", res.Stats.WarmupIterations, res.Ladder.Adaptive, len(res.Draws[0]))
	}
	if eps := res.Tunings[0][0].StepSize; eps != 0.01 {
		t.Errorf("NoWarmup: level-0 step size %v, want the unadapted 0.01", eps)
	}
	if r, err := (&Settings{Control: Control{Warmup: NoWarmup}}).resolve(); err != nil || r.Warmup != 0 {
		t.Errorf("NoWarmup resolves to %d warm-up iterations, %v", r.Warmup, err)
	}
	if _, err := (&Settings{Control: Control{Warmup: NoWarmup - 1}}).resolve(); err == nil {
		t.Error("Warmup −2 accepted")
	}
	if r, err := (&Settings{Sampler: Sampler{BaseSteps: NoBaseSteps}}).resolve(); err != nil || r.BaseSteps != 0 {
		t.Errorf("NoBaseSteps resolves to %d base steps, %v", r.BaseSteps, err)
	}
	if _, err := (&Settings{Sampler: Sampler{BaseSteps: NoBaseSteps - 1}}).resolve(); err == nil {
		t.Error("BaseSteps −2 accepted")
	}
}
