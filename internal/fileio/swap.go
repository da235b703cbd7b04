package fileio

import (
	"errors"
	"io/fs"
	"os"
)

// SwapDir puts the directory staged at final, where a directory may
// already be: on Linux by one atomic exchange, so that final holds either
// its old content or the new, never a mix nor nothing; elsewhere by two
// renames (final to final+".old", staged to final). It returns the path
// where the old content now is ("" when there was none), for the caller
// to inspect and remove.
func SwapDir(staged, final string) (old string, err error) {
	if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) {
		return "", os.Rename(staged, final)
	}
	ok, err := exchange(staged, final)
	if err != nil {
		return "", err
	}
	if ok {
		return staged, nil
	}
	old = final + ".old"
	if err := os.RemoveAll(old); err != nil {
		return "", err
	}
	if err := os.Rename(final, old); err != nil {
		return "", err
	}
	if err := os.Rename(staged, final); err != nil {
		os.Rename(old, final)
		return "", err
	}
	return old, nil
}
