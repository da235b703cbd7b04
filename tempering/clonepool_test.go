package tempering

import (
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
