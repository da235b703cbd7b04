//go:build unix

package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillAtRandomInstants: SIGKILL at random instants of a run into an
// --out that holds an earlier run and the user's files leaves --out with
// the complete old run or the complete new one (data.csv and draws.csv of
// the same run), and the user's file and folder always there; the next
// run removes what the killed ones left beside --out.
func TestKillAtRandomInstants(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "run")
	argsOf := func(n string) []string {
		return []string{"gp", "--n", n, "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", out}
	}
	snapshot := func() [2]string {
		a, _ := os.ReadFile(filepath.Join(out, "data.csv"))
		b, _ := os.ReadFile(filepath.Join(out, "draws.csv"))
		return [2]string{string(a), string(b)}
	}
	start := time.Now()
	mustCode(t, runBin(t, "", argsOf("14")...), 0, argsOf("14")...)
	dur := time.Since(start)
	runB := snapshot()
	mustCode(t, runBin(t, "", argsOf("12")...), 0, argsOf("12")...)
	runA := snapshot()
	if err := os.MkdirAll(filepath.Join(out, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"notes.txt", "mine/a.txt"} {
		if err := os.WriteFile(filepath.Join(out, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 20 {
		n := "14"
		if i%2 == 1 {
			n = "12"
		}
		cmd := exec.Command(bin, argsOf(n)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Float64() * 1.3 * float64(dur)))
		cmd.Process.Kill()
		cmd.Wait()
		if s := snapshot(); s != runA && s != runB {
			t.Fatalf("kill %d: --out holds neither complete run (data.csv of %d lines, draws.csv of %d)", i, strings.Count(s[0], "\n"), strings.Count(s[1], "\n"))
		}
		for _, f := range []string{"notes.txt", "mine/a.txt"} {
			if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || string(b) != f {
				t.Fatalf("kill %d: %s lost (%v)", i, f, err)
			}
		}
	}
	mustCode(t, runBin(t, "", argsOf("12")...), 0, argsOf("12")...)
	if snapshot() != runA {
		t.Error("the last run's files differ from the same run's before")
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside --out after a complete run: %v", names)
	}
}
