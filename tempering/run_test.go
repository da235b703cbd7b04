package tempering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

var allDrivers = []Driver{None, PT, TT, SPT, STT}

// TestGOMAXPROCSInvariance: the same seed gives identical draws and counters
// at GOMAXPROCS = 1 and 2.
func TestGOMAXPROCSInvariance(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, k := range []Kernel{MH{}, HMC{StepSize: 0.05, Steps: 5}} {
		for _, d := range allDrivers {
			s := &Settings{Sampler: Sampler{Driver: d, Kernel: k, Swap: DEO}, Control: Control{Chains: 3, Warmup: 50, Draws: 200, Thin: 2, Seed: 42}}
			runtime.GOMAXPROCS(1)
			r1, err := Run(context.Background(), tg, s)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GOMAXPROCS(2)
			r2, err := Run(context.Background(), tg, s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r1.Draws, r2.Draws) {
				t.Errorf("%T/%v: draws differ between GOMAXPROCS 1 and 2", k, d)
			}
			if !reflect.DeepEqual(r1.Stats, r2.Stats) {
				t.Errorf("%T/%v: stats differ between GOMAXPROCS 1 and 2", k, d)
			}
			if reflect.DeepEqual(r1.Draws[0], r1.Draws[1]) {
				t.Errorf("%T/%v: chains 0 and 1 are identical", k, d)
			}
		}
	}
}

// TestNoAllocs: once built, no driver allocates per iteration.
func TestNoAllocs(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	for _, k := range []Kernel{MH{}, HMC{StepSize: 0.05, Steps: 5, Jitter: 0.1}, HMC{StepSize: 0.05, Steps: 5, Adapt: AdaptDense}, NUTS{StepSize: 0.1, MaxTreeDepth: 6}} {
		for _, d := range allDrivers {
			for _, sched := range []SwapSchedule{Sweep, DEO} {
				// A fixed ladder: rebuilding an adapted ladder at the end
				// of a round allocates (TestNoAllocsAfterAdaptiveWarmup
				// covers sampling after it); the kernels' adaptation must
				// not.
				c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: k, Swap: sched, Ladder: LadderFixed}}, rand.New(rand.NewPCG(1, 2)), []float64{1, 0, 0})
				if err != nil {
					t.Fatal(err)
				}
				// Adaptation planned over 400 iterations: its windows and
				// metric updates fall inside the measured ones.
				c.BeginWarmup(400)
				for range 50 {
					c.Step()
				}
				if a := testing.AllocsPerRun(100, c.Step); a != 0 {
					t.Errorf("%T/%v/%v: %v allocations per warm-up iteration", k, d, sched, a)
				}
				c.EndWarmup()
				if a := testing.AllocsPerRun(100, c.Step); a != 0 {
					t.Errorf("%T/%v/%v: %v allocations per iteration", k, d, sched, a)
				}
			}
		}
	}
}

