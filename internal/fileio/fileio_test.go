package fileio

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteKeepsOldOnError: a failed write leaves the previous file intact
// and no temporary file behind; a successful one replaces it with the
// usual permissions.
func TestWriteKeepsOldOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "draws.csv")
	if err := Write(p, func(w *bufio.Writer) error { _, err := w.WriteString("old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w *bufio.Writer) error {
		w.WriteString("half of the new cont")
		w.Flush()
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Errorf("after a failed write the file holds %q, want the old content", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only draws.csv", names)
	}
	if err := Write(p, func(w *bufio.Writer) error { _, err := w.WriteString("new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Errorf("file holds %q, want new", b)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o600 != 0o600 || fi.Mode().Perm()&0o111 != 0 {
		t.Errorf("mode %v, %v: want rw for the owner, not executable", fi.Mode(), err)
	}
}

// TestWriteRelative: a bare file name writes into the working directory.
func TestWriteRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := Write("f.txt", func(w *bufio.Writer) error { _, err := w.WriteString("x"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("f.txt"); err != nil || string(b) != "x" {
		t.Errorf("read %q, %v", b, err)
	}
}

func TestSkipBOM(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\uFEFFa,b\n", "a,b\n"},
		{"a,b\n", "a,b\n"},
		{"a\uFEFF,b\n", "a\uFEFF,b\n"},
		{"\uFEFF", ""},
		{"ab", "ab"},
		{"", ""},
	} {
		b, err := io.ReadAll(SkipBOM(strings.NewReader(c.in)))
		if err != nil || string(b) != c.want {
			t.Errorf("SkipBOM(%q) read %q, %v; want %q", c.in, b, err, c.want)
		}
	}
}
