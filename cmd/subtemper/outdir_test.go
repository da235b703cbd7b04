package main

import (
	"errors"
	"os"
	"os/exec"
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

// TestOutUnswappable: an --out that cannot be replaced in one step (".",
// "..", the current folder by its full name, "/") is refused with exit
// code 2 before any work, leaving nothing behind; they used to be
// accepted, the whole run made, and every draw lost when the final swap
// failed ("device or resource busy"). A symbolic link as --out has the
// folder it points to replaced, with the user's files kept, and stays a
// link (it used to become a real folder, its target emptied).
func TestOutUnswappable(t *testing.T) {
	parent := t.TempDir()
	wd := filepath.Join(parent, "work", "sub")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{".", "..", wd, "/"} {
		args := []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--out", out}
		cmd := exec.Command(bin, args...)
		cmd.Dir = wd
		var e strings.Builder
		cmd.Stderr = &e
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != 2 || !strings.Contains(e.String(), "--out "+out+" is ") || strings.Contains(e.String(), "sampling") {
			t.Errorf("--out %s: exit code %d, want 2, refused before sampling; stderr:\n%s", out, code, e.String())
		}
		for _, dir := range []string{wd, filepath.Dir(wd), parent} {
			ents, _ := os.ReadDir(dir)
			for _, en := range ents {
				if strings.HasPrefix(en.Name(), ".") {
					t.Errorf("--out %s: %s left in %s", out, en.Name(), dir)
				}
			}
		}
	}

	real := filepath.Join(parent, "real")
	link := filepath.Join(parent, "link")
	args := []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", real}
	mustCode(t, runBin(t, "", args...), 0, args...)
	if err := os.WriteFile(filepath.Join(real, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	args = []string{"gp", "--n", "14", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", link}
	mustCode(t, runBin(t, "", args...), 0, args...)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--out %s is no longer a symbolic link (%v)", link, err)
	}
	if b, _ := os.ReadFile(filepath.Join(real, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt lost from the link's target")
	}
	if b, _ := os.ReadFile(filepath.Join(real, "data.csv")); strings.Count(string(b), "\n") != 15 {
		t.Errorf("the link's target does not hold the second run's 14 rows")
	}
}

// TestUserFilesSurviveAKill: at the instant after the swap of the staging
// folder for --out (before the old folder's foreign files were moved
// back), --out already holds the user's files and folders: a kill then
// loses nothing (the old folder, named like a staging folder, is removed
// by the next run). They used to be only in the old folder at that
// instant: notes.txt and a subfolder lost.
func TestUserFilesSurviveAKill(t *testing.T) {
	parent := t.TempDir()
	final := filepath.Join(parent, "run")
	staged := filepath.Join(parent, ".run.staging-1-1")
	for _, d := range []string{filepath.Join(final, "mine", "deep"), staged} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	user := map[string]string{"notes.txt": "mine", "mine/a.txt": "a", "mine/deep/b.txt": "b"}
	for n, c := range user {
		if err := os.WriteFile(filepath.Join(final, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(final, "link")); err != nil {
		t.Fatal(err)
	}
	for n, c := range map[string]string{"draws.csv": "old", "summary.json": "{}"} {
		os.WriteFile(filepath.Join(final, n), []byte(c), 0o644)
	}
	os.WriteFile(filepath.Join(staged, "draws.csv"), []byte("new"), 0o644)
	check := func(when string) {
		for n, c := range user {
			if b, err := os.ReadFile(filepath.Join(final, n)); err != nil || string(b) != c {
				t.Errorf("%s: %s holds %q, %v; want %q", when, n, b, err, c)
			}
		}
		if l, err := os.Readlink(filepath.Join(final, "link")); err != nil || l != "notes.txt" {
			t.Errorf("%s: link %q, %v", when, l, err)
		}
		if b, _ := os.ReadFile(filepath.Join(final, "draws.csv")); string(b) != "new" {
			t.Errorf("%s: draws.csv holds %q, want the new run's", when, b)
		}
		if _, err := os.Stat(filepath.Join(final, "summary.json")); err == nil {
			t.Errorf("%s: the old run's summary.json is in --out", when)
		}
	}
	afterSwap = func() { check("right after the swap") }
	defer func() { afterSwap = nil }()
	f := &samplerFlags{out: staged, finalOut: final}
	if _, _, err := commitOut(f, []string{filepath.Join(staged, "draws.csv")}, false); err != nil {
		t.Fatal(err)
	}
	removeStaging()
	check("after the run")
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("%s holds %d entries, want --out only", parent, len(ents))
	}
}