// TestEvalCounts checks the evaluation counts per level against what each
// driver must evaluate, iteration by iteration (TT and STT in Neal's form:
// TestBaseSteps counts the level-0 transitions added to it).
func TestEvalCounts(t *testing.T) {
	tg := newMVNTarget(40, 2, 1)
	const M, iters, L = 4, 100, 3
	betas, _ := Ladder(M, 1.0/8)
	sizes := SubsetSizes(betas, 40)
	for _, k := range []Kernel{MH{}, HMC{StepSize: 0.05, Steps: L}} {
		for _, d := range allDrivers {
			c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: k, Levels: M, Swap: Sweep, BaseSteps: NoBaseSteps}}, rand.New(rand.NewPCG(3, 4)), []float64{1, -0.5, 0.3})
			if err != nil {
				t.Fatal(err)
			}
			init := c.Stats().Clone()
			for range iters {
				c.Step()
			}
			st := c.Stats()
			_, hmc := k.(HMC)
			perTrans := int64(1) // evaluations per transition
			if hmc {
				perTrans = L
			}
			for m, ls := range st.Levels {
				ev := ls.Evals - init.Levels[m].Evals
				evg := ls.EvalsGrad - init.Levels[m].EvalsGrad
				trans := ls.Transitions
				var wantTrans int64
				switch {
				case d == None || d == PT || d == SPT:
					wantTrans = iters
				case m == 0:
					wantTrans = 0
				default:
					wantTrans = 2 * iters
				}
				if trans != wantTrans {
					t.Errorf("%T/%v level %d: %d transitions, want %d", k, d, m, trans, wantTrans)
				}
				// Evaluations made by the kernels themselves.
				kernelEvals := wantTrans * perTrans
				var extra int64 // evaluations made by the driver
				switch d {
				case SPT:
					// Each swap (sweep: all M pairs each iteration) evaluates
					// one likelihood at each of its two levels.
					pairs := int64(0)
					if m > 0 {
						pairs++
					}
					if m < M {
						pairs++
					}
					extra = pairs * iters
				case STT:
					// One evaluation on the way up (m ≥ 1) and one on the way
					// down (m ≤ M−1) per iteration.
					if m > 0 {
						extra += iters
					}
					if m < M {
						extra += iters
					}
				}
				if d == STT && m == 0 && evg != 0 {
					t.Errorf("%T/%v level 0: %d gradient evaluations; TT's level 0 needs values only", k, d, evg)
				}
				got := ev + evg
				if hmc && d == SPT {
					// States swapped in arrive without a gradient: HMC
					// evaluates it once before its trajectory.
					got -= evg - kernelEvals
					if evg < kernelEvals {
						t.Errorf("%T/%v level %d: %d gradient evaluations, fewer than %d", k, d, m, evg, kernelEvals)
					}
				}
				if got != kernelEvals+extra {
					t.Errorf("%T/%v level %d: %d+%d evaluations, want %d", k, d, m, ev, evg, kernelEvals+extra)
				}
				wantSize := 40
				if d.subsampled() {
					wantSize = sizes[m]
				}
				if ls.SubsetSize != wantSize {
					t.Errorf("%T/%v level %d: subset size %d, want %d", k, d, m, ls.SubsetSize, wantSize)
				}
			}
			if d.swaps() {
				for m := 1; m <= M; m++ {
					if st.SwapProposed[m-1] != iters {
						t.Errorf("%T/%v: %d swaps offered between %d and %d, want %d", k, d, st.SwapProposed[m-1], m-1, m, iters)
					}
				}
			}
			if (d == TT || d == STT) && st.TTProposed != iters {
				t.Errorf("%T/%v: %d TT proposals, want %d", k, d, st.TTProposed, iters)
			}
		}
	}
}

// TestSubsets: SPT and STT subsets are nested, of the right sizes, without
// repeats; SPT keeps them, STT redraws them.
func TestSubsets(t *testing.T) {
	tg := newMVNTarget(50, 2, 1)
	for _, d := range []Driver{SPT, STT} {
		c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: MH{}, Swap: Sweep}}, rand.New(rand.NewPCG(5, 6)), []float64{1, -0.5, 0.3})
		if err != nil {
			t.Fatal(err)
		}
		check := func() []map[int]bool {
			sets := make([]map[int]bool, len(c.dens))
			for m := range c.dens {
				sub := c.dens[m].Subset()
				if m == 0 {
					// All data: nil, or (SPT) the permutation whose
					// prefixes are the other subsets.
					if sub != nil && (d != SPT || len(sub) != 50 || &sub[0] != &subsetPerm(c)[0]) {
						t.Fatalf("%v: level 0 subset is not all data", d)
					}
					continue
				}
				sets[m] = map[int]bool{}
				for _, i := range sub {
					if sets[m][i] {
						t.Fatalf("%v: index %d repeated at level %d", d, i, m)
					}
					sets[m][i] = true
					if m > 1 && !sets[m-1][i] {
						t.Fatalf("%v: X_%d is not a subset of X_%d", d, m, m-1)
					}
				}
				if len(sub) != c.sizes[m] {
					t.Fatalf("%v: |X_%d| = %d, want %d", d, m, len(sub), c.sizes[m])
				}
			}
			return sets
		}
		before := check()
		c.Step()
		after := check()
		same := reflect.DeepEqual(before, after)
		if d == SPT && !same {
			t.Errorf("SPT subsets changed between iterations")
		}
		if d == STT && same {
			t.Errorf("STT subsets were not redrawn")
		}
	}
	if got, want := SubsetSizes([]float64{1, 0.5, 0.01}, 50), []int{50, 25, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("SubsetSizes = %v, want %v", got, want)
	}
}

// failTarget returns an error where u[0] > 1 and NaN where u[0] < −1, and
// is a standard normal otherwise.
type failTarget struct{}

