package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quick are the flags of a short run: tests of messages and files need
// draws, not converged ones.
var quick = []string{"--warmup", "60", "--draws", "60", "--min-ess", "0", "--levels", "3", "--chains", "2"}

// TestRExports runs the CLI on files shaped as R writes them: diamonds
// (row names, quoted factor columns) with the factors excluded, and
// airquality (NA) with --drop-na.
func TestRExports(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"gp", "--data", "../../gp/testdata/diamonds.csv", "--target", "price", "--exclude", "cut,color,clarity",
		"--standardize", "--out", filepath.Join(dir, "d")}, quick...)
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "N = 24 observations, D = 6 inputs") || !strings.Contains(r.stdout, "inputs carat, depth, table, x, y, z") {
		t.Errorf("diamonds: the data line does not say 24 rows of carat, depth, table, x, y, z:\n%s", r.stdout)
	}
	r = runBin(t, "", "gp", "--data", "../../gp/testdata/diamonds.csv", "--target", "price")
	if r.code != 2 || !strings.Contains(r.stderr, `column 3 ("cut")`) || !strings.Contains(r.stderr, "--exclude cut") {
		t.Errorf("diamonds with its factors: exit %d, stderr %q; want 2 and a message naming column 3 (\"cut\") and --exclude cut", r.code, r.stderr)
	}

	r = runBin(t, "", "gp", "--data", "../../gp/testdata/airquality.csv", "--target", "Ozone")
	if r.code != 2 || !strings.Contains(r.stderr, "airquality.csv:6:") || !strings.Contains(r.stderr, "--drop-na") {
		t.Errorf("airquality with NA: exit %d, stderr %q; want 2 and a message naming line 6 and --drop-na", r.code, r.stderr)
	}
	out := filepath.Join(dir, "aq")
	args = append([]string{"gp", "--data", "../../gp/testdata/airquality.csv", "--target", "Ozone", "--exclude", "Month",
		"--drop-na", "--standardize", "--out", out}, quick...)
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "N = 23 observations") || !strings.Contains(r.stdout, "--drop-na dropped 7 rows with missing values: lines 6, 7, 11, 12, 26, 27, 28") {
		t.Errorf("airquality --drop-na: the data line does not report 23 rows kept, 7 dropped (lines 6 … 28):\n%s", r.stdout)
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if d, _ := sum["data"].(map[string]any); d["rows_dropped_na"] != 7.0 || d["n"] != 23.0 {
		t.Errorf("summary.json data: %v; want rows_dropped_na 7, n 23", d)
	}
}

// TestWrotePaths: the files a run reports are where the run leaves them,
// --out given relative to the current folder included (they were
// reported in the staging folder, which no longer exists).
func TestWrotePaths(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"gp", "--n", "20", "--dims", "1", "--out", "fit"}, quick...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, e.String())
	}
	if strings.Contains(o.String()+e.String(), "staging") {
		t.Errorf("the output names the staging folder:\n%s\n%s", o.String(), e.String())
	}
	var wrote string
	for _, l := range strings.Split(e.String(), "\n") {
		if w, ok := strings.CutPrefix(l, "subtemper gp: wrote "); ok {
			wrote = w
		}
	}
	if wrote == "" {
		t.Fatalf("no \"wrote\" line:\n%s", e.String())
	}
	for _, p := range strings.Split(wrote, ", ") {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("reported %s: %v", p, err)
		}
	}
}
