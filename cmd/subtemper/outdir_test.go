package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOneRunPerFolder: --out holds one complete run. A second run that
// fails after its data were generated leaves the first run's files as
// they were (data.csv used to be rewritten before sampling, beside the old
// draws), with no hidden leftovers; a stale staging folder of a killed run
// is removed by the next run; a complete second run replaces every output
// and keeps files subtemper does not write.
func TestOneRunPerFolder(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "run")
	first := []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", out}
	mustCode(t, runBin(t, "", first...), 0, first...)
	before := map[string]string{}
	for _, n := range []string{"data.csv", "draws.csv", "summary.json"} {
		b, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		before[n] = string(b)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, ".run.staging-999999999-1")
	os.Mkdir(stale, 0o755)
	os.WriteFile(filepath.Join(stale, "draws.csv"), []byte("half"), 0o644)

	// Fails after the staging folder was made: a file of one data row.
	bad := filepath.Join(parent, "bad.csv")
	os.WriteFile(bad, []byte("a,y\n1,2\n"), 0o644)
	second := []string{"gp", "--data", bad, "--quiet", "--out", out}
	if r := runBin(t, "", second...); r.code == 0 {
		t.Fatalf("second run succeeded: %s", r.stderr)
	}
	for n, want := range before {
		if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != want {
			t.Errorf("%s changed by a failed run", n)
		}
	}
	ents, _ := os.ReadDir(parent)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"bad.csv", "run"}) {
		t.Errorf("%s holds %v after the failed run; want bad.csv and run only", parent, names)
	}

	third := []string{"gp", "--n", "14", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", out}
	mustCode(t, runBin(t, "", third...), 0, third...)
	b, _ := os.ReadFile(filepath.Join(out, "data.csv"))
	if string(b) == before["data.csv"] || strings.Count(string(b), "\n") != 15 {
		t.Errorf("data.csv not replaced by the third run's 14 rows")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt lost")
	}
	if s, _ := os.ReadFile(filepath.Join(out, "summary.json")); strings.Contains(string(s), ".staging-") {
		t.Errorf("summary.json names the staging folder")
	}
	ents, _ = os.ReadDir(parent)
	if len(ents) != 2 {
		t.Errorf("leftovers beside --out: %v", ents)
	}
}
