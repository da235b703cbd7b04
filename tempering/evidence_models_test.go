package tempering_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// evidenceAgrees is the acceptance check of a log-evidence estimate
// against a reference: within 3 standard errors and within 0.1 nats.
func evidenceAgrees(est, se, ref float64) bool {
	return math.Abs(est-ref) <= 3*se && math.Abs(est-ref) <= 0.1
}

// checkEvidence fails t unless e's forward estimate agrees with ref, and
// with backward its backward estimate too. (SPT's backward estimate
// averages 1/p(y_new | y_X_m, θ), the harmonic mean's heavy tail: over 20
// seeds on gp1d it sat 2.4 standard errors high on average; it is
// reported, not held to the check.)
func checkEvidence(t *testing.T, name string, e *tempering.Evidence, ref float64, backward bool) {
	t.Helper()
	t.Logf("%s: forward %.4f ± %.4f, backward %.4f ± %.4f (chain sd %.4f), reference %.4f; leg %.4f ± %.4f (ESS %.0f)",
		name, e.LogZ, e.SE, e.Backward, e.BackwardSE, e.ChainSD, ref, e.Leg.LogZ, e.Leg.SE, e.Leg.ESS)
	if !evidenceAgrees(e.LogZ, e.SE, ref) {
		t.Errorf("%s: forward log evidence %.4f ± %.4f, want %.4f (3 SE and 0.1 nats)", name, e.LogZ, e.SE, ref)
	}
	if backward && !evidenceAgrees(e.Backward, e.BackwardSE, ref) {
		t.Errorf("%s: backward log evidence %.4f ± %.4f, want %.4f (3 SE and 0.1 nats)", name, e.Backward, e.BackwardSE, ref)
	}
}

// checkDroppedStage fails t unless the check of checkEvidence rejects
// e's estimate recomputed without one stage, the one of smallest
// magnitude (the hardest to notice).
func checkDroppedStage(t *testing.T, name string, e *tempering.Evidence, ref float64) {
	t.Helper()
	drop := 0
	for m, st := range e.Stages {
		if math.Abs(st.Forward) < math.Abs(e.Stages[drop].Forward) {
			drop = m
		}
	}
	chains := slices.Clone(e.Chains)
	for c := range chains {
		chains[c].Stages = slices.Delete(slices.Clone(chains[c].Stages), drop, drop+1)
	}
	bad, err := tempering.CombineEvidence(chains)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s without stage %d (%.4f): %.4f ± %.4f", name, drop+1, e.Stages[drop].Forward, bad.LogZ, bad.SE)
	if evidenceAgrees(bad.LogZ, bad.SE, ref) {
		t.Errorf("%s: the estimate without stage %d, %.4f ± %.4f, passes the check against %.4f", name, drop+1, bad.LogZ, bad.SE, ref)
	}
}

