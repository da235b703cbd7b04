package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// failWriter fails every write, as stdout on a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutFailure: a command whose output cannot be written exits 1 and
// says so; gp (table mode) and diag used to exit 0 having written nothing.
func TestStdoutFailure(t *testing.T) {
	dir := t.TempDir()
	draws := filepath.Join(dir, "d.csv")
	os.WriteFile(draws, []byte("chain,draw,a\n1,1,1\n1,2,2\n2,1,3\n2,2,5\n"), 0o644)
	for _, args := range [][]string{
		{"diag", draws},
		{"diag", "--json", draws},
		{"gp", "--n", "10", "--dims", "1", "--warmup", "none", "--draws", "5", "--quiet"},
		{"help"},
	} {
		var e bytes.Buffer
		code := run(context.Background(), args, &stdio{in: strings.NewReader(""), out: failWriter{}, err: &e})
		if code != exitFailure || !strings.Contains(e.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the write error", args, code, e.String())
		}
	}
	// The binary with stdout on /dev/full.
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	for _, args := range [][]string{{"diag", draws}, {"gp", "--n", "10", "--dims", "1", "--warmup", "none", "--draws", "5", "--quiet"}} {
		cmd := exec.Command(bin, args...)
		var e bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitFailure || !strings.Contains(e.String(), "standard output") {
			t.Errorf("%v > /dev/full: %v, stderr %q; want exit 1", args, err, e.String())
		}
	}
}
