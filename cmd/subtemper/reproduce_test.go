package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line args and returns the exit code, stdout and
// stderr.
func runReproduceCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestReproduceUsage(t *testing.T) {
	for _, args := range [][]string{
		{"reproduce"},
		{"reproduce", "bogus"},
		{"reproduce", "all", "--budget", "huge"},
		{"reproduce", "all", "--shard", "2/2"},
		{"reproduce", "all", "--backend", "nosuch"},
		{"reproduce", "all", "--nosuchflag"},
		{"merge"},
		{"merge", "somedir"},
	} {
		if code, _, stderr := runReproduceCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr)
		}
	}
	code, stdout, _ := runReproduceCLI(t, "reproduce", "--help")
	if code != exitOK || !strings.Contains(stdout, "--shard") {
		t.Errorf("reproduce --help: exit %d, output %q", code, stdout)
	}
}

// TestReproduceShardedCLI runs the runtime experiment of the tiny grid in
// two shards and merges them; merging one shard alone reports the missing
// cells (exit 1, or 0 with --partial).
func TestReproduceShardedCLI(t *testing.T) {
	dir := t.TempDir()
	s0, s1 := filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	for i, o := range []string{s0, s1} {
		code, _, stderr := runReproduceCLI(t, "reproduce", "runtime", "--budget", "tiny", "--quiet", "--backend", "gonum",
			"--shard", []string{"0/2", "1/2"}[i], "--out", o)
		if code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, _, stderr := runReproduceCLI(t, "merge", s0, s1, "--out", merged); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"REPORT.md", "runtime.csv", "fig1_runtime_mvn.png", "fig1_runtime_gp.svg"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Error(err)
		}
	}
	code, _, stderr := runReproduceCLI(t, "merge", s0, "--out", filepath.Join(dir, "m2"))
	if code != exitFailure || !strings.Contains(stderr, "missing cell") {
		t.Errorf("merge of one shard: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runReproduceCLI(t, "merge", s0, "--partial", "--out", filepath.Join(dir, "m3")); code != exitOK {
		t.Errorf("merge --partial of one shard: exit %d", code)
	}
}

func TestReproduceInterruptedCLI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"reproduce", "runtime", "--budget", "tiny", "--quiet", "--backend", "gonum", "--out", t.TempDir()}, &stdio{out: &out, err: &errb})
	if code != exitInterrupted {
		t.Errorf("cancelled reproduce: exit %d, want %d (%s)", code, exitInterrupted, errb.String())
	}
}
