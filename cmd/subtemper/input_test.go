//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin runs the binary with args and stdin like runBin, but kills it
// and fails the test when it has not ended within limit.
func runWithin(t *testing.T, limit time.Duration, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("subtemper %s did not end within %v\nstderr:\n%s", strings.Join(args, " "), limit, e.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{o.String(), e.String(), code}
}

// TestDataPipesAndDevices: --data is read once, through the capped,
// cancellable reader. A pipe (--data /dev/stdin, as --data <(zcat f.gz))
// and a FIFO are read (the memory pre-scan used to consume them: "empty
// file", or a read blocked for ever on the FIFO); /dev/zero is refused
// within seconds (it used to be read for ever); Ctrl-C while --data is a
// FIFO nobody writes to ends the command with exit code 130 within a
// second (the pre-scan used to block on it and ignore the signal).
func TestDataPipesAndDevices(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeGPData(t, dir, 12, 1)
	csv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evalArgs := func(data string) []string {
		return []string{"eval", "gp", "--data", data, "--lengthscales", "1", "--sf", "1", "--sn", "0.5"}
	}

	args := evalArgs("/dev/stdin")
	mustCode(t, runWithin(t, 20*time.Second, string(csv), args...), 0, args...)

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Write(csv)
			w.Close()
		}
	}()
	args = evalArgs(fifo)
	r := runWithin(t, 20*time.Second, "", args...)
	if r.code != 0 {
		// Unblock the writer, if it still waits, before failing.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
	mustCode(t, r, 0, args...)

	for _, args := range [][]string{
		evalArgs("/dev/zero"),
		{"gp", "--data", "/dev/zero", "--quiet"},
		{"mvn", "--data", "/dev/zero", "--sigma", path, "--quiet"},
	} {
		r := runWithin(t, 20*time.Second, "", args...)
		mustCode(t, r, 2, args...)
		if !strings.Contains(r.stderr, "record longer than") {
			t.Errorf("%v: stderr lacks the record cap: %s", args, r.stderr)
		}
	}

	// A file larger than --max-memory is refused once the cap is read.
	args = append(evalArgs(path), "--max-memory", "100")
	r = runWithin(t, 20*time.Second, "", args...)
	mustCode(t, r, 2, args...)
	if !strings.Contains(r.stderr, "larger than") {
		t.Errorf("stderr lacks the size cap: %s", r.stderr)
	}

	fifoNC := filepath.Join(dir, "draws.nc")
	if err := syscall.Mkfifo(fifoNC, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{evalArgs(fifo), {"gp", "--data", fifo}, {"mvn", "--data", fifo, "--sigma", path}, {"diag", fifo}, {"diag", fifoNC}} {
		for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			r, lat := signalAfter(t, sig, 300*time.Millisecond, cmd...)
			mustCode(t, r, 130, cmd...)
			if lat > time.Second {
				t.Errorf("%v: ended %v after %v", cmd, lat, sig)
			}
		}
	}
}
