package tempering

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/subtemper/subtemper/gp"
)

// exactCase is one kernel × driver configuration of the exactness test.
type exactCase struct {
	name   string
	kernel Kernel
	driver Driver
	sched  SwapSchedule
	base   int // Settings.BaseSteps
	draws  int
	ladder LadderMode
	warm   bool // start from FindMode's warm start (WarmStart.Apply)
	// transform, if non-nil, is Settings.Transform (set before Apply).
	transform Transform
	// fit makes the kernel WarmStart.FitProposal's independence kernel
	// (in transform's space), fitted before Apply, with local random-walk
	// steps.
	fit   bool
	local int
	// wide is the fitted kernel's Independence.Wide.
	wide float64
	// split fits the proposal as a split-t (ProposalOptions.Split).
	split bool
	// surrogate makes the fitted kernel SurrogateTransition on the
	// proposal's surrogate instead.
	surrogate bool
	// screen makes the fitted independence kernel screen its proposals
	// on the proposal's surrogate (Independence.Screen).
	screen bool
	// variant, if set, makes the chains a broken variant
	// (Settings.variant).
	variant func(path, scheme) (path, scheme)
	// raceDraws is the number of draws under the race detector, which
	// slows sampling about twentyfold; zero means draws/20.
	raceDraws int
}

