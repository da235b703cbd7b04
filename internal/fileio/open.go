package fileio

import (
	"context"
	"fmt"
	"os"
	"time"
)

// TooLargeError is the error of a Reader made by Open once more than Max
// bytes have been read.
type TooLargeError struct {
	Name string // the path given to Open
	Max  int64  // the cap, in bytes
}

// Error says which file is too large and what the cap is.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d bytes (more than could fit in memory once read)", e.Name, e.Max)
}

// Reader reads a file opened by Open once, front to back: it stops with
// ctx's error once ctx is cancelled (a read blocked on a pipe or a FIFO
// included) and with a *TooLargeError once more than its cap has been
// read. It is what every reader of user files goes through, so that no
// file, pipe or device (/dev/zero, a FIFO nobody writes to) can make a
// command run for ever or ignore Ctrl-C.
type Reader struct {
	f    *os.File
	ctx  context.Context
	name string
	max  int64
	n    int64
	stop func() bool
}

// Open opens the file at path for reading through a Reader capped at max
// bytes (max ≤ 0: no cap). Opening a FIFO waits for a writer: Open gives
// up with ctx's error when ctx is cancelled first (the file, if it opens
// later, is closed). The caller closes the Reader.
func Open(ctx context.Context, path string, max int64) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type opened struct {
		f   *os.File
		err error
	}
	c := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		c <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-c:
	case <-ctx.Done():
		go func() {
			if o := <-c; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
	if o.err != nil {
		return nil, o.err
	}
	r := &Reader{f: o.f, ctx: ctx, name: path, max: max}
	// A read blocked on a pipe, FIFO or terminal (files the runtime polls)
	// returns at once when its deadline passes; regular files and devices
	// never block for long and the next Read sees ctx.
	r.stop = context.AfterFunc(ctx, func() { o.f.SetReadDeadline(time.Now()) })
	return r, nil
}

// Read reads up to len(p) bytes; see Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if r.max > 0 {
		if r.n >= r.max {
			// One byte more tells a file of exactly max bytes from a
			// longer one.
			var b [1]byte
			n, err := r.f.Read(b[:])
			if n > 0 {
				return 0, &TooLargeError{Name: r.name, Max: r.max}
			}
			return 0, r.err(err)
		}
		if rest := r.max - r.n; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	n, err := r.f.Read(p)
	r.n += int64(n)
	return n, r.err(err)
}

// err returns ctx's error in place of a read's error once ctx is
// cancelled (a deadline set by the cancellation, or anything else).
func (r *Reader) err(err error) error {
	if err != nil && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return err
}

// Close closes the file.
func (r *Reader) Close() error {
	r.stop()
	return r.f.Close()
}
