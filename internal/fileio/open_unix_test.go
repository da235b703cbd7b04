//go:build unix

package fileio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenCapped: a Reader stops at its cap (/dev/zero never ends) with a
// *TooLargeError, and a file of exactly the cap reads whole.
func TestOpenCapped(t *testing.T) {
	r, err := Open(context.Background(), "/dev/zero", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	var big *TooLargeError
	if !errors.As(err, &big) || n != 1<<20 {
		t.Fatalf("read %d bytes of /dev/zero, error %v; want 1 MiB and a *TooLargeError", n, err)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(context.Background(), p, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if b, err := io.ReadAll(r2); err != nil || string(b) != "12345" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestOpenCancel: opening a FIFO nobody writes to, and reading one whose
// writer writes nothing, both end within a fraction of a second of ctx's
// cancellation with ctx's error.
func TestOpenCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	if _, err := Open(ctx, fifo, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Open of a FIFO without a writer: %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("Open returned %v after the cancellation", el)
	}

	// A writer that keeps the FIFO open and writes nothing.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel = context.WithCancel(context.Background())
	r, err := Open(ctx, fifo, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Errorf("read of a silent FIFO: %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("read returned %v after the cancellation", el)
	}
}
