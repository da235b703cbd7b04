package tempering

import "sync"

// stopPool gathers Run's chains at the checkpoints of a Settings.Stop rule:
// each chain hands in its draws at checkpoint n and waits; the chain that
// completes the checkpoint asks the rule, and every chain gets its answer.
// A chain that leaves (an error, an interruption) ends the run at every
// checkpoint it will not reach, so that no chain waits for it.
type stopPool struct {
	mu     sync.Mutex
	rule   StopRule
	left   []bool
	rounds map[int]*stopRound
	done   <-chan struct{}
	at     int // the checkpoint at which the rule said enough; 0 if none
}

type stopRound struct {
	n      int
	draws  [][][]float64
	ready  chan struct{}
	closed bool
	enough bool
}

func newStopPool(rule StopRule, chains int, done <-chan struct{}) *stopPool {
	return &stopPool{rule: rule, left: make([]bool, chains), rounds: map[int]*stopRound{}, done: done}
}

// check hands in chain id's first n draws and waits for the decision at
// checkpoint n: enough reports that sampling ends here; ok is false if Run
// was cancelled first.
func (p *stopPool) check(n, id int, draws [][]float64) (enough, ok bool) {
	p.mu.Lock()
	r := p.rounds[n]
	if r == nil {
		r = &stopRound{n: n, draws: make([][][]float64, len(p.left)), ready: make(chan struct{})}
		p.rounds[n] = r
	}
	r.draws[id] = draws
	p.completeLocked(r)
	p.mu.Unlock()
	select {
	case <-r.ready:
		return r.enough, true
	case <-p.done:
		return false, false
	}
}

// completeLocked decides checkpoint r once every chain has handed in its
// draws or left. With a chain gone the run is ending anyway: the others
// stop without asking the rule.
func (p *stopPool) completeLocked(r *stopRound) {
	if r.closed {
		return
	}
	gone := false
	for i, d := range r.draws {
		if d == nil {
			if !p.left[i] {
				return
			}
			gone = true
		}
	}
	r.enough = gone || p.rule.Enough(r.draws)
	if r.enough && !gone && (p.at == 0 || r.n < p.at) {
		p.at = r.n
	}
	r.draws = nil // the rule must not keep them; neither do we
	r.closed = true
	close(r.ready)
}

// leave withdraws chain id from every checkpoint it has not reached.
func (p *stopPool) leave(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left[id] {
		return
	}
	p.left[id] = true
	for _, r := range p.rounds {
		p.completeLocked(r)
	}
}

// stoppedAt returns the checkpoint at which the rule said enough, or 0.
func (p *stopPool) stoppedAt() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at
}
