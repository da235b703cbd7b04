package tempering

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// scarceTarget clones left times, then fails with err.
type scarceTarget struct {
	*gaussTarget
	left *int
	err  error
}

func (s scarceTarget) Clone() (Target, error) {
	if *s.left == 0 {
		return nil, s.err
	}
	*s.left--
	return s, nil
}

// TestClonePoolOutOfMemory: a pool makes do with the clones it got when a
// further one fails for want of memory, and fails on any other error or
// when not even one clone could be made.
func TestClonePoolOutOfMemory(t *testing.T) {
	oom := fmt.Errorf("cuda: new gp: %w", ErrOutOfMemory)
	other := errors.New("disk on fire")
	for _, c := range []struct {
		left    int
		err     error
		want    int
		wantErr bool
	}{
		{left: 10, err: oom, want: 4},
		{left: 2, err: oom, want: 2},
		{left: 0, err: oom, wantErr: true},
		{left: 2, err: other, wantErr: true},
	} {
		left := c.left
		pool, err := clonePool(scarceTarget{newGaussTarget([]float64{1, 2}, 0), &left, c.err}, 4)
		if c.wantErr {
			if err == nil || !errors.Is(err, c.err) {
				t.Errorf("%d clones then %v: pool of %d, err %v; want an error wrapping it", c.left, c.err, len(pool), err)
			}
			continue
		}
		if err != nil || len(pool) != c.want {
			t.Errorf("%d clones then %v: pool of %d, err %v; want %d", c.left, c.err, len(pool), err, c.want)
		}
	}
}

// TestFindModeConcurrency: WarmStartOptions.Concurrency hears, before each
// batch of evaluations run side by side, how many run at once: never more
// than Workers, the starts' optimisations (4) and the Hessian's dim + 1
// evaluations among them, and the proposal fit's batches too.
func TestFindModeConcurrency(t *testing.T) {
	tg := newMVNTarget(1200, 2, 3)
	var seen []int
	opt := WarmStartOptions{Seed: 1, MinSubset: 300, Workers: 3,
		Concurrency: func(n int) { seen = append(seen, n) },
		Proposal:    &ProposalOptions{Seed: 1}}
	ws, err := FindMode(context.Background(), tg, opt)
	if err != nil {
		t.Fatal(err)
	}
	if ws.Proposal == nil {
		t.Fatal("no proposal fitted")
	}
	stages := len(ws.Stages)
	// A batch per stage, the Hessian's, and at least one of the proposal's.
	if len(seen) < stages+2 {
		t.Fatalf("Concurrency called %d times (%v) for %d stages, the Hessian and the proposal", len(seen), seen, stages)
	}
	for _, n := range seen {
		if n < 1 || n > 3 {
			t.Errorf("Concurrency(%d) with Workers 3: %v", n, seen)
		}
	}
	if seen[0] != 3 { // the first stage's 4 starts, 3 at once
		t.Errorf("first batch %d at once, want 3 (4 starts on 3 workers): %v", seen[0], seen)
	}
	if ws.Proposal.EvalsAtOnce != 3 || ws.GradsAtOnce != 3 {
		t.Errorf("EvalsAtOnce %d, GradsAtOnce %d; want 3 (Workers) for both", ws.Proposal.EvalsAtOnce, ws.GradsAtOnce)
	}
}