// TestEvidenceMVN estimates the log evidence of the MVN model with PT and
// SPT against its analytic value, checks that the two agree, and that an
// estimate with one stage left out is rejected by the same check (under
// the race detector, with short chains, only the last).
func TestEvidenceMVN(t *testing.T) {
	m := newMVNModel(t, 50, 3, 5)
	ref, err := m.LogEvidence(nil)
	if err != nil {
		t.Fatal(err)
	}
	est := map[tempering.Driver]*tempering.Evidence{}
	// The third run moves the chains in another space (gp.VarianceSplit
	// on the last two coordinates): the evidence is the same integral.
	for i, drv := range []tempering.Driver{tempering.PT, tempering.SPT, tempering.PT} {
		cfg := tempering.Settings{
			Sampler: tempering.Sampler{Driver: drv},
			Control: tempering.Control{Chains: 4, Warmup: 300, Draws: 3000, Seed: 7, Evidence: &tempering.EvidenceSettings{Particles: 512, Temperatures: 200}},
		}
		name := drv.String()
		if i == 2 {
			cfg.Transform, name = gp.VarianceSplit{}, "pt-transformed"
		}
		if raceBuild {
			cfg.Draws, cfg.Evidence = 500, &tempering.EvidenceSettings{Particles: 64, Temperatures: 50}
		}
		res, err := tempering.Run(context.Background(), m, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := res.Evidence
		checkDroppedStage(t, name, e, ref)
		if raceBuild {
			continue // short chains: not precise enough for the check
		}
		checkEvidence(t, name, e, ref, drv == tempering.PT)
		if i < 2 {
			est[drv] = e
		}
	}
	if raceBuild {
		return
	}
	p, s := est[tempering.PT], est[tempering.SPT]
	if d, se := math.Abs(p.LogZ-s.LogZ), math.Hypot(p.SE, s.SE); d > 3*se || d > 0.1 {
		t.Errorf("PT %.4f ± %.4f and SPT %.4f ± %.4f disagree", p.LogZ, p.SE, s.LogZ, s.SE)
	}
}

// gpReference is tempering/testdata/evidence.json, written by
// scripts/evidence-ref/quadrature.py.
type gpReference struct {
	LogZ       float64   `json:"log_z"`
	GridChange float64   `json:"grid_change"`
	BoxChange  float64   `json:"box_change"`
	ELPDLOO    float64   `json:"elpd_loo"`
	LOO        []float64 `json:"loo_log_pred"`
}

func readGPReference(t *testing.T, name string) (*gp.Data, gpReference) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "evidence.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]gpReference
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	ref, ok := all[name]
	if !ok {
		t.Fatalf("no reference for %s", name)
	}
	if ref.GridChange > 0.001 || ref.BoxChange > 0.001 {
		t.Fatalf("%s: the quadrature moves by %g (grid) and %g (box): not a reference to 0.01 nats", name, ref.GridChange, ref.BoxChange)
	}
	data, err := gp.ReadCSVFile(filepath.Join("testdata", name+".csv"), gp.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return data, ref
}

// TestEvidenceGP estimates the log evidence of GP regressions with 3
// (1-D inputs) and 4 (2-D) hyperparameters by PT and SPT against
// quadrature on a grid (scripts/evidence-ref/quadrature.py), and checks
// that PT's and SPT's estimates agree. Under the race detector it runs
// the 1-D case with short chains and checks only that a dropped stage is
// caught.
func TestEvidenceGP(t *testing.T) {
	for _, name := range []string{"gp1d", "gp2d"} {
		t.Run(name, func(t *testing.T) {
			if raceBuild && name != "gp1d" {
				t.Skip("race detector: the 1-D case only")
			}
			data, ref := readGPReference(t, name)
			m, err := gp.New(linalg.Default(), data, gp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			est := map[tempering.Driver]*tempering.Evidence{}
			for _, cfg := range gpEvidenceSettings() {
				drv := cfg.Driver
				if raceBuild {
					cfg.Warmup, cfg.Draws = 100, 300
					cfg.Evidence = &tempering.EvidenceSettings{Particles: 32, Temperatures: 20}
				}
				res, err := tempering.Run(context.Background(), m, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkDroppedStage(t, drv.String(), res.Evidence, ref.LogZ)
				if raceBuild {
					continue
				}
				checkEvidence(t, drv.String(), res.Evidence, ref.LogZ, drv == tempering.PT)
				est[drv] = res.Evidence
			}
			if raceBuild {
				return
			}
			p, s := est[tempering.PT], est[tempering.SPT]
			if d, se := math.Abs(p.LogZ-s.LogZ), math.Hypot(p.SE, s.SE); d > 3*se || d > 0.1 {
				t.Errorf("PT %.4f ± %.4f and SPT %.4f ± %.4f disagree", p.LogZ, p.SE, s.LogZ, s.SE)
			}
		})
	}
}

// TestEvidenceKeepsDraws checks that estimating the evidence changes no
// draw: the same seed gives the same draws with and without it.
func TestEvidenceKeepsDraws(t *testing.T) {
	m := newMVNModel(t, 30, 2, 1)
	for _, drv := range []tempering.Driver{tempering.PT, tempering.SPT} {
		run := func(ev *tempering.EvidenceSettings) [][][]float64 {
			res, err := tempering.Run(context.Background(), m, &tempering.Settings{
				Sampler: tempering.Sampler{Driver: drv},
				Control: tempering.Control{Warmup: 100, Draws: 200, Seed: 11, Evidence: ev},
			})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Evidence != nil) != (ev != nil) {
				t.Fatalf("%v: evidence %v with settings %v", drv, res.Evidence, ev)
			}
			return res.Draws
		}
		a, b := run(nil), run(&tempering.EvidenceSettings{Particles: 16, Temperatures: 10})
		for c := range a {
			for s := range a[c] {
				if !slices.Equal(a[c][s], b[c][s]) {
					t.Fatalf("%v: chain %d draw %d: %v without the evidence, %v with it", drv, c, s, a[c][s], b[c][s])
				}
			}
		}
	}
}

// gpEvidenceSettings are the runs of TestEvidenceGP: random-walk MH at
// every level (the cheapest transitions), 4 chains, and for SPT, whose
// levels above the target are cheap, more draws and leg particles.
func gpEvidenceSettings() []tempering.Settings {
	pt := tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.PT, Kernel: tempering.MH{}},
		Control: tempering.Control{Chains: 4, Warmup: 200, Draws: 1500, Seed: 3, Evidence: &tempering.EvidenceSettings{Particles: 128, Temperatures: 50}},
	}
	spt := pt
	spt.Driver, spt.Draws = tempering.SPT, 3000
	spt.Evidence = &tempering.EvidenceSettings{Particles: 256, Temperatures: 50}
	return []tempering.Settings{pt, spt}
}