func exactCases() []exactCase {
	// MH, HMC and NUTS adapt during the 500 warm-up iterations (step size
	// or scale and diagonal metric or proposal sd, the zero value's) and
	// sample with frozen tuning.
	mh := MH{Sigma: 0.15, Steps: 2}
	hmc := HMC{StepSize: 0.05, Steps: 6, Jitter: 0.2, Adapt: AdaptDiag}
	// The default kernel's shape: HMC at the target, MH above it.
	hot := PerLevel{Target: hmc, Hot: MH{}}
	var cs []exactCase
	for _, k := range []struct {
		name  string
		k     Kernel
		draws int
	}{{"mh", mh, 30000}, {"hmc", hmc, 6000}, {"nuts", NUTS{}, 3000}, {"hmc+mh", hot, 6000}} {
		for _, d := range []Driver{None, PT, TT, SPT, STT} {
			cs = append(cs, exactCase{name: k.name + "/" + d.String(), kernel: k.k, driver: d, sched: Sweep, draws: k.draws})
		}
		for _, d := range []Driver{PT, SPT} {
			cs = append(cs, exactCase{name: k.name + "/" + d.String() + "-deo", kernel: k.k, driver: d, sched: DEO, draws: k.draws})
		}
		// STT in Neal's form: level 0 moves only through tempered
		// transitions (the cases above run one ordinary level-0
		// transition after each, the default).
		cs = append(cs, exactCase{name: k.name + "/stt-neal", kernel: k.k, driver: STT, sched: Sweep, base: NoBaseSteps, draws: k.draws})
	}
	// The paper's fixed HMC and MH, and dense metrics.
	for _, d := range []Driver{None, PT, STT} {
		cs = append(cs,
			exactCase{name: "mh-fixed/" + d.String(), kernel: MH{Sigma: 0.15, Adapt: AdaptNone}, driver: d, sched: Sweep, draws: 30000},
			exactCase{name: "hmc-fixed/" + d.String(), kernel: HMC{StepSize: 0.05, Steps: 6, Jitter: 0.2, Adapt: AdaptNone}, driver: d, sched: Sweep, draws: 6000},
			exactCase{name: "hmc-dense/" + d.String(), kernel: HMC{Steps: 6, Jitter: 0.2, Adapt: AdaptDense}, driver: d, sched: Sweep, draws: 6000},
			exactCase{name: "nuts-dense/" + d.String(), kernel: NUTS{Adapt: AdaptDense}, driver: d, sched: Sweep, draws: 3000})
	}
	// The large-fit path: the warm start (over-dispersed starts around the
	// mode, the Laplace covariance as a fixed dense metric, step-only
	// adaptation over the short warm-up), with its default kernel (HMC of
	// fixed integration time, MH above) and with NUTS.
	for _, d := range []Driver{None, PT, SPT} {
		cs = append(cs, exactCase{name: "warm/" + d.String(), driver: d, sched: DEO, draws: 6000, warm: true})
	}
	cs = append(cs, exactCase{name: "warm-nuts/none", kernel: NUTS{}, driver: None, draws: 3000, warm: true})
	// Independence MH from the Laplace approximation: alone, and at the
	// target level under PT; and from a proposal that fits badly (too
	// narrow and shifted), whose chain is slower but still exact.
	for _, d := range []Driver{None, PT} {
		cs = append(cs, exactCase{name: "warm-imh/" + d.String(), kernel: PerLevel{Target: Independence{}, Hot: MH{}}, driver: d, sched: DEO, draws: 6000, warm: true})
	}
	// Chains that move in another space (Settings.Transform): the GP's
	// variance split on the last two coordinates after the warm start (as
	// large fits run), under SPT too, and a map with a Jacobian that is
	// not constant.
	cs = append(cs,
		exactCase{name: "warm-split/none", driver: None, draws: 6000, warm: true, transform: gp.VarianceSplit{}},
		exactCase{name: "warm-split/spt", driver: SPT, sched: DEO, draws: 6000, warm: true, transform: gp.VarianceSplit{}},
		exactCase{name: "sinh/none", kernel: hmc, driver: None, draws: 6000, transform: sinhFirst{}},
		// Independence MH from a proposal fitted by importance sampling,
		// in the split space, as large fits run on a posterior it suits.
		exactCase{name: "warm-fit-imh/none", driver: None, draws: 6000, warm: true, fit: true, transform: gp.VarianceSplit{}},
		exactCase{name: "warm-fit-imh-local/none", driver: None, draws: 6000, warm: true, fit: true, local: 2, transform: gp.VarianceSplit{}},
		exactCase{name: "warm-fit-imh-wide/none", driver: None, draws: 6000, warm: true, fit: true, local: 1, wide: 0.15, transform: gp.VarianceSplit{}},
		exactCase{name: "warm-fit-imh-screen/none", driver: None, draws: 6000, warm: true, fit: true, screen: true, transform: gp.VarianceSplit{}})
	// The variance split with b's left tail compressed, centred above the
	// posterior's mean of b (1.37, sd 0.36) with a smaller scale, so that
	// the sinh side and its log cosh Jacobian carry most of the mass:
	// HMC in its space, and the fitted independence sampler as large
	// fits would run it.
	tail := gp.VarianceSplitTail{Center: 1.6, Scale: 0.2}
	cs = append(cs,
		exactCase{name: "tail-split/none", kernel: hmc, driver: None, draws: 6000, transform: tail},
		exactCase{name: "warm-fit-imh-tail/none", driver: None, draws: 6000, warm: true, fit: true, local: 1, wide: 0.15, transform: tail})
	cs = append(cs, exactCase{name: "imh-misfit/none", kernel: Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, DF: 4}, driver: None, draws: 30000},
		exactCase{name: "warm-fit-imh-split/none", driver: None, draws: 6000, warm: true, fit: true, split: true, local: 1, wide: 0.15, transform: gp.VarianceSplit{}},
		exactCase{name: "imh-misfit-split/none", kernel: Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, Split: []float64{0.6, 1.5, 1.2, 0.8, 1, 2}, DF: 4}, driver: None, draws: 30000},
		exactCase{name: "imh-misfit-wide/none", kernel: Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, DF: 4, Wide: 0.3, WideScale: 9}, driver: None, draws: 30000},
		// Delayed acceptance on a screen fitted to the wrong density.
		exactCase{name: "imh-misfit-screen/none", kernel: Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, DF: 4, Local: 1, Screen: misfitSurrogate()}, driver: None, draws: 30000})
	// Surrogate transitions: on the surrogate fitted with the proposal, as
	// large fits run, and on one fitted to a wrong density (shifted and
	// too narrow), whose chain is slower but still exact.
	cs = append(cs,
		exactCase{name: "warm-fit-sur/none", driver: None, draws: 6000, warm: true, fit: true, surrogate: true, transform: gp.VarianceSplit{}},
		exactCase{name: "sur-misfit/none", kernel: SurrogateTransition{Surrogate: misfitSurrogate()}, driver: None, draws: 6000},
		exactCase{name: "sur-misfit-local/none", kernel: SurrogateTransition{Surrogate: misfitSurrogate(), Steps: 10, Independent: -1, Local: 1}, driver: None, draws: 6000},
		exactCase{name: "sur-misfit-near/none", kernel: SurrogateTransition{Surrogate: misfitSurrogate(), Near: 0.5}, driver: None, draws: 6000})
	return cs
}

