package tempering

import (
	"context"
	"reflect"
	"sync"
	"testing"
)

// chainLog is what a test recorder heard of one chain.
type chainLog struct {
	iters, draws, rounds []int
	warm                 []bool
	warmupIters          []int64 // Stats.WarmupIterations at each report
	progress             []int   // the iterations Settings.Progress heard of
}

// TestRecorder: a Recorder hears of every iteration of every chain, in
// order, with the warm-up flag, the draws kept, the ladder's rounds and
// the chain's counters as they are; Progress hears of the same
// iterations; and the draws are those of the run without them.
func TestRecorder(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	const warmup, draws, thin = 100, 30, 2
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 3}, Control: Control{Chains: 2, Warmup: warmup, Draws: draws, Thin: thin, Seed: 5}}
	plain, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	logs := make([]chainLog, s.Chains)
	s.Recorder = RecorderFunc(func(r *Report) {
		mu.Lock()
		defer mu.Unlock()
		if r.Total != warmup+draws*thin {
			t.Errorf("chain %d: total %d", r.Chain, r.Total)
		}
		l := &logs[r.Chain]
		l.iters = append(l.iters, r.Iteration)
		l.draws = append(l.draws, r.Draws)
		l.rounds = append(l.rounds, r.LadderRounds)
		l.warm = append(l.warm, r.Warmup)
		l.warmupIters = append(l.warmupIters, r.Stats.WarmupIterations)
	})
	s.Progress = func(c, it, total int) {
		mu.Lock()
		defer mu.Unlock()
		logs[c].progress = append(logs[c].progress, it)
	}
	res, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Draws, plain.Draws) {
		t.Error("the draws differ with a recorder")
	}
	rounds := len(roundEnds(warmup))
	for c, l := range logs {
		for i, it := range l.iters {
			kept := max(0, it-warmup) / thin
			if it != i+1 || l.warm[i] != (it <= warmup) || l.draws[i] != kept || l.warmupIters[i] != int64(min(it, warmup)) {
				t.Fatalf("chain %d, report %d: iteration %d, warm-up %v, %d draws, %d warm-up iterations counted; want %d, %v, %d, %d",
					c, i, it, l.warm[i], l.draws[i], l.warmupIters[i], i+1, i+1 <= warmup, kept, min(i+1, warmup))
			}
		}
		if len(l.iters) != warmup+draws*thin {
			t.Errorf("chain %d: %d reports, want %d", c, len(l.iters), warmup+draws*thin)
		}
		if got := l.rounds[len(l.rounds)-1]; got != rounds || l.rounds[0] != 0 {
			t.Errorf("chain %d: ladder rounds %d at the start, %d at the end; want 0, %d", c, l.rounds[0], got, rounds)
		}
		if !reflect.DeepEqual(l.progress, l.iters) {
			t.Errorf("chain %d: Progress heard of iterations %v, the recorder of %v", c, l.progress, l.iters)
		}
	}
}

// TestOnStart: OnStart is called once per chain, before any of its
// iterations is reported, also with no warm-up and under a cancellation
// that comes at the first iteration; and it changes no draw.
func TestOnStart(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	for _, warmup := range []int{NoWarmup, 20} {
		s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 2}, Control: Control{Chains: 3, Warmup: warmup, Draws: 10, Seed: 3}}
		plain, err := Run(context.Background(), tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		starts := make([]int, s.Chains)
		early := false
		s.OnStart = func(c int) {
			mu.Lock()
			defer mu.Unlock()
			starts[c]++
		}
		s.Recorder = RecorderFunc(func(r *Report) {
			mu.Lock()
			defer mu.Unlock()
			if starts[r.Chain] == 0 {
				early = true
			}
		})
		res, err := Run(context.Background(), tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(starts, []int{1, 1, 1}) || early {
			t.Errorf("warm-up %d: OnStart calls per chain %v, an iteration reported before its chain's OnStart: %v", warmup, starts, early)
		}
		if !reflect.DeepEqual(res.Draws, plain.Draws) {
			t.Errorf("warm-up %d: OnStart changed the draws", warmup)
		}
	}

	// Cancelled in OnStart: every chain was still told, and stops at
	// its first iteration.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	starts := 0
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 2}, Control: Control{Chains: 2, Draws: 10, Seed: 3}}
	s.OnStart = func(int) {
		mu.Lock()
		defer mu.Unlock()
		starts++
		cancel()
	}
	res, err := Run(ctx, tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	if starts != 2 || !res.Interrupted {
		t.Errorf("cancelled at the start: %d OnStart calls, interrupted %v; want 2, true", starts, res.Interrupted)
	}
}
