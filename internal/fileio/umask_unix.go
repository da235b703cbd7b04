//go:build unix

package fileio

import (
	"os"
	"syscall"
)

// umaskBits is the process's file mode creation mask, read once at start-up
// (reading it means setting it, so it is not read again while goroutines
// may be creating files).
var umaskBits = func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}()

func umask() os.FileMode { return umaskBits }
