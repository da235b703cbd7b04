package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sameFile fails the test unless files a and b hold the same bytes.
func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

// TestResumeCLI: a gp run interrupted by SIGINT after its warm-up, or
// killed by SIGKILL while sampling, and resumed with --resume writes the
// draws.csv of the run that was not interrupted, byte for byte; --extend
// adds draws to a completed run as a run made that long in one go.
func TestResumeCLI(t *testing.T) {
	dir := t.TempDir()
	gpArgs := func(out string, more ...string) []string {
		return append([]string{"gp", "--n", "40", "--warmup", "100", "--draws", "150", "--min-ess", "0", "--seed", "5", "--quiet", "--out", filepath.Join(dir, out)}, more...)
	}
	path := func(out, name string) string { return filepath.Join(dir, out, name) }
	mustCode(t, runBin(t, "", gpArgs("full")...), 0, gpArgs("full")...)

	r, _ := interruptWhen(t, path("int", checkpointName), time.Minute, gpArgs("int")...)
	mustCode(t, r, exitInterrupted, gpArgs("int")...)
	early := []string{"gp", "--resume", filepath.Join(dir, "int"), "--extend", "10"}
	if r := runBin(t, "", early...); r.code != exitUsage || !strings.Contains(r.stderr, "has not completed") {
		t.Errorf("--extend of an interrupted run: exit %d, %q", r.code, r.stderr)
	}
	resume := []string{"gp", "--resume", filepath.Join(dir, "int"), "--quiet"}
	mustCode(t, runBin(t, "", resume...), 0, resume...)
	sameFile(t, path("full", "draws.csv"), path("int", "draws.csv"))
	if it := resumedFrom(t, path("int", "summary.json")); it < 100 {
		t.Errorf("resumed from iteration %d, want the end of warm-up or later", it)
	}

	killed := gpArgs("kill", "--checkpoint-every", "50ms")
	signalRun(t, os.Kill, func(waitErr <-chan error) {
		for {
			if _, err := os.Stat(path("kill", checkpointName)); err == nil {
				break
			}
			select {
			case err := <-waitErr:
				t.Fatalf("the run ended before its first checkpoint: %v", err)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}, killed...)
	resume[2] = filepath.Join(dir, "kill")
	mustCode(t, runBin(t, "", resume...), 0, resume...)
	sameFile(t, path("full", "draws.csv"), path("kill", "draws.csv"))
	if it := resumedFrom(t, path("kill", "summary.json")); it < 1 {
		t.Errorf("not resumed (iteration %d)", it)
	}

	long := gpArgs("long", "--draws", "200")
	mustCode(t, runBin(t, "", long...), 0, long...)
	extend := []string{"gp", "--resume", filepath.Join(dir, "full"), "--extend", "50", "--quiet"}
	mustCode(t, runBin(t, "", extend...), 0, extend...)
	sameFile(t, path("long", "draws.csv"), path("full", "draws.csv"))
	if it := resumedFrom(t, path("full", "summary.json")); it != 250 {
		t.Errorf("extended from iteration %d, want 250", it)
	}
}

// TestResumeWarmStartCLI: a warm-started gp run resumed (here extended)
// starts from the warm start its checkpoint holds instead of searching for
// the mode again, and writes the draws of the run made that long in one
// go (a warm start that did not round-trip exactly would change the
// settings, which the checkpoint refuses).
func TestResumeWarmStartCLI(t *testing.T) {
	dir := t.TempDir()
	gpArgs := func(out string, more ...string) []string {
		return append([]string{"gp", "--n", "60", "--warm-start", "on", "--draws", "120", "--min-ess", "0", "--seed", "3", "--quiet", "--out", filepath.Join(dir, out)}, more...)
	}
	path := func(out, name string) string { return filepath.Join(dir, out, name) }
	mustCode(t, runBin(t, "", gpArgs("short")...), 0, gpArgs("short")...)
	long := gpArgs("long", "--draws", "170")
	mustCode(t, runBin(t, "", long...), 0, long...)
	extend := []string{"gp", "--resume", filepath.Join(dir, "short"), "--extend", "50", "--quiet=false"}
	r := runBin(t, "", extend...)
	mustCode(t, r, 0, extend...)
	if !strings.Contains(r.stderr, "warm start: the checkpoint's") || strings.Contains(r.stderr, "looking for the posterior mode") {
		t.Errorf("the resumed run searched for the mode again:\n%s", r.stderr)
	}
	sameFile(t, path("long", "draws.csv"), path("short", "draws.csv"))
}

// resumedFrom returns summary.json's resumed_from.iteration (0: none).
func resumedFrom(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ResumedFrom struct{ Iteration int } `json:"resumed_from"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.ResumedFrom.Iteration
}

// TestResumeRefusedCLI: --resume refuses a checkpoint whose data have
// changed, a truncated one, a folder without one, flags beside it, and
// --extend of a run that has not completed.
func TestResumeRefusedCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.csv")
	out := filepath.Join(dir, "out")
	args := []string{"gp", "--n", "30", "--warmup", "60", "--draws", "50", "--min-ess", "0", "--quiet", "--out", out}
	mustCode(t, runBin(t, "", args...), 0, args...)
	b, err := os.ReadFile(filepath.Join(out, "data.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := []string{"gp", "--data", data, "--warmup", "60", "--draws", "50", "--min-ess", "0", "--quiet", "--out", filepath.Join(dir, "file")}
	mustCode(t, runBin(t, "", fromFile...), 0, fromFile...)
	cp := filepath.Join(out, checkpointName)
	full, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(want string, args ...string) { t.Helper(); refused(t, want, args...) }
	refuse("beside it", "gp", "--resume", out, "--seed", "3")
	refuse("no checkpoint", "gp", "--resume", dir)
	refuse("goes with --resume", "gp", "--extend", "5", "--n", "30")
	// The data file changed: its last digit.
	if err := os.WriteFile(data, append(b[:len(b)-2:len(b)-2], '7', '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	refuse("the data are not the checkpointed run's", "gp", "--resume", filepath.Join(dir, "file"))
	if err := os.WriteFile(cp, full[:len(full)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	refuse("truncated", "gp", "--resume", out)
}

// TestShardsCLI: a gp fit run as shards of its chains (--run-chains) and
// joined by merge writes the draws.csv of the fit made in one process,
// byte for byte, and a fit that predict reads; merge refuses shards of
// different fits and an incomplete set, gp a shard with a stop rule or an
// adaptive ladder.
func TestShardsCLI(t *testing.T) {
	dir := t.TempDir()
	gpArgs := func(out string, more ...string) []string {
		return append([]string{"gp", "--n", "40", "--warmup", "60", "--draws", "50", "--min-ess", "0", "--ladder", "fixed", "--levels", "3", "--chains", "3", "--seed", "4", "--quiet", "--out", filepath.Join(dir, out)}, more...)
	}
	for _, a := range [][]string{gpArgs("full"), gpArgs("s1", "--run-chains", "1-1"), gpArgs("s2", "--run-chains", "2-3"), gpArgs("other", "--run-chains", "2-3", "--seed", "5")} {
		mustCode(t, runBin(t, "", a...), 0, a...)
	}
	d := func(name string) string { return filepath.Join(dir, name) }
	merge := []string{"merge", d("s2"), d("s1"), "--out", d("merged")}
	mustCode(t, runBin(t, "", merge...), 0, merge...)
	sameFile(t, d("full/draws.csv"), d("merged/draws.csv"))
	predict := []string{"predict", "--fit", d("merged"), "--data", d("full/data.csv"), "--out", d("pred")}
	mustCode(t, runBin(t, "", predict...), 0, predict...)

	refuse := func(want string, args ...string) { t.Helper(); refused(t, want, args...) }
	refuse("not shards of one fit", "merge", d("s1"), d("other"), "--out", d("m2"))
	refuse("chain 1", "merge", d("s1"), "--out", d("m3"))
	refuse("--min-ess 0", "gp", "--n", "40", "--chains", "3", "--run-chains", "1-2", "--ladder", "fixed", "--out", d("x"))
	refuse("--ladder fixed", "gp", "--n", "40", "--chains", "3", "--run-chains", "1-2", "--min-ess", "0", "--out", d("x"))
	refuse("--run-chains: want", "gp", "--n", "40", "--chains", "3", "--run-chains", "2-4", "--min-ess", "0", "--ladder", "fixed", "--out", d("x"))
}

// refused fails the test unless subtemper args exits with a usage error
// whose message holds want.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	r := runBin(t, "", args...)
	if r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("subtemper %s: exit %d, stderr %q; want %d and %q", strings.Join(args, " "), r.code, r.stderr, exitUsage, want)
	}
}
