package fileio

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := Write(p, func(w *bufio.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	boom := errors.New("boom")
	if err := Write(p, func(*bufio.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("write error not returned: %v", err)
	}
	if err := Write(filepath.Join(t.TempDir(), "no", "such", "dir"), func(*bufio.Writer) error { return nil }); err == nil {
		t.Error("creating a file in a missing directory: no error")
	}
}
