package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompareCLI fits the same data with the SE and the Matérn 5/2
// kernels (--evidence --loo --predict) and compares the two folders, as a
// table and as JSON: the differences are those of the fits' own
// summary.json and loo.csv, the held-out metrics those of
// predictions.json.
func TestCompareCLI(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "tempering", "testdata", "gp1d.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dirs := []string{filepath.Join(dir, "se"), filepath.Join(dir, "m52")}
	for i, k := range []string{"se", "matern52"} {
		args := []string{"gp", "--data", data, "--kernel", k, "--evidence", "--loo", "--predict", data,
			"--chains", "2", "--warmup", "100", "--draws", "300", "--quiet", "--out", dirs[i]}
		mustCode(t, runBin(t, "", args...), 0, args...)
	}
	args := append([]string{"compare"}, dirs...)
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	for _, want := range []string{"log p(y)", "elpd_loo", "held-out MLPD", "matern52", dirs[0], dirs[1]} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("compare's table lacks %q:\n%s", want, r.stdout)
		}
	}
	args = append([]string{"compare", "--json"}, dirs...)
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	var c struct {
		Fits []struct {
			Dir   string                       `json:"dir"`
			LogZ  *struct{ Value, SE float64 } `json:"log_evidence"`
			DLogZ *struct{ Value, SE float64 } `json:"log_evidence_diff"`
			ELPD  *struct{ Value, SE float64 } `json:"elpd_loo"`
			DELPD *struct{ Value, SE float64 } `json:"elpd_loo_diff"`
			Held  *struct {
				MLPD float64 `json:"mlpd"`
			} `json:"held_out"`
		} `json:"fits"`
		BestEvidence string `json:"best_evidence"`
		BestELPD     string `json:"best_elpd_loo"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, r.stdout)
	}
	if len(c.Fits) != 2 {
		t.Fatalf("compare --json: %d fits, want 2", len(c.Fits))
	}
	var sums [2]struct {
		Evidence struct {
			LogZ float64 `json:"log_z"`
			SE   float64 `json:"se"`
		} `json:"evidence"`
		LOO struct {
			ELPD float64 `json:"elpd_loo"`
		} `json:"loo"`
	}
	var pts [2][]float64
	for i, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &sums[i]); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(filepath.Join(d, "loo.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, row := range rec[1:] {
			v, _ := strconv.ParseFloat(row[1], 64)
			pts[i] = append(pts[i], v)
			sum += v
		}
		if math.Abs(sum-sums[i].LOO.ELPD) > 1e-9 {
			t.Errorf("%s: loo.csv sums to %v, summary.json's elpd_loo is %v", d, sum, sums[i].LOO.ELPD)
		}
		if c.Fits[i].Held == nil {
			t.Errorf("%s: no held-out metrics", d)
		}
	}
	be := 0
	if sums[1].Evidence.LogZ > sums[0].Evidence.LogZ {
		be = 1
	}
	if c.BestEvidence != dirs[be] {
		t.Errorf("best evidence %s, want %s", c.BestEvidence, dirs[be])
	}
	o := 1 - be
	if d := c.Fits[o].DLogZ; d == nil || math.Abs(d.Value-(sums[o].Evidence.LogZ-sums[be].Evidence.LogZ)) > 1e-9 ||
		math.Abs(d.SE-math.Hypot(sums[o].Evidence.SE, sums[be].Evidence.SE)) > 1e-9 {
		t.Errorf("log evidence difference %+v, want %v ± %v", d, sums[o].Evidence.LogZ-sums[be].Evidence.LogZ, math.Hypot(sums[o].Evidence.SE, sums[be].Evidence.SE))
	}
	bl := 0
	if sums[1].LOO.ELPD > sums[0].LOO.ELPD {
		bl = 1
	}
	ol := 1 - bl
	// The paired standard error: √(N·Var(d_i)) of the pointwise differences.
	n := float64(len(pts[0]))
	var mean, ss float64
	for i := range pts[0] {
		mean += (pts[ol][i] - pts[bl][i]) / n
	}
	for i := range pts[0] {
		d := pts[ol][i] - pts[bl][i] - mean
		ss += d * d
	}
	se := math.Sqrt(n * ss / (n - 1))
	if d := c.Fits[ol].DELPD; d == nil || math.Abs(d.Value-n*mean) > 1e-9 || math.Abs(d.SE-se) > 1e-9 || d.SE == 0 {
		t.Errorf("elpd_loo difference %+v, want %v ± %v", d, n*mean, se)
	}

	// One folder is not a comparison.
	r = runBin(t, "", "compare", dirs[0])
	mustCode(t, r, 2, "compare", dirs[0])
}

// TestEvidenceCLI runs gp --sampler spt --evidence --plots: the printed
// summary has the log evidence, summary.json its stages (which with the
// leg add up to it, one per adjacent pair of levels) and the folder the
// learning curve.
func TestEvidenceCLI(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "tempering", "testdata", "gp1d.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fit")
	args := []string{"gp", "--data", data, "--sampler", "spt", "--evidence", "--plots", "--chains", "2", "--warmup", "100", "--draws", "300", "--quiet", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "log evidence log p(y) = ") {
		t.Errorf("no log evidence in the summary:\n%s", r.stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Ladder struct {
			Betas []float64 `json:"betas"`
		} `json:"ladder"`
		Evidence *struct {
			LogZ float64 `json:"log_z"`
			Leg  struct {
				LogZ float64 `json:"log_z"`
			} `json:"leg"`
			Stages []struct {
				Forward float64 `json:"forward"`
			} `json:"stages"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Evidence == nil {
		t.Fatal("summary.json has no evidence")
	}
	if len(s.Evidence.Stages) != len(s.Ladder.Betas)-1 {
		t.Errorf("%d stages for %d levels", len(s.Evidence.Stages), len(s.Ladder.Betas))
	}
	sum := s.Evidence.Leg.LogZ
	for _, st := range s.Evidence.Stages {
		sum += st.Forward
	}
	if math.Abs(sum-s.Evidence.LogZ) > 1e-9*math.Abs(sum) {
		t.Errorf("leg and stages add up to %v, log_z is %v", sum, s.Evidence.LogZ)
	}
	if _, err := os.Stat(filepath.Join(out, "learning_curve.png")); err != nil {
		t.Errorf("no learning curve: %v", err)
	}
}