// TestEvidenceCalibration, run only with SUBTEMPER_EVIDENCE_CALIBRATION=1
// (several minutes), repeats TestEvidenceGP's runs over 20 seeds and
// reports the z-scores (estimate − quadrature)/SE: with honest standard
// errors their sd is near 1.
func TestEvidenceCalibration(t *testing.T) {
	if os.Getenv("SUBTEMPER_EVIDENCE_CALIBRATION") != "1" {
		t.Skip("set SUBTEMPER_EVIDENCE_CALIBRATION=1 to run")
	}
	for _, name := range []string{"gp1d", "gp2d"} {
		data, ref := readGPReference(t, name)
		m, err := gp.New(linalg.Default(), data, gp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range gpEvidenceSettings() {
			var zf, zb, errs, zc []float64
			for seed := uint64(1); seed <= 20; seed++ {
				cfg.Seed = seed
				res, err := tempering.Run(context.Background(), m, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				e := res.Evidence
				zf = append(zf, (e.LogZ-ref.LogZ)/e.SE)
				zb = append(zb, (e.Backward-ref.LogZ)/e.BackwardSE)
				zc = append(zc, e.ChainSD/(e.SE*math.Sqrt(float64(len(e.Chains)))))
				errs = append(errs, math.Abs(e.LogZ-ref.LogZ))
			}
			t.Logf("%s %v: forward z mean %.2f sd %.2f, backward z mean %.2f sd %.2f; |error| max %.3f nats, mean %.3f; chain sd / (SE·√C) median %.2f",
				name, cfg.Driver, diag.Mean(zf), diag.SD(zf), diag.Mean(zb), diag.SD(zb), slices.Max(errs), diag.Mean(errs), diag.Median(zc))
		}
		m.Close()
	}
}

// TestEvidenceCancel: a cancellation after the last draw, while the
// evidence's annealed importance sampling from the prior runs (here
// 100000 particles, minutes of work), stops Run at once: every draw is
// kept, the run is marked interrupted, and there is no estimate. The leg
// used to run to its end, ignoring the cancellation (a `gp --evidence`
// run ignored SIGTERM for over a minute).
func TestEvidenceCancel(t *testing.T) {
	m := newMVNModel(t, 50, 3, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const draws = 50
	cfg := tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.PT},
		Control: tempering.Control{Chains: 1, Warmup: 20, Draws: draws, Seed: 7,
			Evidence: &tempering.EvidenceSettings{Particles: 100000, Temperatures: 100},
			Progress: func(c, it, total int) {
				if it == total {
					cancel() // the last iteration is done: the leg comes next
				}
			},
		},
	}
	type result struct {
		res *tempering.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := tempering.Run(ctx, m, &cfg)
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30 s of the cancellation: the evidence's leg ignores it")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.res.Interrupted || r.res.Evidence != nil || len(r.res.Draws[0]) != draws {
		t.Errorf("interrupted %v, evidence %v, %d draws; want true, none, %d", r.res.Interrupted, r.res.Evidence, len(r.res.Draws[0]), draws)
	}
}