func (failTarget) Dim() int    { return 1 }
func (failTarget) NumObs() int { return 10 }
func (failTarget) LogPrior(u, grad []float64) float64 {
	if grad != nil {
		grad[0] = 0
	}
	return 0
}
func (failTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	if u[0] > 1 {
		return 0, errors.New("not positive definite")
	}
	if u[0] < -1 {
		return math.NaN(), nil
	}
	if grad != nil {
		grad[0] = -u[0]
	}
	return -0.5 * u[0] * u[0], nil
}
func (f failTarget) Clone() (Target, error) { return f, nil }

// TestFailedEvaluations: errors and NaN reject the proposal, are counted,
// and no draw leaves the region where the density is defined.
func TestFailedEvaluations(t *testing.T) {
	for _, k := range []Kernel{MH{Sigma: 0.5}, HMC{StepSize: 0.2, Steps: 5}} {
		for _, d := range allDrivers {
			res, err := Run(context.Background(), failTarget{}, &Settings{Sampler: Sampler{Driver: d, Kernel: k, Swap: Sweep}, Control: Control{Warmup: NoWarmup, Draws: 500, Init: [][]float64{{0}}}})
			if err != nil {
				t.Fatal(err)
			}
			var failed, invalid int64
			for _, l := range res.Stats.Levels {
				failed += l.Failed
				invalid += l.Invalid
			}
			if failed == 0 || invalid == 0 {
				t.Errorf("%T/%v: %d failed and %d invalid evaluations counted, want both > 0", k, d, failed, invalid)
			}
			for _, ch := range res.Draws {
				for _, u := range ch {
					if !(u[0] >= -1 && u[0] <= 1) {
						t.Fatalf("%T/%v: draw %v outside the domain", k, d, u)
					}
				}
			}
		}
	}
	if _, err := Run(context.Background(), failTarget{}, &Settings{Sampler: Sampler{Driver: None, Kernel: MH{}}, Control: Control{Warmup: NoWarmup, Init: [][]float64{{2}}}}); err == nil || !strings.Contains(err.Error(), "−∞") {
		t.Errorf("start in the failing region: got error %v", err)
	}
}

// boxTarget is a standard normal likelihood under a prior that is uniform on
// [−1, 1]: log prior −∞ outside, a point of zero density, not an error.
type boxTarget struct{}

func (boxTarget) Dim() int    { return 1 }
func (boxTarget) NumObs() int { return 10 }
func (boxTarget) LogPrior(u, grad []float64) float64 {
	if grad != nil {
		grad[0] = 0
	}
	if math.Abs(u[0]) > 1 {
		return math.Inf(-1)
	}
	return 0
}
func (boxTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	if grad != nil {
		grad[0] = -u[0]
	}
	return -0.5 * u[0] * u[0], nil
}
func (b boxTarget) Clone() (Target, error) { return b, nil }

// TestZeroDensityDivergent: an HMC trajectory that leaves the support is
// rejected and counted as divergent (neither failed nor invalid: zero
// density is a legitimate value); MH just rejects such proposals.
func TestZeroDensityDivergent(t *testing.T) {
	for _, k := range []Kernel{MH{Sigma: 0.5}, HMC{StepSize: 0.3, Steps: 5}} {
		res, err := Run(context.Background(), boxTarget{}, &Settings{Sampler: Sampler{Driver: None, Kernel: k}, Control: Control{Warmup: NoWarmup, Draws: 300, Init: [][]float64{{0}}}})
		if err != nil {
			t.Fatal(err)
		}
		l := res.Stats.Levels[0]
		_, hmc := k.(HMC)
		if hmc && (l.Divergent == 0 || l.Divergent > l.Transitions-l.Accepted) {
			t.Errorf("HMC: %d divergent of %d rejected transitions, want some, at most all", l.Divergent, l.Transitions-l.Accepted)
		}
		if !hmc && l.Divergent != 0 {
			t.Errorf("MH: %d divergent transitions, want 0", l.Divergent)
		}
		if l.Failed != 0 || l.Invalid != 0 {
			t.Errorf("%T: %d failed, %d invalid evaluations, want 0 (zero density is not an error)", k, l.Failed, l.Invalid)
		}
		if l.Accepted == 0 {
			t.Errorf("%T: no proposal accepted", k)
		}
	}
}

