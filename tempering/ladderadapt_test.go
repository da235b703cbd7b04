package tempering

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// spread returns max − min of x.
func spread(x []float64) float64 { return slices.Max(x) - slices.Min(x) }

// TestRoundEnds: rounds of 8, 16, … fill the first half of warm-up, and
// too short a warm-up adapts nothing.
func TestRoundEnds(t *testing.T) {
	for _, c := range []struct {
		w    int
		want []int
	}{
		{0, nil}, {47, nil}, {48, []int{8, 24}}, {50, []int{8, 25}},
		{500, []int{8, 24, 56, 120, 250}}, {1000, []int{8, 24, 56, 120, 500}},
	} {
		if got := roundEnds(c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("roundEnds(%d) = %v, want %v", c.w, got, c.want)
		}
	}
}

// TestNestedSizes: subset sizes decrease strictly from N to the hottest
// size, near round(x_m·N), with levels dropped when N is too small.
func TestNestedSizes(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		n    int
		last int
		want []int
	}{
		{[]float64{1, 0.5, 0.25, 0.125}, 64, 8, []int{64, 32, 16, 8}},
		// ties after rounding are pushed apart
		{[]float64{1, 0.99, 0.98, 0.5}, 10, 5, []int{10, 9, 8, 5}},
		{[]float64{1, 0.2, 0.19, 0.18, 0.1}, 20, 2, nil}, // only checked for order
		// too few observations for M = 4: M becomes N − N_M = 2
		{[]float64{1, 0.8, 0.6, 0.4, 0.2}, 3, 1, []int{3, 2, 1}},
		{[]float64{1, 0.5}, 1, 1, []int{1}},
	} {
		got := nestedSizes(c.x, c.n, c.last)
		if len(c.want) > 0 && !reflect.DeepEqual(got, c.want) {
			t.Errorf("nestedSizes(%v, %d, %d) = %v, want %v", c.x, c.n, c.last, got, c.want)
		}
		if got[0] != c.n {
			t.Errorf("nestedSizes(%v, %d, %d) = %v: N_0 ≠ N", c.x, c.n, c.last, got)
		}
		for m := 1; m < len(got); m++ {
			if !(got[m] < got[m-1]) || got[m] < 1 {
				t.Errorf("nestedSizes(%v, %d, %d) = %v: not strictly decreasing and ≥ 1", c.x, c.n, c.last, got)
			}
		}
	}
}

