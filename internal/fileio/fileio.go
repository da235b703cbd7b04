// Package fileio reads and writes whole files safely. Write sends the
// content to a temporary file next to the destination, which is flushed,
// synced, closed and only then renamed over it, so that a failed write (a
// full disk, an interrupted process) never leaves a truncated file behind or
// destroys the previous one. SkipBOM drops the byte-order mark that some
// programs put at the start of a text file.
package fileio

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
)

// Write creates or replaces the file at path (mode 0644 before the umask)
// with what write puts through the buffer it is given (write need not flush
// it). It returns write's error, or else the first error of flushing,
// syncing, closing or renaming; on any error the file at path is left as it
// was and the temporary file is removed.
func Write(path string, write func(w *bufio.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	if err := f.Chmod(0o644 &^ umask()); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
