package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
)

// leastNamed matches an importance-sampling batch line's least ESS with
// the parameter it is of, for the one-input GP.
var leastNamed = regexp.MustCompile(`least ESS \S+ of \S+ \((ell_x1|sf|sn)'s (mean|tails)\), Pareto`)

// TestGPImportanceOn checks gp --importance on end to end: the progress
// lines and the summary say what ran, summary.json's verdict is the
// weighted sample's, draws.csv holds the weighted draws with their log
// weights, which diag weighs, and the saved fit predicts.
func TestGPImportanceOn(t *testing.T) {
	out := t.TempDir()
	args := []string{"gp", "--n", "150", "--dims", "1", "--importance", "on", "--seed", "3", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	for _, want := range []string{"warm start: search for the mode on all 150 observations: 1 optimum kept",
		"warm start: the Laplace approximation at the mode", "now fitting a Student-t", "warm start: proposal round 1 of at most 3: importance ESS",
		"importance sampling from it on", "in batches of at most 500 (a log density takes", ", a batch about ", "importance sampling: ", "least ESS"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// Each batch's line names the parameter whose ESS is the least.
	if n, named := strings.Count(r.stderr, "least ESS"), len(leastNamed.FindAllString(r.stderr, -1)); n == 0 || named != n {
		t.Errorf("%d of %d batch lines name the least ESS's parameter:\n%s", named, n, r.stderr)
	}
	for _, want := range []string{"importance sampling from the warm start's fitted Student-t", "weighted draws", "converged (Pareto k̂"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// --quiet silences the warm start's lines too.
	qargs := []string{"gp", "--n", "150", "--dims", "1", "--warm-start", "on", "--map", "--quiet", "--out", t.TempDir()}
	if q := runBin(t, "", qargs...); q.code != 0 || q.stderr != "" {
		t.Errorf("%v: exit code %d, stderr %q", qargs, q.code, q.stderr)
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	// A line per proposal round, the last one "done".
	rounds := s["warm_start"].(map[string]any)["proposal"].(map[string]any)["rounds"].([]any)
	if n := strings.Count(r.stderr, "warm start: proposal round"); n != len(rounds) || !strings.Contains(r.stderr, fmt.Sprintf("round %d of at most 3", len(rounds))) {
		t.Errorf("%d proposal-round lines for %d rounds in summary.json:\n%s", n, len(rounds), r.stderr)
	}
	im, ok := s["importance"].(map[string]any)
	if !ok || s["sampler"] != "importance" || s["converged"] != true || !(im["pareto_k"].(float64) <= 0.7) {
		t.Fatalf("summary.json: sampler %v, converged %v, importance %v", s["sampler"], s["converged"], s["importance"])
	}
	// Importance sampling drew from the proposal, whose work counts.
	if pr := s["warm_start"].(map[string]any)["proposal"].(map[string]any); pr["used"] != true || !(pr["grad_equivalents"].(float64) > 0) {
		t.Errorf("summary.json: the proposal used %v, %v gradient-equivalents", pr["used"], pr["grad_equivalents"])
	}
	b, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(b), "\n")
	if header != ".chain,.iteration,.draw,ell_x1,sf,sn,.log_weight" {
		t.Errorf("draws.csv header %q", header)
	}
	if rows := strings.Count(string(b), "\n") - 1; rows != int(im["draws"].(float64)) {
		t.Errorf("draws.csv holds %d draws, summary.json says %v", rows, im["draws"])
	}
	d := runBin(t, "", "diag", filepath.Join(out, "draws.csv"))
	mustCode(t, d, 0, "diag")
	if !strings.Contains(d.stdout, "converged (Pareto k̂") {
		t.Errorf("diag of the weighted draws:\n%s", d.stdout)
	}
	pout := t.TempDir()
	p := runBin(t, "", "predict", "--fit", out, "--data", filepath.Join(out, "data.csv"), "--out", pout)
	mustCode(t, p, 0, "predict")
	// Resampled draws repeat: each distinct one is factorised once.
	pj := readJSON(t, filepath.Join(pout, "predictions.json"))
	if d, n := pj["distinct_draws"].(float64), pj["draws"].(float64); !(d > 0 && d < n) || !strings.Contains(p.stdout, "distinct") {
		t.Errorf("predictions.json: %v distinct of %v draws; stdout:\n%s", d, n, p.stdout)
	}
}

// TestImportanceMode checks --importance's choice: auto samples by
// importance sampling only where the warm start runs with no sampler
// flag and no checkpoint to continue; on refuses to continue chains.
func TestImportanceMode(t *testing.T) {
	for _, c := range []struct {
		args []string
		n    int
		want subtemper.ImportanceMode
		err  string
	}{
		{nil, 2000, subtemper.ImportanceOn, ""},
		{nil, 500, subtemper.ImportanceOff, ""},
		{[]string{"--warm-start", "on"}, 500, subtemper.ImportanceOn, ""},
		{[]string{"--warm-start", "off"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--draws", "500"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--chains", "2"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--inner", "nuts"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--importance", "on", "--draws", "500"}, 50, subtemper.ImportanceOn, ""},
		{[]string{"--importance", "off"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--importance", "on", "--run-chains", "1-2"}, 2000, 0, "--run-chains needs chains"},
		{[]string{"--importance", "on", "--evidence"}, 2000, 0, "--evidence needs chains"},
		{[]string{"--evidence"}, 2000, subtemper.ImportanceOff, ""},
		{[]string{"--importance", "sometimes"}, 2000, 0, `--importance "sometimes"`},
	} {
		var f gpFlags
		fs := gpFlagSet(&f)
		if _, err := fs.parse(c.args, nil); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got, err := f.importanceMode(fs, c.n)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v at N = %d: error %v, want one saying %q", c.args, c.n, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%v at N = %d: %v, %v; want %v", c.args, c.n, got, err, c.want)
		}
	}
}

// TestImportanceProgressLine checks the line a batch prints: an estimate
// of the time left where the ESS gives one, and the draws' cap, called
// a bound, where k̂ is too high for that.
func TestImportanceProgressLine(t *testing.T) {
	var b strings.Builder
	f := importanceProgress(&b, &job{command: "gp", flags: &samplerFlags{}})
	p := subtemper.ImportanceProgress{Draws: 2000, Fresh: 500, Proposals: 1, K: 0.86, LeastESS: 55, Needed: 400, Least: "ell_z", LeastTail: true,
		Elapsed: 2 * time.Minute, Remaining: 93 * time.Minute, Bound: true}
	f(p)
	p.Bound, p.K, p.Remaining = false, 0.69, 53*time.Minute
	f(p)
	p.Bound, p.LeastESS = true, 0
	f(p)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %q", len(lines), b.String())
	}
	for i, want := range []string{"Pareto k̂ 0.86; 2 min, at most 93 min left (the draws' cap; the ESS gives no estimate while k̂ > 0.7)",
		"Pareto k̂ 0.69; 2 min, about 53 min left", "Pareto k̂ 0.69; 2 min, at most 53 min left (the draws' cap)\n"} {
		if !strings.Contains(lines[i]+"\n", want) {
			t.Errorf("line %d %q lacks %q", i+1, lines[i], want)
		}
	}
}
