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
)

const (
	// parallelRows is the subset size from which the row tasks are split
	// over workers: below it the hand-off costs more than it saves.
	parallelRows = 256
	// maxRowWorkers bounds the goroutines one GP handle uses.
	maxRowWorkers = 8
)

// rowTask is one chunk of rows of a task on a handle.
type rowTask struct {
	g      *cpuGP
	kind   taskKind
	lo, hi int
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
	p := &rowPool{tasks: make(chan rowTask, workers), done: make(chan struct{}, workers), workers: workers}
	for range workers {
		go func() {
			for t := range p.tasks {
				t.g.runTask(t.kind, t.lo, t.hi)
				t = rowTask{}
				p.done <- struct{}{}
			}
		}()
	}
	return p
}

// run splits rows 0..m−1 of the lower triangle into workers+1 chunks of
// about equal area (row i has i+1 entries), hands all but the first to the
// workers, runs the first itself, and waits.
func (p *rowPool) run(g *cpuGP, kind taskKind, m int) {
	parts := p.workers + 1
	bounds := func(k int) int { return int(float64(m) * math.Sqrt(float64(k)/float64(parts))) }
	first := bounds(1)
	lo, sent := first, 0
	for k := 2; k <= parts; k++ {
		hi := bounds(k)
		if k == parts {
			hi = m
		}
		if hi > lo {
			p.tasks <- rowTask{g: g, kind: kind, lo: lo, hi: hi}
			sent++
		}
		lo = hi
	}
	g.runTask(kind, 0, first)
	for range sent {
		<-p.done
	}
}

// close stops the workers (idempotent).
func (p *rowPool) close() { p.once.Do(func() { close(p.tasks) }) }
