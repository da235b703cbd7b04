package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DrawContext draws figures into dir and stops as soon as ctx is done,
// whatever the figures cost: gonum/plot's rendering and PNG encoding do
// not look at a context, and one figure of many panels can take seconds.
//
// draw runs in a goroutine. It saves each figure under a base name in
// the folder it is given (Line, Bars, Grid…) and then calls keep(base,
// err) with the figure's error, if any. keep moves the figure's two
// files (base+".png", base+".svg") into dir when err is nil, and records
// err otherwise. DrawContext returns when draw does, with the paths in
// dir of the figures kept, in order, and the errors given to keep,
// joined.
//
// When ctx is done first, DrawContext returns at once (within two
// renames) with the figures kept so far and cut true: each figure in dir
// is whole, and nothing more reaches dir. draw's goroutine is abandoned:
// it should check ctx between figures to stop early; the folder it
// draws into is removed, and its later saves fail. When ctx can never be
// done (context.Background), draw runs in the caller's goroutine and
// saves into dir itself.
func DrawContext(ctx context.Context, dir string, draw func(folder string, keep func(base string, err error))) (written []string, cut bool, err error) {
	if ctx.Done() == nil {
		var errs []error
		draw(dir, func(base string, err error) {
			if err != nil {
				errs = append(errs, err)
				return
			}
			written = append(written, base+".png", base+".svg")
		})
		return written, false, errors.Join(errs...)
	}
	if err := ctx.Err(); err != nil {
		return nil, true, nil
	}
	// A hidden folder beside the figures, so that a file being written
	// never appears in dir under a figure's name; renamed away (its path
	// gone: save creates no folder) and removed on a cancellation.
	scratch, err := os.MkdirTemp(dir, ".figures-")
	if err != nil {
		return nil, false, fmt.Errorf("report: %w", err)
	}
	g := &drawGate{dir: dir}
	done := make(chan struct{})
	go func(folder string) {
		defer close(done)
		draw(folder, g.keep)
	}(scratch)
	select {
	case <-done:
		os.RemoveAll(scratch) // left-overs of failed figures only
		return g.written, false, errors.Join(g.errs...)
	case <-ctx.Done():
	}
	select {
	case <-done: // finished meanwhile: every figure is kept
		os.RemoveAll(scratch)
		return g.written, false, errors.Join(g.errs...)
	default:
	}
	written, errs := g.close()
	gone := scratch + "-cut"
	if os.Rename(scratch, gone) != nil {
		gone = scratch
	}
	os.RemoveAll(gone)
	return written, true, errors.Join(errs...)
}

// drawGate moves the figures of DrawContext's goroutine into dir until
// it is closed.
type drawGate struct {
	dir     string
	mu      sync.Mutex
	closed  bool
	written []string
	errs    []error
}

// keep moves base's files into g.dir (or records err), unless g is closed.
func (g *drawGate) keep(base string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if err != nil {
		g.errs = append(g.errs, &folderError{strings.ReplaceAll(err.Error(), filepath.Dir(base), g.dir), err})
		return
	}
	dst := filepath.Join(g.dir, filepath.Base(base))
	if err := os.Rename(base+".png", dst+".png"); err != nil {
		g.errs = append(g.errs, fmt.Errorf("report: %w", err))
		return
	}
	if err := os.Rename(base+".svg", dst+".svg"); err != nil {
		os.Remove(dst + ".png") // the figure whole or not at all
		g.errs = append(g.errs, fmt.Errorf("report: %w", err))
		return
	}
	g.written = append(g.written, dst+".png", dst+".svg")
}

// folderError is a figure's error with the paths of DrawContext's
// hidden folder shown as those of the folder the figures go to.
type folderError struct {
	msg string
	err error
}

func (e *folderError) Error() string { return e.msg }
func (e *folderError) Unwrap() error { return e.err }

// close stops g keeping figures and returns what it kept.
func (g *drawGate) close() ([]string, []error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return g.written, g.errs
}
