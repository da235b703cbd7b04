package tempering

import (
	"context"
	"math"
	"testing"
)

// TestSamplingCounts: the sampling-phase counters count the transitions
// after warm-up alone, one per level per PT iteration, and their mean
// acceptance probability lies in [0, 1].
func TestSamplingCounts(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	const warmup, draws = 60, 40
	res, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: PT, Kernel: HMC{Steps: 5}, Swap: Sweep, Ladder: LadderFixed, Levels: 3}, Control: Control{Chains: 2, Warmup: warmup, Draws: draws, Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for m, l := range res.Stats.Levels {
		if l.SamplingTransitions != 2*draws {
			t.Errorf("level %d: %d sampling transitions, want %d (of %d in all)", m, l.SamplingTransitions, 2*draws, l.Transitions)
		}
		if a := l.SamplingAcceptStat(); !(a >= 0 && a <= 1) {
			t.Errorf("level %d: sampling acceptance statistic %v", m, a)
		}
		if l.SamplingDivergent > l.Divergent {
			t.Errorf("level %d: %d sampling divergences of %d", m, l.SamplingDivergent, l.Divergent)
		}
	}
	var none LevelStats
	if !math.IsNaN(none.SamplingAcceptStat()) {
		t.Error("no transitions: want NaN")
	}
}
