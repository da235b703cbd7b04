package linalg

import (
	"errors"
	"testing"
)

type countingCloser struct{ n *int }

func (c *countingCloser) Close() error {
	*c.n++
	return errors.New("closed")
}

func TestCloseHandle(t *testing.T) {
	n := 0
	type closer interface{ Close() error }
	var h closer = &countingCloser{n: &n}
	if err := CloseHandle(&h); err == nil || err.Error() != "closed" {
		t.Errorf("first close: %v, want Close's error", err)
	}
	if h != nil {
		t.Errorf("handle not cleared: %v", h)
	}
	if err := CloseHandle(&h); err != nil || n != 1 {
		t.Errorf("second close: %v, Close called %d times, want nil and 1", err, n)
	}
}
