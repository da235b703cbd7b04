package linalg

import (
	"math"
	"sync"
)

// taskKind names an O(m²) row task of the CPU GP evaluation.
type taskKind int

const (
	taskKernel taskKind = iota // kernel values from the Gram matrix
	taskP                      // P = (ααᵀ − K⁻¹) ∘ Kf
	taskGrad                   // P and P·[Z 1] in one pass (RowKernels)
)

const (
	// parallelRows is the subset size from which the row tasks are split
	// over workers: below it the hand-off costs more than it saves.
	parallelRows = 256
	// maxRowWorkers bounds the goroutines one GP handle uses.
	maxRowWorkers = 8
	// gradParts is the number of parts, each with its own sum, the
	// RowKernels gradient pass is split into from parallelRows on: fixed,
	// so that the result does not depend on the number of workers.
	gradParts = 4
)

// rowTask is one part of a task on a handle.
type rowTask struct {
	g            *cpuGP
	kind         taskKind
	part, lo, hi int
}

// rowPool is a GP handle's persistent workers. Tasks and completions go
// through buffered channels made once, so a parallel evaluation allocates
// nothing. The workers hold no reference to the handle between tasks, so an
// unreachable handle is collected and its cleanup closes the pool.
type rowPool struct {
	tasks   chan rowTask
	done    chan struct{}
	workers int
	once    sync.Once
}

func newRowPool(workers int) *rowPool {
	// Room for every part of a task, so that handing them out never blocks.
	c := max(workers, gradParts)
	p := &rowPool{tasks: make(chan rowTask, c), done: make(chan struct{}, c), workers: workers}
	for range workers {
		go func() {
			for t := range p.tasks {
				t.g.runTask(t.kind, t.part, t.lo, t.hi)
				t = rowTask{}
				p.done <- struct{}{}
			}
		}()
	}
	return p
}

// splitRows returns the first row of part k of rows 0..m−1 of the lower
// triangle split into parts of about equal area (row i has i+1 entries);
// part k is rows splitRows(m, parts, k) .. splitRows(m, parts, k+1)−1.
func splitRows(m, parts, k int) int {
	if k >= parts {
		return m
	}
	return int(float64(m) * math.Sqrt(float64(k)/float64(parts)))
}

// run splits rows 0..m−1 into parts (at most gradParts or workers+1),
// hands all but the first to the workers, runs the first itself, then
// runs any part no worker has taken yet and waits for the rest.
func (p *rowPool) run(g *cpuGP, kind taskKind, m, parts int) {
	for k := 1; k < parts; k++ {
		p.tasks <- rowTask{g: g, kind: kind, part: k, lo: splitRows(m, parts, k), hi: splitRows(m, parts, k+1)}
	}
	g.runTask(kind, 0, 0, splitRows(m, parts, 1))
	for pending := parts - 1; pending > 0; pending-- {
		select {
		case t := <-p.tasks:
			t.g.runTask(t.kind, t.part, t.lo, t.hi)
		case <-p.done:
		}
	}
}

// close stops the workers (idempotent).
func (p *rowPool) close() { p.once.Do(func() { close(p.tasks) }) }