// TestCancel: cancelling returns the draws made so far, flagged.
func TestCancel(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	res, err := Run(ctx, tg, &Settings{
		Sampler: Sampler{Driver: PT, Kernel: MH{}, Swap: Sweep},
		Control: Control{Warmup: NoWarmup, Draws: 100000, RecordTimes: true, Progress: func(c, it, total int) {
			if calls.Add(1) == 300 {
				cancel()
			}
			if total != 100000 {
				t.Errorf("progress total %d", total)
			}
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted {
		t.Fatal("not flagged as interrupted")
	}
	total := 0
	for c, d := range res.Draws {
		total += len(d)
		if len(d) >= 100000 || len(res.Times[c]) != len(d) {
			t.Errorf("chain %d: %d draws, %d times", c, len(d), len(res.Times[c]))
		}
		if res.ChainTimes[c] <= 0 {
			t.Errorf("chain %d: no compute time", c)
		}
		for i := 1; i < len(d); i++ {
			if res.Times[c][i] < res.Times[c][i-1] {
				t.Fatalf("chain %d: times decrease", c)
			}
		}
	}
	if total == 0 {
		t.Error("no draws before the interruption")
	}
	full, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: None, Kernel: MH{}}, Control: Control{Warmup: NoWarmup, Draws: 10}})
	if err != nil || full.Interrupted || len(full.Draws) != 3 || len(full.Draws[2]) != 10 {
		t.Errorf("uninterrupted run: %v, %+v", err, full)
	}
}

// cancelTarget counts its log-likelihood evaluations, cancels a context at
// the at-th and counts the evaluations after it.
type cancelTarget struct {
	Target
	calls, after *int
	at           int
	cancel       func()
}

func (c cancelTarget) LogLik(subset []int, u, grad []float64) (float64, error) {
	*c.calls++
	if *c.calls > c.at && c.at > 0 {
		*c.after++
	}
	if *c.calls == c.at {
		c.cancel()
	}
	return c.Target.LogLik(subset, u, grad)
}

func (c cancelTarget) Clone() (Target, error) { return c, nil }

// TestCancelInsideIteration: a cancellation stops a chain inside its
// iteration: no evaluation follows the one under way, and the result is
// that of a run of the completed iterations alone, draws and counts alike
// (the cut iteration's skipped evaluations are not counted as failures or
// divergences).
func TestCancelInsideIteration(t *testing.T) {
	const n = 50 // completed draws before the cut
	for _, k := range []Kernel{MH{}, HMC{StepSize: 0.05, Steps: 5}} {
		for _, d := range allDrivers {
			name := fmt.Sprintf("%T/%v", k, d)
			s := &Settings{Sampler: Sampler{Driver: d, Kernel: k, Swap: Sweep}, Control: Control{Chains: 1, Warmup: 3, Seed: 7}}
			// Evaluations to the end of draw n, and of draw n+1.
			evals := func(draws int) (int, *Result) {
				var calls, after int
				s.Draws = draws
				res, err := Run(context.Background(), cancelTarget{newMVNTarget(20, 2, 1), &calls, &after, 0, nil}, s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return calls, res
			}
			e0, want := evals(n)
			e1, _ := evals(n + 1)
			if e1-e0 < 2 {
				if _, mh := k.(MH); !mh || d != None {
					t.Errorf("%s: %d evaluations per iteration", name, e1-e0)
				}
				continue // one evaluation per iteration: nothing to cut
			}
			var calls, after int
			ctx, cancel := context.WithCancel(context.Background())
			s.Draws = 100000
			res, err := Run(ctx, cancelTarget{newMVNTarget(20, 2, 1), &calls, &after, e0 + 1, cancel}, s)
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !res.Interrupted || after != 0 || len(res.Draws[0]) != n {
				t.Errorf("%s: interrupted %v, %d draws, %d evaluations after the cancelling one; want true, %d, 0", name, res.Interrupted, len(res.Draws[0]), after, n)
			}
			if !reflect.DeepEqual(res.Draws, want.Draws) || !reflect.DeepEqual(res.ChainStats, want.ChainStats) {
				t.Errorf("%s: the result differs from a run of %d draws:\n%+v\n%+v", name, n, res.ChainStats[0], want.ChainStats[0])
			}
		}
	}
}

// TestSettingsValidation: invalid settings give errors.
func TestSettingsValidation(t *testing.T) {
	tg := newMVNTarget(10, 2, 1)
	for _, s := range []Settings{
		{Control: Control{Chains: -1}}, {Control: Control{Warmup: -2}}, {Control: Control{Draws: -2}}, {Control: Control{Thin: -1}}, {Sampler: Sampler{Levels: -2}},
		{Control: Control{Draws: 2, Thin: math.MaxInt}}, {Control: Control{Warmup: math.MaxInt - 1, Draws: 2}},
		{Sampler: Sampler{Driver: PT, BetaMin: 1.5}}, {Sampler: Sampler{Driver: PT, BetaMin: -0.1}},
		{Sampler: Sampler{Betas: []float64{0.9, 0.5}}}, {Sampler: Sampler{Betas: []float64{1, 0.5, 0.7}}}, {Sampler: Sampler{Betas: []float64{1}}}, {Sampler: Sampler{Betas: []float64{1, 0}}},
		{Sampler: Sampler{Driver: Driver(9)}}, {Sampler: Sampler{Swap: SwapSchedule(5)}},
		{Sampler: Sampler{Kernel: MH{Sigma: -1}}}, {Sampler: Sampler{Kernel: HMC{Steps: -1}}}, {Sampler: Sampler{Kernel: HMC{StepSize: -0.1}}}, {Sampler: Sampler{Kernel: HMC{Jitter: 1}}},
		{Sampler: Sampler{Kernel: HMC{TargetAccept: 1.5}}},
		{Control: Control{Init: [][]float64{{0, 0}}}}, {Control: Control{Init: [][]float64{{0, 0, 0}, {0, 0, 0}}}},
	} {
		if _, err := Run(context.Background(), tg, &s); err == nil {
			t.Errorf("settings %+v: no error", s)
		} else if !strings.HasPrefix(err.Error(), "tempering: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
	for _, s := range []string{"none", "PT", "tt", "spt", "STT"} {
		d, err := ParseDriver(s)
		if err != nil || !strings.EqualFold(d.String(), s) {
			t.Errorf("ParseDriver(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDriver("xx"); err == nil {
		t.Error("ParseDriver accepted xx")
	}
	if s, err := ParseSwapSchedule("DEO"); err != nil || s != DEO {
		t.Errorf("ParseSwapSchedule(DEO) = %v, %v", s, err)
	}
	b, err := Ladder(6, 1.0/8)
	if err != nil || len(b) != 7 || b[0] != 1 || b[6] != 1.0/8 || math.Abs(b[2]-0.5) > 1e-15 {
		t.Errorf("Ladder(6, 1/8) = %v, %v", b, err)
	}
}

// TestAdaptation: dual averaging moves a poor step size towards the target
// acceptance during warm-up and freezes it afterwards.
func TestAdaptation(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: None, Kernel: HMC{StepSize: 0.001, Steps: 5, Adapt: AdaptStep}}}, rand.New(rand.NewPCG(1, 1)), []float64{1, -0.5, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	c.BeginWarmup(1000)
	for range 1000 {
		c.Step()
	}
	c.EndWarmup()
	var infoEps float64
	l := c.kern[0].(*hmcLevel)
	eps := l.eps
	for range 2000 {
		c.Step()
	}
	if l.eps != eps {
		t.Errorf("step size changed after warm-up: %v → %v", eps, l.eps)
	}
	infoEps = eps
	ls := c.Stats().Levels[0]
	rate := float64(ls.Accepted) / float64(ls.Transitions)
	t.Logf("adapted ε = %.4f, overall acceptance %.2f", infoEps, rate)
	if eps < 0.01 || rate < 0.6 || rate > 0.95 {
		t.Errorf("adapted ε = %v, acceptance %v: not adapted towards 0.8", eps, rate)
	}
}

// TestBaseSteps: TT and STT run Settings.BaseSteps level-0 transitions per
// iteration, one by default and none with NoBaseSteps.
func TestBaseSteps(t *testing.T) {
	tg := newMVNTarget(40, 2, 1)
	for _, d := range []Driver{TT, STT} {
		for base, want := range map[int]int64{NoBaseSteps: 0, 0: 1, 2: 2} {
			c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: HMC{StepSize: 0.05, Steps: 3}, BaseSteps: base}}, rand.New(rand.NewPCG(1, 1)), []float64{0.1, 0.2, 0.3})
			if err != nil {
				t.Fatal(err)
			}
			for range 50 {
				c.Step()
			}
			if got, want := c.Stats().Levels[0].Transitions, 50*want; got != want {
				t.Errorf("%v base %d: %d level-0 transitions, want %d", d, base, got, want)
			}
		}
	}
	if _, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: TT, BaseSteps: -2}}, rand.New(rand.NewPCG(1, 1)), []float64{0, 0, 0}); err == nil {
		t.Error("BaseSteps −2 accepted")
	}
}
