package errmsg

import (
	"errors"
	"io/fs"
	"testing"
)

// TestTrim: the prefixes go, in order and only at the start; the error
// still unwraps to the original; nil stays nil.
func TestTrim(t *testing.T) {
	inner := &fs.PathError{Op: "open", Path: "x.csv", Err: fs.ErrNotExist}
	err := Trim(errors.New("gp: standardize: gp: column 2"), "gp: ", "standardize: ")
	if got, want := err.Error(), "gp: column 2"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if err := Trim(inner, "mvn: "); !errors.Is(err, fs.ErrNotExist) || err.Error() != inner.Error() {
		t.Errorf("Trim(%v) = %v, does not unwrap to it or changed a message without the prefix", inner, err)
	}
	if Trim(nil, "gp: ") != nil {
		t.Error("Trim(nil) is not nil")
	}
}