// TestProposeLadderM: with M free, the chosen M grows with the barrier:
// ⌈2Λ⌉ for PT and SPT, ⌈S²/2⌉ for TT and STT, capped; a fixed M is kept;
// and the new ladder gives every interval the same interpolated cost.
func TestProposeLadderM(t *testing.T) {
	x := []float64{1, 0.5, 0.25, 0.125}
	cnt := []float64{100, 100, 100}
	prev := 0
	for _, r := range []float64{0.1, 0.3, 0.6, 0.9} {
		// acceptance 1 − r at every pair: Λ = 3r
		sum := []float64{100 * (1 - r), 100 * (1 - r), 100 * (1 - r)}
		p, ok := proposeFor(t, PT, x, 0, sum, make([]float64, 3), cnt, 0, 32)
		if !ok {
			t.Fatal("no proposal")
		}
		M := len(p.betas) - 1
		if want := max(1, int(math.Ceil(2*3*r))); M != want || math.Abs(p.barrier-3*r) > 1e-12 {
			t.Errorf("Λ = %v: M = %d (barrier %v), want %d", 3*r, M, p.barrier, want)
		}
		if M < prev {
			t.Errorf("M fell from %d to %d as Λ grew", prev, M)
		}
		prev = M
		if p.betas[0] != 1 || p.betas[M] != 0.125 {
			t.Errorf("ends moved: %v", p.betas)
		}
	}
	// Equal rejection at geometric spacing: the new ladder stays geometric.
	sum := []float64{50, 50, 50}
	p, _ := proposeFor(t, PT, x, 0, sum, make([]float64, 3), cnt, 3, 32)
	for m, b := range p.betas {
		if math.Abs(b-math.Pow(0.125, float64(m)/3)) > 1e-12 {
			t.Errorf("equal costs: ladder %v, want geometric", p.betas)
			break
		}
	}
	// All the barrier in the coldest pair: the new levels crowd into it.
	sum = []float64{10, 100, 100}
	p, _ = proposeFor(t, PT, x, 0, sum, make([]float64, 3), cnt, 3, 32)
	if !(p.betas[2] > 0.5) {
		t.Errorf("barrier in (0.5, 1): ladder %v should place two levels above 0.5", p.betas)
	}
	// TT: sd 1 per level, S = 3: M = ⌈9/2⌉ = 5; S = 12 caps at 5.
	tsum := []float64{0, 0, 0}
	tsq := []float64{99, 99, 99} // variance 99/99 = 1 with n = 100, mean 0
	p, _ = proposeFor(t, TT, x, 0, tsum, tsq, cnt, 0, 32)
	if M := len(p.betas) - 1; M != 5 || math.Abs(p.logRatioVar-3) > 1e-9 {
		t.Errorf("TT S = 3: M = %d, Σ var = %v; want 5, 3", M, p.logRatioVar)
	}
	tsq = []float64{99 * 16, 99 * 16, 99 * 16}
	p, _ = proposeFor(t, TT, x, 0, tsum, tsq, cnt, 0, 5)
	if M := len(p.betas) - 1; M != 5 {
		t.Errorf("TT S = 12, cap 5: M = %d", M)
	}
	// STT keeps M and equalises variances (cumulated, not their square
	// roots): variances 1, 1, 4 → the hottest interval is split in two.
	p, _ = proposeFor(t, STT, []float64{1, 0.5, 0.25, 0.125}, 64, tsum, []float64{99, 99, 396}, cnt, 0, 32)
	if M := len(p.sizes) - 1; M != 3 || p.sizes[1] > 32 || p.sizes[2] < 9 || math.Abs(p.logRatioVar-6) > 1e-9 {
		t.Errorf("STT proposal sizes %v, Σ var %v: want M = 3, levels moved hotter, Σ var 6", p.sizes, p.logRatioVar)
	}
	// SPT: strictly decreasing sizes, betas N_m/N.
	p, _ = proposeFor(t, SPT, []float64{1, 0.5, 0.25, 0.125}, 64, []float64{10, 90, 90}, make([]float64, 3), cnt, 0, 32)
	for m := 1; m < len(p.sizes); m++ {
		if !(p.sizes[m] < p.sizes[m-1]) || p.betas[m] != float64(p.sizes[m])/64 {
			t.Errorf("SPT proposal sizes %v betas %v", p.sizes, p.betas)
		}
	}
	if p.sizes[0] != 64 || p.sizes[len(p.sizes)-1] != 8 {
		t.Errorf("SPT proposal moved the ends: %v", p.sizes)
	}
	// No offers at all: no proposal.
	if _, ok := proposeFor(t, PT, x, 0, make([]float64, 3), make([]float64, 3), make([]float64, 3), 0, 32); ok {
		t.Error("proposal from an empty round")
	}
}

// TestLadderEqualisesSwapRates: on an MVN posterior with β* = 10⁻³ the
// hot levels are prior-dominated, so a geometric ladder has nearly free
// swaps at the hot end and costly ones at the cold end; the adapted
// ladder (same M) brings the pairs' sampling-phase swap rates together.
func TestLadderEqualisesSwapRates(t *testing.T) {
	tg := newMVNTarget(30, 1, 1)
	var spreads [2]float64
	for i, mode := range []LadderMode{LadderFixed, LadderAdaptive} {
		res, err := Run(context.Background(), tg, &Settings{
			Sampler: Sampler{Driver: PT, Kernel: HMC{StepSize: 0.3, Steps: 5, Jitter: 0.2}, Swap: DEO, Ladder: mode, Levels: 6, BetaMin: 1e-3},
			Control: Control{Chains: 2, Warmup: 400, Draws: 1500, Seed: 3},
		})
		if err != nil {
			t.Fatal(err)
		}
		spreads[i] = spread(res.Ladder.SwapRates)
		t.Logf("%v: betas %.4f swap rates %.2f Λ %.2f", mode, res.Ladder.Betas, res.Ladder.SwapRates, res.Ladder.Barrier)
		if mode == LadderAdaptive && (!res.Ladder.Adaptive || res.Ladder.Rounds != 4) {
			t.Errorf("ladder not adapted: %+v", res.Ladder)
		}
	}
	if !(spreads[0] > 0.4 && spreads[1] < 0.2) {
		t.Errorf("swap-rate spread %.2f (geometric) → %.2f (adapted); want > 0.4 → < 0.2", spreads[0], spreads[1])
	}
}