// checkExact runs c on the MVN target and compares the draws' means,
// variances and two covariances with the analytic full-data posterior.
// It returns one line per statistic that is more than 4 MCSE off, and a
// summary of the largest deviation.
func checkExact(tg *mvnTarget, c exactCase, seed uint64) (fails []string, summary string, err error) {
	if raceEnabled {
		c.draws /= 20
		if c.raceDraws > 0 {
			c.draws = c.raceDraws
		}
	}
	s := &Settings{
		Sampler: Sampler{Driver: c.driver, Kernel: c.kernel, Swap: c.sched, BaseSteps: c.base, Ladder: c.ladder, Levels: LevelsFromBarrier, Transform: c.transform},
		Control: Control{Chains: 3, Warmup: 500, Draws: c.draws, Seed: seed},
		variant: c.variant,
	}
	if c.warm {
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: seed})
		if err != nil {
			return nil, "", err
		}
		s.Warmup = 0
		if c.fit {
			p, err := ws.FitProposal(context.Background(), tg, ProposalOptions{Seed: seed, Transform: c.transform, Surrogate: c.surrogate || c.screen, Split: c.split})
			if err != nil {
				return nil, "", err
			}
			k := p.Kernel()
			k.Local, k.Wide = c.local, c.wide
			if c.screen {
				k.Screen = p.Surrogate
			}
			s.Kernel = k
			if c.surrogate {
				s.Kernel = SurrogateTransition{Surrogate: p.Surrogate}
			}
		}
		ws.Apply(s)
	}
	res, err := Run(context.Background(), tg, s)
	if err != nil {
		return nil, "", err
	}
	// Warmup 500 with the zero Settings.Ladder: every tempered driver
	// samples on a ladder that warm-up adapted (and then froze).
	if c.driver != None && c.ladder == LadderAdaptive && !res.Ladder.Adaptive {
		return nil, "", fmt.Errorf("%s: the ladder was not adapted during warm-up", c.name)
	}
	mean, cov := tg.posterior(nil, 1)
	D := tg.Dim()
	type stat struct {
		name  string
		f     func(u []float64) float64
		exact float64
	}
	var stats []stat
	for i := range D {
		stats = append(stats, stat{fmt.Sprintf("mean[%d]", i), func(u []float64) float64 { return u[i] }, mean[i]})
	}
	for _, p := range [][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}} {
		i, j := p[0], p[1]
		stats = append(stats, stat{fmt.Sprintf("cov[%d,%d]", i, j), func(u []float64) float64 {
			return (u[i] - mean[i]) * (u[j] - mean[j])
		}, cov[i*D+j]})
	}
	worst, worstName, minESS := 0.0, "", math.Inf(1)
	for _, st := range stats {
		series := make([][]float64, len(res.Draws))
		for ch, dr := range res.Draws {
			series[ch] = make([]float64, len(dr))
			for s, u := range dr {
				series[ch][s] = st.f(u)
			}
		}
		m, se, ess := batchMeans(series)
		z := (m - st.exact) / se
		minESS = min(minESS, ess)
		if math.Abs(z) > math.Abs(worst) {
			worst, worstName = z, st.name
		}
		if math.Abs(z) > 4 {
			fails = append(fails, fmt.Sprintf("%s = %.4f, exact %.4f, MCSE %.4f (ESS %.0f): off by %.1f MCSE", st.name, m, st.exact, se, ess, z))
		}
	}
	summary = fmt.Sprintf("worst %s at %+.2f MCSE, min ESS %.0f, ladder %.3f", worstName, worst, minESS, res.Betas)
	return fails, summary, nil
}

