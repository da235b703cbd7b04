package model_test

import (
	"errors"
	"testing"

	"github.com/subtemper/subtemper/model"
)

// nilTarget is a Target whose methods are never called.
type nilTarget struct{ model.Target }

// TestCloneOf: a failed copy gives a nil Target (not one holding a nil
// pointer) and the error; a copy gives itself.
func TestCloneOf(t *testing.T) {
	fail := errors.New("no workspace")
	if c, err := model.CloneOf[*nilTarget](nil, fail); c != nil || err != fail {
		t.Errorf("failed copy: %v, %v; want nil, %v", c, err, fail)
	}
	x := &nilTarget{}
	if c, err := model.CloneOf(x, nil); c != x || err != nil {
		t.Errorf("copy: %v, %v; want %v, nil", c, err, x)
	}
}