// exactBarrier returns Λ = ∫_{β*}^1 λ(β) dβ for PT on tg, with
// λ(β) = ½ E|ℓ(X) − ℓ(Y)|, X, Y independent draws of the tempered
// posterior π_β (Syed et al. 2021, eq. 7), here Gaussian and known: the
// expectation by Monte Carlo with exact draws, the integral by the
// midpoint rule on a grid in log β.
func exactBarrier(tg *mvnTarget, betaMin float64, grid, draws int) float64 {
	rng := rand.New(rand.NewPCG(5, 5))
	D := tg.Dim()
	x, y, z := make([]float64, D), make([]float64, D), make([]float64, D)
	draw := func(mean, L, dst []float64) {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		for i := range D {
			dst[i] = mean[i]
			for j := 0; j <= i; j++ {
				dst[i] += L[i*D+j] * z[j]
			}
		}
	}
	total := 0.0
	h := -math.Log(betaMin) / float64(grid)
	for g := range grid {
		beta := math.Exp(-(float64(g) + 0.5) * h)
		mean, cov := tg.posterior(nil, beta)
		L := make([]float64, D*D)
		if !cholesky(cov, L, D) {
			panic("ladder test: posterior covariance not positive definite")
		}
		s := 0.0
		for range draws {
			draw(mean, L, x)
			draw(mean, L, y)
			lx, _ := tg.LogLik(nil, x, nil)
			ly, _ := tg.LogLik(nil, y, nil)
			s += math.Abs(lx - ly)
		}
		total += 0.5 * s / float64(draws) * beta * h // dβ = β d(log β)
	}
	return total
}

// TestBarrierEstimate: the global communication barrier that an adapted
// PT run reports (from its sampling-phase swap rates, and from its last
// warm-up round) agrees within 15% (20%) with the exact Λ of the Gaussian
// tempered posteriors (exactBarrier), and the M it chooses is ⌈2Λ⌉ up
// to the estimate's noise; a ladder reaching hotter (β* = 10⁻³ instead
// of 1/8) has a larger barrier and gets more levels. (For a Gaussian
// likelihood that dominates the prior, λ(β) ∝ √D/β: Λ grows with
// log(1/β*) and the dimension, not with N.)
func TestBarrierEstimate(t *testing.T) {
	prevM := 0
	tg := newMVNTarget(100, 2, 1)
	for _, bmin := range []float64{1.0 / 8, 1e-3} {
		want := exactBarrier(tg, bmin, 32, 1500)
		res, err := Run(context.Background(), tg, &Settings{
			Sampler: Sampler{Driver: PT, Kernel: HMC{StepSize: 0.05, Steps: 5, Jitter: 0.2}, Swap: DEO, BetaMin: bmin, Levels: LevelsFromBarrier},
			Control: Control{Chains: 2, Warmup: 400, Draws: 2000, Seed: 11},
		})
		if err != nil {
			t.Fatal(err)
		}
		li := res.Ladder
		M := len(li.Betas) - 1
		t.Logf("β* = %g: exact Λ %.3f, sampling estimate %.3f, warm-up estimate %.3f, M = %d, swap rates %.2f", bmin, want, li.Barrier, li.WarmupBarrier, M, li.SwapRates)
		// Σ_m r_m underestimates Λ at a finite spacing (a pair's
		// rejection grows less than linearly with its gap): about 8% at
		// rejection rates near 0.45 here.
		if math.Abs(li.Barrier-want) > 0.15*want || math.Abs(li.WarmupBarrier-want) > 0.2*want {
			t.Errorf("β* = %g: Λ estimates %.3f (sampling), %.3f (warm-up), exact %.3f", bmin, li.Barrier, li.WarmupBarrier, want)
		}
		if lo, hi := int(math.Ceil(2*0.8*want)), int(math.Ceil(2*want)); M < lo || M > hi {
			t.Errorf("β* = %g: M = %d, want ⌈2Λ⌉ ∈ [%d, %d]", bmin, M, lo, hi)
		}
		if M <= prevM {
			t.Errorf("M = %d at β* = %g does not exceed the smaller barrier's %d", M, bmin, prevM)
		}
		prevM = M
	}
}