// TestExactness checks every kernel × driver against the analytic MVN
// posterior within 4 Monte-Carlo standard errors, sampling after a
// warm-up that adapted the ladder.
func TestExactness(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	for _, c := range exactCases() {
		t.Run(c.name, func(t *testing.T) {
			fails, summary, err := checkExact(tg, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(summary)
			for _, f := range fails {
				t.Error(f)
			}
		})
	}
}

// TestExactnessDetectsBrokenRatio shows that TestExactness can fail: with
// a term deliberately dropped from an acceptance ratio (a broken variant
// of the chains that only tests build, below), the same check
// reports deviations beyond 4 MCSE, under the race detector's shorter
// runs too.
func TestExactnessDetectsBrokenRatio(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	for _, b := range []struct {
		name    string
		variant func(path, scheme) (path, scheme)
		c       exactCase
	}{
		{"tt-drop-h0(θ̌0)", withRatio(dropDescentLower{level: 1}), exactCase{name: "mh/tt", kernel: MH{Sigma: 0.15, Adapt: AdaptNone}, driver: TT, sched: Sweep, draws: 30000}},
		{"stt-drop-h0(θ̌0)", withRatio(dropDescentLower{level: 1}), exactCase{name: "mh/stt", kernel: MH{Sigma: 0.15, Adapt: AdaptNone}, driver: STT, sched: Sweep, draws: 30000}},
		{"pt-drop-lower-level", withRatio(dropSwapLower{level: 1}), exactCase{name: "mh/pt", kernel: MH{Sigma: 0.15, Adapt: AdaptNone}, driver: PT, sched: Sweep, draws: 30000}},
		{"spt-stale-cache", withStaleSwaps, exactCase{name: "mh/spt", kernel: MH{Sigma: 0.15, Adapt: AdaptNone}, driver: SPT, sched: Sweep, draws: 30000}},
		// Not a scheme's variant: a transform whose log-Jacobian is left out. Its
		// bias shows at 15 MCSE with 6000 draws, under 4 with 300: the
		// race detector's run keeps them all.
		// Nor here: a split-t proposal whose density leaves the split out.
		{"split-t-symmetric-density", nil, exactCase{name: "imh-misfit-split/none", kernel: symmetricQ{Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, Split: []float64{0.6, 1.5, 1.2, 0.8, 1, 2}, DF: 4}}, driver: None, draws: 30000}},
		// Not a hook either: surrogate transitions accepted on the exact
		// density's ratio alone, leaving the surrogate's out.
		{"surrogate-uncorrected", nil, exactCase{name: "sur-misfit/none", kernel: uncorrectedSurrogate{SurrogateTransition{Surrogate: misfitSurrogate()}}, driver: None, draws: 6000}},
		// Nor: delayed acceptance whose second stage leaves the screen's
		// ratio in.
		{"screen-uncorrected", nil, exactCase{name: "imh-misfit-screen/none", kernel: unscreened{Independence{Center: []float64{0.9, -0.4, 0.4}, Cov: []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, DF: 4, Local: 1, Screen: misfitSurrogate()}}, driver: None, draws: 30000}},
		{"transform-without-jacobian", nil, exactCase{name: "sinh/none", kernel: HMC{StepSize: 0.05, Steps: 6, Jitter: 0.2, Adapt: AdaptDiag}, driver: None, draws: 6000, raceDraws: 6000, transform: sinhFirst{noJacobian: true}}},
	} {
		t.Run(b.name, func(t *testing.T) {
			c := b.c
			c.variant = b.variant
			fails, summary, err := checkExact(tg, c, 7)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s with the term dropped: %s", b.c.name, summary)
			for _, f := range fails {
				t.Logf("detected: %s", f)
			}
			if len(fails) == 0 {
				t.Errorf("broken acceptance ratio not detected")
			}
		})
	}
}

// withRatio returns a Settings.variant that gives the scheme the
// acceptance ratio r.
func withRatio(r acceptRatio) func(path, scheme) (path, scheme) {
	return func(p path, sc scheme) (path, scheme) {
		switch s := sc.(type) {
		case *swapScheme:
			s.ratio = r
		case *transitionScheme:
			s.ratio = r
		}
		return p, sc
	}
}

// dropDescentLower leaves log h_{m−1}(θ̌_{m−1}) out of a tempered
// transition's ratio at the descent's step from level m = level.
type dropDescentLower struct {
	exactRatio
	level int
}

func (d dropDescentLower) descend(m int, r, lower, upper float64) float64 {
	if m == d.level {
		return r - upper
	}
	return d.exactRatio.descend(m, r, lower, upper)
}

// dropSwapLower leaves both log h_{m−1} terms out of the ratio of a swap
// of levels m−1 and m = level.
type dropSwapLower struct {
	exactRatio
	level int
}

func (d dropSwapLower) swap(m int, aHi, bLo, bHi, aLo float64) float64 {
	if m == d.level {
		return aHi - bHi
	}
	return d.exactRatio.swap(m, aHi, bLo, bHi, aLo)
}

// stalePath is a path whose swaps reuse each state's log-likelihood at its
// own level instead of evaluating it at the other's (for a subset path,
// a stale cache).
type stalePath struct{ path }

func (stalePath) swapLiks(_, _ *Density, a, b *State) (float64, float64) { return a.LogLik, b.LogLik }

// withStaleSwaps is the Settings.variant of stalePath.
func withStaleSwaps(p path, sc scheme) (path, scheme) { return stalePath{p}, sc }
