package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcess: on Linux the process's CPU time can be read and grows by
// about the time a goroutine spends computing; elsewhere it cannot be
// read.
func TestProcess(t *testing.T) {
	t0, ok := Process()
	if runtime.GOOS != "linux" {
		if ok {
			t.Errorf("Process on %s: ok, want not ok", runtime.GOOS)
		}
		return
	}
	if !ok {
		t.Fatal("Process on linux: not ok")
	}
	// Compute for 50 ms of wall-clock time: the CPU time spent is at
	// most that (plus the runtime's own threads), and at least a part of
	// it, even on a loaded machine.
	x := 1.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for range 1000 {
			x = x*1.0000001 + 1e-9
		}
	}
	t1, ok := Process()
	if !ok || x == 0 {
		t.Fatal("Process: not ok the second time")
	}
	if d := t1 - t0; d <= 0 || d > time.Second {
		t.Errorf("CPU time over 50 ms of computing: %v", d)
	}
}