// TestAdaptiveSubsets: after an adaptive SPT and STT warm-up the subset
// sizes decrease strictly, the hottest stays round(β*·N), and the chain's
// subsets are nested prefixes of one permutation.
func TestAdaptiveSubsets(t *testing.T) {
	tg := newMVNTarget(40, 2, 1)
	for _, d := range []Driver{SPT, STT} {
		c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: HMC{StepSize: 0.1, Steps: 4}, Swap: DEO}}, rand.New(rand.NewPCG(1, 3)), []float64{1, -0.5, 0.3})
		if err != nil {
			t.Fatal(err)
		}
		c.BeginWarmup(200)
		for range 200 {
			c.Step()
		}
		c.EndWarmup()
		c.Step()
		sz := c.SubsetSizes()
		if c.lad == nil || c.lad.round != len(roundEnds(200)) {
			t.Fatalf("%v: ladder not adapted", d)
		}
		if sz[0] != 40 || sz[len(sz)-1] != 5 {
			t.Errorf("%v: sizes %v: ends should stay 40 and 5", d, sz)
		}
		for m := 1; m < len(sz); m++ {
			if !(sz[m] < sz[m-1]) {
				t.Errorf("%v: sizes %v not strictly decreasing", d, sz)
			}
			if got := c.dens[m].Subset(); len(got) != sz[m] || &got[0] != &subsetPerm(c)[0] {
				t.Errorf("%v: level %d's subset is not the prefix perm[:%d]", d, m, sz[m])
			}
			if b := c.Betas()[m]; b != float64(sz[m])/40 {
				t.Errorf("%v: β_%d = %v, want N_m/N = %v", d, m, b, float64(sz[m])/40)
			}
		}
		t.Logf("%v: sizes %v", d, sz)
	}
}

// TestAdaptiveLadderDeterministic: with the ladder adapted (pooled over
// chains), the draws, counters, ladder and tunings are the same at
// GOMAXPROCS 1 and 2, for every tempered driver.
func TestAdaptiveLadderDeterministic(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, d := range []Driver{PT, TT, SPT, STT} {
		s := &Settings{Sampler: Sampler{Driver: d, Kernel: HMC{StepSize: 0.05, Steps: 5, Adapt: AdaptDiag}, Swap: DEO}, Control: Control{Chains: 3, Warmup: 120, Draws: 100, Seed: 42}}
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
		if !r1.Ladder.Adaptive || r1.Ladder.Rounds != 3 {
			t.Errorf("%v: ladder not adapted: %+v", d, r1.Ladder)
		}
		if !reflect.DeepEqual(r1.Draws, r2.Draws) || !reflect.DeepEqual(r1.Stats, r2.Stats) ||
			!reflect.DeepEqual(r1.Betas, r2.Betas) || !reflect.DeepEqual(r1.Tunings, r2.Tunings) {
			t.Errorf("%v: results differ between GOMAXPROCS 1 and 2", d)
		}
		for c := range r1.ChainStats {
			if !reflect.DeepEqual(r1.ChainStats[c].Levels[0].Beta, 1.0) || len(r1.ChainStats[c].Levels) != len(r1.Betas) {
				t.Errorf("%v: chain %d's counters do not match the shared ladder", d, c)
			}
		}
	}
}

// TestNoAllocsAfterAdaptiveWarmup: a chain whose warm-up rebuilt its
// ladder does not allocate per iteration once warm-up is over.
func TestNoAllocsAfterAdaptiveWarmup(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	for _, k := range []Kernel{MH{}, HMC{StepSize: 0.05, Steps: 5, Adapt: AdaptDiag}} {
		for _, d := range []Driver{PT, TT, SPT, STT} {
			c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: k, Swap: DEO}}, rand.New(rand.NewPCG(1, 2)), []float64{1, 0, 0})
			if err != nil {
				t.Fatal(err)
			}
			c.BeginWarmup(100)
			for range 100 {
				c.Step()
			}
			c.EndWarmup()
			if c.lad.round != len(roundEnds(100)) || len(c.Stats().Retired) == 0 {
				t.Errorf("%T/%v: ladder not rebuilt in warm-up", k, d)
			}
			c.Step()
			if a := testing.AllocsPerRun(100, c.Step); a != 0 {
				t.Errorf("%T/%v: %v allocations per iteration after an adaptive warm-up", k, d, a)
			}
		}
	}
}

