// Package fileio writes whole files safely: create, write through a
// buffer, flush, close, and report the first error of any of those steps
// (a failed Close can be the only sign of a full disk).
package fileio

import (
	"bufio"
	"os"
)

// Write creates (or truncates) the file at path and fills it with write,
// through the buffer it is given (write need not flush it). It returns
// write's error, or else the first error of flushing or closing the file.
func Write(path string, write func(w *bufio.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}
