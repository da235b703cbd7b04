package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
)

// TestMinESSStop: with the default --min-ess a run on an easy posterior
// ends at a checkpoint before --draws, says so, completes its progress bar
// and records where it stopped; --min-ess 0 makes every draw.
func TestMinESSStop(t *testing.T) {
	out := t.TempDir()
	args := []string{"gp", "--n", "30", "--dims", "2", "--warmup", "150", "--draws", "2000", "--levels", "3", "--progress", "--out", out}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("subtemper %s: %v (a hang ends at the timeout)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	d := s["draws"].(map[string]any)
	at, _ := d["stopped_at_per_chain"].(float64)
	if at <= 0 || at >= 2000 || int(at)%50 != 0 || d["min_ess"] != 400.0 {
		t.Fatalf("stopped_at_per_chain %v, min_ess %v: want a multiple of 50 below 2000, 400", d["stopped_at_per_chain"], d["min_ess"])
	}
	for _, p := range d["per_chain"].([]any) {
		if p.(float64) != at {
			t.Errorf("per_chain %v, want every chain at %v", d["per_chain"], at)
		}
	}
	if s["converged"] != true || s["min_ess_bulk"].(float64) < 400 || s["min_ess_tail"].(float64) < 400 {
		t.Errorf("stopped but converged %v, min ESS bulk %v tail %v", s["converged"], s["min_ess_bulk"], s["min_ess_tail"])
	}
	if want := fmt.Sprintf("%d draws of at most 2000 (every ESS ≥ 400 reached)", int(at)); !strings.Contains(o.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, o.String())
	}
	iters := 3 * (150 + int(at))
	if want := fmt.Sprintf("%d/%d it", iters, iters); !strings.Contains(e.String(), want) {
		t.Errorf("progress bar does not complete at %q:\n%s", want, e.String())
	}
	if recs := readCSV(t, filepath.Join(out, "draws.csv")); len(recs) != 1+3*int(at) {
		t.Errorf("draws.csv has %d rows, want %d", len(recs)-1, 3*int(at))
	}

	args = []string{"gp", "--n", "30", "--dims", "2", "--warmup", "150", "--draws", "120", "--levels", "3", "--min-ess", "0", "--quiet", "--json"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, `"per_chain": [
      120,
      120,
      120
    ]`) || strings.Contains(r.stdout, "stopped_at") {
		t.Errorf("--min-ess 0: not 120 draws per chain, or a stop recorded:\n%s", r.stdout)
	}
}

// TestUnsettledWarning: the step-size warning flags an HMC level more
// than 0.2 below its target and an MH level below acceptance 0.1, not an
// MH level at 0.12–0.3, where dual averaging leaves it on its own.
func TestUnsettledWarning(t *testing.T) {
	j := &job{command: "gp", data: map[string]any{"standardized": true}, flags: &samplerFlags{}}
	for _, c := range []struct {
		accept []float64 // level 0 (hmc), then the mh levels
		want   string    // the levels named, "" for no warning
	}{
		{[]float64{0.93, 0.28, 0.15, 0.12}, ""},
		{[]float64{0.93, 0.28, 0.08, 0.2}, "level 2 (0.08, target 0.3)"},
		{[]float64{0.55, 0.28, 0.3}, "level 0 (0.55, target 0.8)"},
	} {
		s := &runSummary{Inner: "hmc", Hot: "mh", Adapt: "diag", TargetAccept: 0.8, Converged: true}
		s.Draws.Summarized = 100
		for m, a := range c.accept {
			s.Levels = append(s.Levels, levelJSON{Level: m, Transitions: 100, SamplingAccept: num(a)})
		}
		var got string
		for _, w := range runWarnings(j, s) {
			if strings.Contains(w, "did not settle") {
				got = w
			}
		}
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("acceptances %v: warning %q, want one naming %q", c.accept, got, c.want)
		}
	}
}

// TestGPAndDiagAgree: gp's verdict (summary.json) and diag's on the
// draws.csv it wrote are the same, whatever --min-ess asked of the stop
// rule: one ESS criterion, 100 per chain.
func TestGPAndDiagAgree(t *testing.T) {
	for _, minESS := range []string{"100000", "0"} {
		out := t.TempDir()
		args := []string{"gp", "--n", "30", "--dims", "1", "--sampler", "none", "--inner", "mh", "--chains", "2", "--warmup", "200", "--draws", "400",
			"--min-ess", minESS, "--quiet", "--out", out}
		mustCode(t, runBin(t, "", args...), 0, args...)
		s := readJSON(t, filepath.Join(out, "summary.json"))
		args = []string{"diag", "--json", filepath.Join(out, "draws.csv")}
		r := runBin(t, "", args...)
		mustCode(t, r, 0, args...)
		var d diagOutput
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatal(err)
		}
		if s["verdict"] != d.Verdict || s["converged"] != d.Converged {
			t.Errorf("--min-ess %s: gp's verdict %q (converged %v), diag's %q (converged %v)", minESS, s["verdict"], s["converged"], d.Verdict, d.Converged)
		}
		if !strings.Contains(d.Verdict, "200") {
			t.Errorf("--min-ess %s, 2 chains: verdict %q does not state ESS 200 (100 per chain)", minESS, d.Verdict)
		}
	}
}

// TestReportMaxTime: the --max-time line counts the draws per chain, or
// an importance-sampled fit's weighted draws (one "chain" of them).
func TestReportMaxTime(t *testing.T) {
	res := &subtemper.Result{Draws: [][][]float64{make([][]float64, 7), make([][]float64, 5)}}
	for sampler, want := range map[string]string{
		"pt":         "--max-time 1m reached: sampling stopped with 5 draws per chain; judging",
		"importance": "--max-time 1m reached: sampling stopped with 5 weighted draws; judging",
	} {
		var e strings.Builder
		reportMaxTime(&stdio{err: &e}, &job{command: "gp", flags: &samplerFlags{sampler: sampler, maxTime: "1m"}}, res)
		if !strings.Contains(e.String(), want) {
			t.Errorf("%s: %q, want %q", sampler, e.String(), want)
		}
	}
}
