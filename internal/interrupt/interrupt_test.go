package interrupt

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestSignalBeforeContext: a SIGINT that arrives before Context is called
// (while the program starts) is held, not fatal, and cancels the context
// Context returns. Without the package's initialisation asking for the
// signal, it would kill the test binary.
func TestSignalBeforeContext(t *testing.T) {
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // delivered before Context is called
	ctx, stop := Context(context.Background())
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the context was not cancelled by the SIGINT received before Context")
	}
}
