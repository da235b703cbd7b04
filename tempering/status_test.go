package tempering

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestStatus: Result.Status tells a run that made all its draws from one
// that its stop rule ended, one whose context was cancelled and one whose
// context's deadline passed.
func TestStatus(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	base := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 2}, Control: Control{Chains: 2, Warmup: NoWarmup, Draws: 60, Seed: 1}}
	run := func(ctx context.Context, s Settings) *Result {
		t.Helper()
		res, err := Run(ctx, tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(name string, res *Result, want Status, interrupted bool) {
		t.Helper()
		if res.Status != want || res.Interrupted != interrupted {
			t.Errorf("%s: status %q, interrupted %v; want %q, %v", name, res.Status, res.Interrupted, want, interrupted)
		}
	}
	check("all draws", run(context.Background(), base), StatusCompleted, false)

	s := base
	s.Stop, s.StopEvery = &countRule{at: 20}, 10
	res := run(context.Background(), s)
	check("stop rule", res, StatusStopped, false)
	if res.StoppedAt != 20 {
		t.Errorf("stop rule: stopped at %d draws, want 20", res.StoppedAt)
	}

	// Cancelled, or out of time, after a few iterations of a run too
	// long to finish.
	s = base
	s.Thin = 1 << 30
	ctx, cancel := context.WithCancel(context.Background())
	var iters atomic.Int64
	s.Progress = func(c, it, total int) {
		if iters.Add(1) == 50 {
			cancel()
		}
	}
	check("cancelled", run(ctx, s), StatusInterrupted, true)
	cancel()

	s.Progress = nil
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	check("deadline", run(ctx, s), StatusTimeLimit, true)

	for st, want := range map[Status]string{StatusCompleted: "completed", StatusStopped: "stopped by the rule", StatusInterrupted: "interrupted", StatusTimeLimit: "time limit", 9: "Status(9)"} {
		if st.String() != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(st), st, want)
		}
	}
}
