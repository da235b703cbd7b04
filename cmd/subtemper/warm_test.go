package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGPWarmStartOn checks --warm-start on: the run starts from the mode
// found on subsets, samples with the kernel alone on one mode, and
// summary.json says so; --warm-start off and a bad value behave.
func TestGPWarmStartOn(t *testing.T) {
	out := t.TempDir()
	args := []string{"gp", "--n", "200", "--dims", "2", "--warm-start", "on", "--draws", "100", "--min-ess", "0", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	// The posterior is close enough to the fitted t for the independence
	// sampler (importance ESS about 70%, well above
	// subtemper.MinProposalESS).
	for _, want := range []string{"warm start: posterior mode found", "one mode: sampling by independence Metropolis–Hastings", "a full-data log density takes", "with IMH alone", "the chains moving in (½log(σf²+σn²), log(σn²/σf²))"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// The MVN's chains move in its own space: no word of σf and σn.
	margs := []string{"mvn", "--n", "200", "--dims", "3", "--warm-start", "on", "--draws", "100", "--min-ess", "0", "--out", t.TempDir()}
	r = runBin(t, "", margs...)
	mustCode(t, r, 0, margs...)
	if !strings.Contains(r.stderr, "warm start: posterior mode found") || strings.Contains(r.stderr, "σf") {
		t.Errorf("mvn --warm-start on: want the warm start, without the GP's variance split:\n%s", r.stderr)
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	ws, ok := s["warm_start"].(map[string]any)
	if !ok {
		t.Fatalf("summary.json has no warm_start: %v", s["warm_start"])
	}
	if ws["modes"] != 1.0 || s["sampler"] != "none" {
		t.Errorf("warm start modes %v, sampler %v: want 1 and none", ws["modes"], s["sampler"])
	}
	p, ok := ws["proposal"].(map[string]any)
	if !ok || p["used"] != true || !(p["importance_ess"].(float64) >= 0.1) || s["inner"] != "imh" {
		t.Errorf("warm_start.proposal %v, inner %v: want a fitted proposal used by the imh kernel", ws["proposal"], s["inner"])
	}
	if d := s["draws"].(map[string]any); d["warmup"] != 75.0 {
		t.Errorf("warm-up %v, want 75 (tempering.WarmStartWarmup)", d["warmup"])
	}
	// The mode is where the posterior is: inside every variable's
	// 5–95% interval of the draws.
	mode := ws["mode_u"].([]any)
	for i, v := range s["variables"].([]any) {
		vm := v.(map[string]any)
		th := math.Exp(mode[i].(float64))
		if q5, q95 := vm["q5"].(float64), vm["q95"].(float64); th < q5 || th > q95 {
			t.Errorf("%s: mode exp(u) = %.4g outside the draws' 90%% interval [%.4g, %.4g]", vm["name"], th, q5, q95)
		}
	}

	// --warmup none kept beside the warm start: no warm-up, said as 0
	// (the flag's none), not as the library's NoWarmup.
	out = t.TempDir()
	r = runBin(t, "", "gp", "--n", "40", "--dims", "2", "--warm-start", "on", "--warmup", "none", "--draws", "50", "--min-ess", "0", "--out", out)
	mustCode(t, r, 0)
	s = readJSON(t, filepath.Join(out, "summary.json"))
	if st, d := s["settings"].(map[string]any), s["draws"].(map[string]any); st["warmup"] != 0.0 || d["warmup"] != 0.0 || strings.Contains(r.stderr, "-1") {
		t.Errorf("--warmup none with a warm start: settings.warmup %v, draws.warmup %v, stderr:\n%s", st["warmup"], d["warmup"], r.stderr)
	}

	r = runBin(t, "", "gp", "--n", "30", "--dims", "2", "--warm-start", "off", "--draws", "20", "--warmup", "20", "--min-ess", "0", "--quiet", "--json")
	mustCode(t, r, 0)
	if strings.Contains(r.stdout, `"warm_start"`) {
		t.Error("--warm-start off made a warm start")
	}
	r = runBin(t, "", "gp", "--n", "30", "--warm-start", "sometimes")
	mustCode(t, r, 2)
	if !strings.Contains(r.stderr, "--warm-start") {
		t.Errorf("bad --warm-start: %s", r.stderr)
	}
}

// TestGPMAP checks --map: the posterior mode with Laplace intervals,
// map.json, a saved fit of the one point that predict --fit reads.
func TestGPMAP(t *testing.T) {
	out := t.TempDir()
	args := []string{"gp", "--n", "150", "--dims", "2", "--map", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	for _, want := range []string{"posterior mode (MAP)", "Laplace 5%", "ell_x1", "sn"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// The search says how far it is, as the warm start does.
	for _, want := range []string{"--map: search for the mode on all 150 observations: ", "--map: the Laplace approximation at the mode, "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	m := readJSON(t, filepath.Join(out, "map.json"))
	vars := m["variables"].([]any)
	if len(vars) != 4 {
		t.Fatalf("map.json: %d variables, want 4", len(vars))
	}
	for _, v := range vars {
		vm := v.(map[string]any)
		lo, mp, hi := vm["laplace_q5"].(float64), vm["map"].(float64), vm["laplace_q95"].(float64)
		if !(lo < mp && mp < hi && lo > 0) {
			t.Errorf("%s: Laplace interval [%v, %v] around the MAP %v", vm["name"], lo, hi, mp)
		}
	}
	test := writeFile(t, t.TempDir(), "test.csv", "x1,x2\n0.1,0.2\n-0.3,0.5\n")
	pout := t.TempDir()
	r = runBin(t, "", "predict", "--fit", out, "--data", test, "--out", pout, "--quiet")
	mustCode(t, r, 0, "predict")
	if rows := readCSV(t, filepath.Join(pout, "predictions.csv")); len(rows) != 3 {
		t.Errorf("predictions.csv has %d rows, want 3", len(rows))
	}
}

// TestGPMaxTime checks --max-time: sampling stops when it runs out, the
// draws are kept and judged, the exit code is 0 and summary.json says
// why sampling stopped; a bad value is refused.
func TestGPMaxTime(t *testing.T) {
	out := t.TempDir()
	args := []string{"gp", "--n", "300", "--dims", "3", "--warm-start", "off", "--min-ess", "0", "--draws", "1000000", "--max-time", "4s", "--out", out}
	start := time.Now()
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if el := time.Since(start); el > 60*time.Second {
		t.Errorf("--max-time 4s run took %v", el)
	}
	if !strings.Contains(r.stderr, "--max-time 4s reached") {
		t.Errorf("stderr lacks the --max-time message:\n%s", r.stderr)
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	if s["stopped_by_max_time"] != true || s["interrupted"] != false {
		t.Errorf("summary.json: stopped_by_max_time %v, interrupted %v", s["stopped_by_max_time"], s["interrupted"])
	}
	for _, bad := range []string{"soon", "-3s", "0x"} {
		r := runBin(t, "", "gp", "--n", "30", "--max-time", bad)
		mustCode(t, r, 2, "--max-time", bad)
	}
}
