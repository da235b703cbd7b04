package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/memlimit"
)

// readInput reads the user's file at path once, through fileio.Open:
// capped at factor times the memory this run may use (--max-memory, else
// what the machine has), and stopped by ctx. For data (factor 1) a file
// larger than the memory cannot fit: every number, 2 bytes of text at
// least, takes 8 once read, and the model takes more; diag's draws (factor
// 2) are written with up to 17 digits, so their text may be twice their
// size in memory. Every file a
// command reads goes through it, so that pipes and FIFOs (--data <(zcat
// f.gz)) are read exactly once, and /dev/zero, an endless pipe or a FIFO
// nobody writes to neither run for ever nor ignore Ctrl-C. read parses
// what it is given; its errors are returned as they are, except that an
// interruption gives errInterrupted (what names the file in the message,
// e.g. "--data").
func readInput[T any](ctx context.Context, what, path, maxMemory string, factor int64, read func(r *fileio.Reader) (T, error)) (T, error) {
	var zero T
	mem, src, err := memoryLimit(maxMemory)
	if err != nil {
		return zero, err
	}
	limit := mem * factor // 0: memory unknown, no cap
	if mem > math.MaxInt64/factor {
		limit = 0
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
		return zero, usagef("%s %s is larger than %s, more than the %s this run may use (%s) could hold once read; use a smaller file, or set --max-memory if that is wrong",
			what, path, memlimit.Format(float64(limit)), memlimit.Format(float64(mem)), src)
	}
	return v, err
}
