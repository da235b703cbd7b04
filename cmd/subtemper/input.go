package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/memlimit"
)

// readInput reads the user's file at path once, through fileio.Open:
// capped at the memory this run may use (--max-memory, else what the
// machine has; a file of numbers takes more memory once read than on
// disk, so a larger one cannot fit), and stopped by ctx. Every file a
// command reads goes through it, so that pipes and FIFOs (--data <(zcat
// f.gz)) are read exactly once, and /dev/zero, an endless pipe or a FIFO
// nobody writes to neither run for ever nor ignore Ctrl-C. read parses
// what it is given; its errors are returned as they are, except that an
// interruption gives errInterrupted (what names the file in the message,
// e.g. "--data").
func readInput[T any](ctx context.Context, what, path, maxMemory string, read func(r *fileio.Reader) (T, error)) (T, error) {
	var zero T
	limit, src, err := memoryLimit(maxMemory)
	if err != nil {
		return zero, err
	}
	phase := fmt.Sprintf("the reading of %s %s", what, path)
	r, err := fileio.Open(ctx, path, limit)
	if ctx.Err() != nil {
		return zero, interruptedDuring(phase)
	}
	if err != nil {
		return zero, err
	}
	defer r.Close()
	v, err := read(r)
	if ctx.Err() != nil {
		return zero, interruptedDuring(phase)
	}
	var big *fileio.TooLargeError
	if errors.As(err, &big) {
		return zero, usagef("%s %s is larger than the %s this run may use (%s): a file of numbers takes more memory once read; use a smaller file, or set --max-memory if that is wrong",
			what, path, memlimit.Format(float64(limit)), src)
	}
	return v, err
}
