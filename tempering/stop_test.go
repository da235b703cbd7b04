package tempering

import (
	"context"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/subtemper/subtemper/diag"
)

// countRule says enough once every chain holds at least at draws, and
// records what it was shown.
type countRule struct {
	at      int
	calls   []int // the draws per chain at each call
	unequal bool  // a call saw chains of different lengths
}

func (r *countRule) Enough(draws [][][]float64) bool {
	n := len(draws[0])
	for _, d := range draws {
		if len(d) != n {
			r.unequal = true
		}
	}
	r.calls = append(r.calls, n)
	return n >= r.at
}

// TestStopRule: a rule stops every chain at the first checkpoint where it
// says enough, the draws are the first ones of the run that does not stop,
// and a rule that never says enough leaves Draws draws.
func TestStopRule(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	for _, d := range []Driver{None, PT, STT} {
		base := Settings{Sampler: Sampler{Driver: d, Kernel: MH{}}, Control: Control{Chains: 3, Warmup: 60, Draws: 400, Thin: 2, Seed: 7}}
		full, err := Run(context.Background(), tg, &base)
		if err != nil {
			t.Fatal(err)
		}
		rule := &countRule{at: 130}
		s := base
		s.Stop, s.StopEvery = rule, 40
		res, err := Run(context.Background(), tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		if res.StoppedAt != 160 || res.Interrupted {
			t.Errorf("%v: stopped at %d (interrupted %v), want 160", d, res.StoppedAt, res.Interrupted)
		}
		if !reflect.DeepEqual(rule.calls, []int{40, 80, 120, 160}) || rule.unequal {
			t.Errorf("%v: rule called at %v (unequal chains: %v), want 40, 80, 120, 160", d, rule.calls, rule.unequal)
		}
		for c := range res.Draws {
			if len(res.Draws[c]) != 160 || !reflect.DeepEqual(res.Draws[c], full.Draws[c][:160]) {
				t.Errorf("%v: chain %d: %d draws, not the first 160 of the full run", d, c, len(res.Draws[c]))
			}
		}
		never := &countRule{at: 1 << 30}
		s.Stop = never
		res, err = Run(context.Background(), tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		if res.StoppedAt != 0 || !reflect.DeepEqual(res.Draws, full.Draws) || len(never.calls) != 9 {
			t.Errorf("%v: a rule never satisfied: stopped at %d, %d calls (want 9: 40…360), draws equal to the full run's: %v",
				d, res.StoppedAt, len(never.calls), reflect.DeepEqual(res.Draws, full.Draws))
		}
	}
}

// cancelRule cancels the run's context from inside the rule.
type cancelRule struct{ cancel func() }

func (r cancelRule) Enough([][][]float64) bool { r.cancel(); return false }

// TestStopRuleCancel: a run cancelled at a checkpoint ends, interrupted,
// without waiting; so does a run whose chain fails at the start.
func TestStopRuleCancel(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last atomic.Int64
	res, err := Run(ctx, tg, &Settings{
		Sampler: Sampler{Driver: PT, Kernel: MH{}},
		Control: Control{Chains: 4, Warmup: 20, Draws: 1000, Seed: 1, Stop: cancelRule{cancel}, StopEvery: 25, Progress: func(c, it, total int) { last.Store(int64(it)) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.StoppedAt != 0 {
		t.Errorf("interrupted %v, stopped at %d; want interrupted, 0", res.Interrupted, res.StoppedAt)
	}
	for c, d := range res.Draws {
		if len(d) > 26 {
			t.Errorf("chain %d: %d draws after a cancel at the first checkpoint", c, len(d))
		}
	}
	if _, err := Run(context.Background(), failTarget{}, &Settings{
		Sampler: Sampler{Driver: PT, Kernel: MH{}},
		Control: Control{Chains: 2, Init: [][]float64{{0}, {100}}, Stop: &countRule{at: 1 << 30}, StopEvery: 5},
	}); err == nil {
		t.Error("a chain started where the density fails: no error")
	}
}

// TestStopRuleGOMAXPROCS: with the diagnostics' rule (the CLI's
// --min-ess) a seed gives the same stopping point and draws at GOMAXPROCS 1
// and 2, and the rule stops an adapted run well before Draws.
func TestStopRuleGOMAXPROCS(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	s := &Settings{Sampler: Sampler{Driver: PT}, Control: Control{Chains: 3, Warmup: 200, Draws: 5000, Seed: 3, Stop: diag.StopRule{MinESS: 400}}}
	var res [2]*Result
	for i, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		r, err := Run(context.Background(), tg, s)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = r
	}
	if res[0].StoppedAt != res[1].StoppedAt || !reflect.DeepEqual(res[0].Draws, res[1].Draws) {
		t.Errorf("GOMAXPROCS 1 and 2: stopped at %d and %d, draws equal %v", res[0].StoppedAt, res[1].StoppedAt, reflect.DeepEqual(res[0].Draws, res[1].Draws))
	}
	if at := res[0].StoppedAt; at == 0 || at >= 2000 {
		t.Errorf("stopped at %d draws per chain: want a stop well before 5000 on this easy posterior", at)
	}
}