// TestCompareSameData: compare tells fits of the same data by the data's
// checksum, not by the path the data were read from, and falls back to
// the path for fits that record no checksum.
func TestCompareSameData(t *testing.T) {
	dir := t.TempDir()
	write := func(name, file, sha string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		data := map[string]any{"n": 10, "file": file}
		if sha != "" {
			data["sha256"] = sha
		}
		b, _ := json.Marshal(map[string]any{"command": "gp", "sampler": "pt", "data": data, "evidence": map[string]any{"log_z": -3.5, "se": 0.1}})
		if err := os.WriteFile(filepath.Join(d, "summary.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		name              string
		fileA, shaA       string
		fileB, shaB       string
		wantDifferentData bool
	}{
		{"same data, other path", "d.csv", "ab12", "/home/u/d.csv", "ab12", false},
		{"other data, same path", "d.csv", "ab12", "d.csv", "cd34", true},
		{"no checksum, same path", "d.csv", "", "d.csv", "", false},
		{"no checksum, other path", "d.csv", "", "e.csv", "", true},
	} {
		a, b := write(c.name+"-a", c.fileA, c.shaA), write(c.name+"-b", c.fileB, c.shaB)
		out, err := compareFits([]string{a, b})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := false
		for _, w := range out.Warnings {
			got = got || strings.Contains(w, "different data")
		}
		if got != c.wantDifferentData {
			t.Errorf("%s: warned of different data: %v, want %v (warnings %q)", c.name, got, c.wantDifferentData, out.Warnings)
		}
	}
}