// TestFixedLadder: LadderFixed and an explicit Betas keep the ladder.
func TestFixedLadder(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	for _, s := range []Settings{
		{Sampler: Sampler{Driver: PT, Kernel: MH{}, Swap: Sweep, Ladder: LadderFixed, Levels: 4}},
		{Sampler: Sampler{Driver: SPT, Kernel: MH{}, Swap: Sweep, Betas: []float64{1, 0.5, 0.25}}},
	} {
		s.Warmup, s.Draws, s.Chains = 200, 10, 2
		res, err := Run(context.Background(), tg, &s)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := s.resolve()
		if res.Ladder.Adaptive || !reflect.DeepEqual(res.Betas, want.Betas) || len(res.Stats.Retired) != 0 {
			t.Errorf("%+v: ladder changed: %v", s, res.Ladder)
		}
	}
	if m, err := ParseLadderMode("FIXED"); err != nil || m != LadderFixed || m.String() != "fixed" {
		t.Errorf("ParseLadderMode(FIXED) = %v, %v", m, err)
	}
}

// TestWarmupBaseStep: with NoBaseSteps, TT and STT still run one
// level-0 transition per warm-up iteration once BeginWarmup is called
// (so that the chain leaves a poor starting point even when no
// tempered transition is accepted), and none after warm-up.
func TestWarmupBaseStep(t *testing.T) {
	tg := newMVNTarget(40, 2, 1)
	for _, d := range []Driver{TT, STT} {
		// A starting point far out in the tail, a ladder too coarse for
		// tempered transitions to be accepted from there.
		c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: d, Kernel: HMC{StepSize: 0.1, Steps: 5}, Ladder: LadderFixed, Levels: 1, BetaMin: 1e-3, BaseSteps: NoBaseSteps}},
			rand.New(rand.NewPCG(1, 4)), []float64{4, 4, 4})
		if err != nil {
			t.Fatal(err)
		}
		c.BeginWarmup(100)
		for range 100 {
			c.Step()
		}
		c.EndWarmup()
		lv0 := c.Stats().Levels[0].Transitions
		if lv0 != 100 {
			t.Errorf("%v: %d level-0 transitions in 100 warm-up iterations, want 100", d, lv0)
		}
		if u := c.Position(); math.Abs(u[0]-1) > 1 {
			t.Errorf("%v: after warm-up the chain is at %v, still near its start", d, u)
		}
		for range 10 {
			c.Step()
		}
		if got := c.Stats().Levels[0].Transitions; got != lv0 {
			t.Errorf("%v: %d level-0 transitions after warm-up with NoBaseSteps", d, got-lv0)
		}
	}
}

// TestScaleTuning: a tuning moved to a level with a different annealing
// parameter keeps MH's rule σ_m = σ·β_m^{-1/2}.
func TestScaleTuning(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	c, err := NewChain(tg, &Settings{Sampler: Sampler{Driver: PT, Kernel: MH{Sigma: 0.2, Adapt: AdaptNone}, Swap: DEO}}, rand.New(rand.NewPCG(1, 2)), []float64{1, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	c.BeginWarmup(100)
	for range 100 {
		c.Step()
	}
	for m, tu := range c.Tunings() {
		if want := 0.2 / math.Sqrt(c.Betas()[m]); math.Abs(tu.StepSize-want) > 1e-12*want {
			t.Errorf("level %d (β %v): MH scale %v, want %v", m, c.Betas()[m], tu.StepSize, want)
		}
	}
	tu := scaleTuning(Tuning{StepSize: 0.1, InvMetric: []float64{1, 2}}, 4)
	if tu.StepSize != 0.1 || tu.InvMetric[0] != 4 || tu.InvMetric[1] != 8 {
		t.Errorf("scaleTuning with a metric: %+v", tu)
	}
}

// proposeFor is proposeLadder with the path and scheme of driver d.
func proposeFor(t *testing.T, d Driver, x []float64, n int, sum, sq, cnt []float64, fixedM, maxM int) (ladderProposal, bool) {
	t.Helper()
	p, s, err := newPathScheme(&Settings{Sampler: Sampler{Driver: d}}, 1, max(n, 1))
	if err != nil {
		t.Fatal(err)
	}
	return proposeLadder(p, s, x, n, sum, sq, cnt, fixedM, maxM)
}

// subsetPerm returns the permutation whose prefixes are c's subsets.
func subsetPerm(c *Chain) []int { return c.path.(*subsetPath).perm }
