//go:build linux

package fileio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b atomically (renameat2 with
// RENAME_EXCHANGE); ok is false where the file system cannot.
func exchange(a, b string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return err == nil, err
}
