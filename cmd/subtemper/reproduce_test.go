package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/bench"
	"github.com/subtemper/subtemper/tempering"
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

// TestReproduceProgressLines: without --quiet, reproduce says on stderr
// when each cell starts and how each sampler of an ESS cell stopped.
func TestReproduceProgressLines(t *testing.T) {
	code, _, stderr := runReproduceCLI(t, "reproduce", "ess", "--budget", "tiny", "--backend", "gonum", "--shard", "0/9", "--out", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cells, samplers := 0, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		switch {
		case strings.HasPrefix(line, "[") && strings.Contains(line, "] ess/"):
			cells++
		case strings.HasPrefix(line, "    ") && (strings.Contains(line, ": converged, ") || strings.Contains(line, ": stopped at the draw limit, ")) &&
			strings.Contains(line, " draws per chain, R-hat ") && strings.HasSuffix(line, " s of compute per chain"):
			samplers[strings.SplitN(strings.TrimSpace(line), ":", 2)[0]]++
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	if cells == 0 {
		t.Fatalf("no cell lines in %q", stderr)
	}
	for _, d := range []string{"none", "stt", "tt", "spt", "pt"} {
		if samplers[d] != cells {
			t.Errorf("%d lines for %s over %d cells:\n%s", samplers[d], d, cells, stderr)
		}
	}
	// A sampler still running, and one out of time (too rare in the tiny
	// grid to be seen above).
	tp := bench.TracePoint{Draws: 500, Seconds: 61.54, Rhat: 1.2341}
	for stop, want := range map[string]string{
		"":            "tt: running, 500 draws per chain, R-hat 1.234, 61.5 s of compute per chain",
		"max_seconds": "tt: stopped at the time limit, 500 draws per chain, R-hat 1.234, 61.5 s of compute per chain",
	} {
		if got := blockLine("tt", tp, stop); got != want {
			t.Errorf("blockLine(%q) = %q, want %q", stop, got, want)
		}
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

// repeatedContext returns the first context that a line of stderr gives
// twice, as "subtemper merge: merge: bench: ..." gives "merge" and
// "--standardize: standardize: ..." gives "standardize"; "" if none. The
// contexts are the single words (flags without their dashes) between ": ".
func repeatedContext(line string) string {
	seen := map[string]bool{}
	for i, seg := range strings.Split(line, ": ") {
		if i == 0 {
			seg = strings.TrimPrefix(seg, "subtemper ")
		}
		w := strings.TrimLeft(seg, "-")
		if w == "" || strings.IndexFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && r != '-' }) >= 0 {
			continue
		}
		if seen[w] {
			return w
		}
		seen[w] = true
	}
	return ""
}

func TestRepeatedContext(t *testing.T) {
	for line, want := range map[string]string{
		"subtemper reproduce: reproduce: bench: mkdir x: not a directory":     "reproduce",
		"subtemper merge: merge: bench: merge: no cell results under [x]":     "merge",
		"subtemper gp: --standardize: standardize: input column 1 (\"a\")":    "standardize",
		"subtemper gp: --out x: mkdir x: not a directory":                     "",
		"subtemper reproduce: bench: cell runtime/mvn: measuring the cost":    "",
		"subtemper diag: x.csv: variable \"mu\": chain 1: empty chain":        "",
		"subtemper merge: bench: cell a: bench: measuring the cost of LogLik": "bench",
	} {
		if got := repeatedContext(line); got != want {
			t.Errorf("repeatedContext(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestErrorsSayContextOnce runs commands that fail and checks that no
// message repeats its context ("subtemper reproduce: reproduce: bench:
// ...", "--standardize: standardize: ...") and that each names what is
// wrong.
func TestErrorsSayContextOnce(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "afile", "")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	constant := writeFile(t, dir, "const.csv", "a,b,y\n1,1,2\n1,2,4\n1,3,1\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"reproduce", "runtime", "--budget", "tiny", "--quiet", "--out", file}, exitUsage, "subtemper reproduce: --out " + file + ": "},
		{[]string{"merge", empty, "--out", filepath.Join(dir, "m")}, exitUsage, "subtemper merge: bench: no cell results to merge in " + empty},
		{[]string{"merge", empty, "--out", file}, exitUsage, "subtemper merge: --out " + file + ": "},
		{[]string{"gp", "--data", constant, "--standardize"}, exitUsage, `subtemper gp: --standardize: input column 1 ("a") is constant`},
	} {
		code, _, stderr := runReproduceCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
		}
		if !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: stderr %q, want it to start with %q", c.args, stderr, c.want)
		}
		for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if w := repeatedContext(line); w != "" {
				t.Errorf("%v: %q says %q twice", c.args, line, w)
			}
		}
	}
}

// TestOutIsAFile: every command with --out treats an --out that names an
// existing file as bad usage (exit 2) with the same message, before any
// work; so does merge for a shard folder that does not exist or is a file.
func TestOutIsAFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "afile", "")
	shard := filepath.Join(dir, "shard")
	if err := os.Mkdir(shard, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gp", "--quiet", "--out", file},
		{"mvn", "--quiet", "--out", file},
		{"reproduce", "runtime", "--budget", "tiny", "--quiet", "--out", file},
		{"reproduce", "all", "--quiet", "--out", file},
		{"merge", shard, "--out", file},
	} {
		code, stdout, stderr := runReproduceCLI(t, args...)
		want := fmt.Sprintf("subtemper %s: --out %s: mkdir %s: not a directory\n", args[0], file, file)
		if code != exitUsage || stderr != want || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d, stderr %q", args, code, stderr, stdout, exitUsage, want)
		}
	}
	for _, d := range []string{filepath.Join(dir, "nosuch"), file} {
		args := []string{"merge", d, "--out", filepath.Join(dir, "merged")}
		code, _, stderr := runReproduceCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, d) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %s", args, code, stderr, exitUsage, d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "merged")); err == nil {
		t.Errorf("merge of bad folders created its --out")
	}
}

// TestPlotErrorsNameFigureOnce: a figure that cannot be drawn is reported
// by its name once ("traces: no variables or no chains", not "traces:
// report: traces: ...").
func TestPlotErrorsNameFigureOnce(t *testing.T) {
	dir := t.TempDir()
	nat := [][][]float64{make([][]float64, 10)}
	for s := range nat[0] {
		nat[0][s] = []float64{}
	}
	sum := &runSummary{Draws: drawsJSON{Summarized: 10}}
	_, err := writePlots(context.Background(), dir, &job{}, &tempering.Result{}, nat, sum)
	if want := "traces: no variables or no chains"; err == nil || err.Error() != want {
		t.Errorf("writePlots: %v, want %q", err, want)
	}
}
