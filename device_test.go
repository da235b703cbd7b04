package subtemper

import (
	"errors"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/model"
)

// TestDeviceMemoryError: a fit needs one copy of the model per chain and
// one more; the error says what that comes to and what is free.
func TestDeviceMemoryError(t *testing.T) {
	const gib = 1 << 30
	if err := deviceMemoryError(16384, 8, 3, 2*gib, 8*gib, 80*gib); err != nil {
		t.Errorf("4 copies of 2 GiB with 8 GiB free: %v", err)
	}
	err := deviceMemoryError(16384, 8, 3, 2*gib, 8*gib-1, 80*gib)
	if !errors.Is(err, model.ErrOutOfMemory) {
		t.Fatalf("4 copies of 2 GiB with 8 GiB less a byte free: %v, want an error wrapping model.ErrOutOfMemory", err)
	}
	for _, s := range []string{"needs 8.0 GiB", "4 copies of 2.0 GiB", "of the device's 80.0 GiB are free", "16384×16384"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if err := CheckDeviceMemory("gonum", 1<<20, 8, 3); err != nil {
		t.Errorf("gonum backend: %v", err)
	}
}
