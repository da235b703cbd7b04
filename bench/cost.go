package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/subtemper/subtemper/internal/fit"
	"github.com/subtemper/subtemper/tempering"
)

// Closed forms of the cost of one iteration of a tempering driver, in units
// of the cost of one iteration of its inner kernel alone on the full data
// (the driver None), when a transition on n observations costs ∝ n^α. The
// ladder is geometric, β_m = β*^{m/M}, m = 0..M, so a subsampled level m
// conditions on N_m = β_m·N observations and costs β_m^α.
//
// Three families are given:
//
//   - Paper…: the formulas as printed in the paper (§3.1): τ^SPT, τ^STT with
//     its slip 1 + β*^{α/M}, τ^PT = M and τ^TT = 2(M−1).
//   - Corrected…: the same counting argument done right (DESIGN.md): the
//     ladder has M+1 levels, so PT costs M+1 and TT, sampling levels
//     1..M−1 twice and 0 and M once, 2M; for STT this placement gives
//     2·τ^SPT − 1 − β*^α.
//   - Neal…: the count for the form the tempering package implements, Neal
//     (1996)'s tempered transitions: ascending and descending transitions
//     both at every level m = 1..M, none at level 0, so τ^TT = 2M and
//     τ^STT = 2·Σ_{m=1}^M β_m^α = 2(τ^SPT − 1).
//
// All three count inner-kernel transitions only. The evaluations that the
// acceptance ratios need (SPT swaps on the other level's subset, STT's
// re-evaluation of the path point at each new level) are not in them; the
// count-based model (Predict) includes them.

// PaperSPT is the paper's eq. (τ^SPT): Σ_{m=0}^M β*^{αm/M} =
// (1 − β*^{α(1+1/M)}) / (1 − β*^{α/M}). It is correct as printed and equal
// to CorrectedSPT and NealSPT.
func PaperSPT(alpha, betaMin float64, M int) float64 {
	r := math.Pow(betaMin, alpha/float64(M))
	if r == 1 {
		return float64(M + 1)
	}
	return (1 - math.Pow(betaMin, alpha*(1+1/float64(M)))) / (1 - r)
}

// PaperSTT is the paper's eq. (τ^STT) as printed: 2·τ^SPT − (1 + β*^{α/M}).
// At β* = 1/8, M = 6 it gives 4.52 (α = 1) and 1.74 (α = 3).
func PaperSTT(alpha, betaMin float64, M int) float64 {
	return 2*PaperSPT(alpha, betaMin, M) - (1 + math.Pow(betaMin, alpha/float64(M)))
}

// PaperPT is the paper's τ^PT = M.
func PaperPT(M int) float64 { return float64(M) }

// PaperTT is the paper's τ^TT = 2(M−1).
func PaperTT(M int) float64 { return float64(2 * (M - 1)) }

// CorrectedSPT is τ^SPT (the paper's formula is right): one transition at
// each level m = 0..M.
func CorrectedSPT(alpha, betaMin float64, M int) float64 { return PaperSPT(alpha, betaMin, M) }

// CorrectedSTT is the STT cost for the paper's Algorithm 2 placement (one
// transition at levels 0 and M, two at levels 1..M−1): 2·τ^SPT − 1 − β*^α.
// At β* = 1/8, M = 6 it gives 5.10 (α = 1) and 2.09 (α = 3).
func CorrectedSTT(alpha, betaMin float64, M int) float64 {
	return 2*PaperSPT(alpha, betaMin, M) - 1 - math.Pow(betaMin, alpha)
}

// CorrectedPT is M+1: one full-data transition at each of the M+1 levels.
func CorrectedPT(M int) float64 { return float64(M + 1) }

// CorrectedTT is 2M: levels 0 and M once, levels 1..M−1 twice, all on the
// full data.
func CorrectedTT(M int) float64 { return float64(2 * M) }

// NealSPT equals PaperSPT (SPT has no tempered path).
func NealSPT(alpha, betaMin float64, M int) float64 { return PaperSPT(alpha, betaMin, M) }

// NealSTT is the transition count of Neal (1996)'s form as implemented:
// two transitions at each level m = 1..M, none at level 0:
// 2·Σ_{m=1}^M β_m^α = 2(τ^SPT − 1). At β* = 1/8, M = 6 it gives 4.22
// (α = 1) and 1.09 (α = 3).
func NealSTT(alpha, betaMin float64, M int) float64 {
	return 2 * (PaperSPT(alpha, betaMin, M) - 1)
}

// NealPT is M+1, as CorrectedPT.
func NealPT(M int) float64 { return float64(M + 1) }

// NealTT is 2M: two full-data transitions at each level 1..M.
func NealTT(M int) float64 { return float64(2 * M) }

// Form selects a family of closed forms.
type Form int

const (
	// Paper is the paper's formulas as printed.
	Paper Form = iota
	// Corrected is the paper's counting argument done right (Algorithm 2's
	// placement of transitions).
	Corrected
	// Neal counts the transitions of Neal (1996)'s form, which tempering
	// implements.
	Neal
)

func (f Form) String() string {
	switch f {
	case Paper:
		return "paper"
	case Corrected:
		return "corrected"
	case Neal:
		return "neal"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// ClosedForm returns the closed-form cost ratio of driver d to None in
// family f, for exponent alpha, smallest inverse temperature betaMin and M
// levels above the target. None gives 1.
func ClosedForm(f Form, d tempering.Driver, alpha, betaMin float64, M int) float64 {
	switch d {
	case tempering.None:
		return 1
	case tempering.SPT:
		return PaperSPT(alpha, betaMin, M)
	case tempering.STT:
		switch f {
		case Paper:
			return PaperSTT(alpha, betaMin, M)
		case Corrected:
			return CorrectedSTT(alpha, betaMin, M)
		default:
			return NealSTT(alpha, betaMin, M)
		}
	case tempering.PT:
		if f == Paper {
			return PaperPT(M)
		}
		return CorrectedPT(M)
	case tempering.TT:
		if f == Paper {
			return PaperTT(M)
		}
		return CorrectedTT(M)
	}
	return math.NaN()
}

// Coster gives the cost in seconds of one evaluation of a target on n
// observations.
type Coster interface {
	// Value is the cost of a log-likelihood evaluation without gradient.
	Value(n int) float64
	// Grad is the cost of a log-likelihood evaluation with gradient.
	Grad(n int) float64
	// Resume is the cost of a tempering.GradResumer resume: the gradient
	// completed from the evaluation without gradient just before it (Grad
	// for a target that cannot resume; such a target counts none).
	Resume(n int) float64
	// Prior is the cost of a log-prior evaluation (with gradient).
	Prior() float64
	// Reorder is the cost of one tempering.Reorderer pass over the data
	// (0 for targets without one).
	Reorder() float64
}

// Predict returns the predicted cost in seconds of the work counted in
// levels (a tempering.Stats's Levels, or a difference of two):
//
//	Σ_m Evals_m·c_val(N_m) + EvalsGrad_m·c_grad(N_m) + GradResumes_m·c_resume(N_m)
//	    + PriorEvals_m·c_prior.
//
// Divide by the number of iterations for the cost per iteration; add
// PredictReorders for the data reorderings a run counted.
func Predict(levels []tempering.LevelStats, c Coster) float64 {
	var s float64
	for _, l := range levels {
		if l.Evals > 0 {
			s += float64(l.Evals) * c.Value(l.SubsetSize)
		}
		if l.EvalsGrad > 0 {
			s += float64(l.EvalsGrad) * c.Grad(l.SubsetSize)
		}
		if l.GradResumes > 0 {
			s += float64(l.GradResumes) * c.Resume(l.SubsetSize)
		}
		s += float64(l.PriorEvals) * c.Prior()
	}
	return s
}

// PredictReorders returns the predicted cost of n data reorderings
// (tempering.Stats.Reorders): n·c_reorder.
func PredictReorders(n int64, c Coster) float64 { return float64(n) * c.Reorder() }

// LevelsDelta returns after − before, level by level (the counters of an
// interval of a run). Beta and SubsetSize are taken from after. Both must
// have the same number of levels; otherwise it returns nil.
func LevelsDelta(after, before []tempering.LevelStats) []tempering.LevelStats {
	if len(after) != len(before) {
		return nil
	}
	d := make([]tempering.LevelStats, len(after))
	for m := range after {
		a, b := &after[m], &before[m]
		d[m] = tempering.LevelStats{
			Beta: a.Beta, SubsetSize: a.SubsetSize,
			Evals: a.Evals - b.Evals, EvalsGrad: a.EvalsGrad - b.EvalsGrad,
			PrefixReuses: a.PrefixReuses - b.PrefixReuses, GradResumes: a.GradResumes - b.GradResumes,
			PriorEvals: a.PriorEvals - b.PriorEvals, Transitions: a.Transitions - b.Transitions,
			Accepted: a.Accepted - b.Accepted, Failed: a.Failed - b.Failed,
			Invalid: a.Invalid - b.Invalid, Divergent: a.Divergent - b.Divergent,
		}
	}
	return d
}

// PowerLaw is c(n) = Prefactor·n^Alpha.
type PowerLaw struct {
	Alpha, Prefactor float64
}

// At returns Prefactor·n^Alpha.
func (p PowerLaw) At(n int) float64 { return p.Prefactor * math.Pow(float64(n), p.Alpha) }

// CostPoint is the measured cost in seconds of one evaluation on N
// observations.
type CostPoint struct {
	N     int     `json:"n"`
	Value float64 `json:"value_s"` // log-likelihood without gradient
	Grad  float64 `json:"grad_s"`  // log-likelihood with gradient
	// Resume is the cost of a tempering.GradResumer resume after an
	// evaluation without gradient (0: not measured, the target cannot).
	Resume float64 `json:"resume_s,omitempty"`
}

// CostCurve is a measured cost function c(n), evaluated between measured
// sizes by piecewise-linear interpolation on log–log axes and beyond them
// by the end segments' slopes. It implements Coster.
//
// Piecewise interpolation is the model the benchmarks use to predict:
// c(n) is not one power law over the sizes a ladder spans (the MVN's
// per-call D×D triangular solves and the GP's O(N²D) gradient reduction
// beside its O(N³) Cholesky give local exponents that drift with n), and
// a single fitted α mispredicts the hot levels by the size of that drift.
// Fit gives the global power law for comparison.
type CostCurve struct {
	// Points sorted by N, sizes distinct.
	Points []CostPoint `json:"points"`
	// PriorCost is the cost of one log-prior evaluation with gradient.
	PriorCost float64 `json:"prior_s"`
	// ReorderCost is the cost of one Reorder of the whole data (0 for a
	// target that is no tempering.Reorderer).
	ReorderCost float64 `json:"reorder_s,omitempty"`
}

var _ Coster = (*CostCurve)(nil)

// Value implements Coster.
func (c *CostCurve) Value(n int) float64 {
	return c.interp(n, func(p CostPoint) float64 { return p.Value })
}

// Grad implements Coster.
func (c *CostCurve) Grad(n int) float64 {
	return c.interp(n, func(p CostPoint) float64 { return p.Grad })
}

// Resume implements Coster: Grad where no resume was measured.
func (c *CostCurve) Resume(n int) float64 {
	if !c.resumes() {
		return c.Grad(n)
	}
	return c.interp(n, func(p CostPoint) float64 { return p.Resume })
}

// resumes reports whether the resume cost was measured (at every size).
func (c *CostCurve) resumes() bool {
	for _, p := range c.Points {
		if !(p.Resume > 0) {
			return false
		}
	}
	return len(c.Points) > 0
}

// Prior implements Coster.
func (c *CostCurve) Prior() float64 { return c.PriorCost }

// Reorder implements Coster.
func (c *CostCurve) Reorder() float64 { return c.ReorderCost }

func (c *CostCurve) interp(n int, f func(CostPoint) float64) float64 {
	p := c.Points
	switch len(p) {
	case 0:
		return math.NaN()
	case 1:
		return f(p[0]) * float64(n) / float64(p[0].N)
	}
	i := sort.Search(len(p), func(i int) bool { return p[i].N >= n })
	if i < len(p) && p[i].N == n {
		return f(p[i])
	}
	// segment [i−1, i], clamped to the end segments
	i = min(max(i, 1), len(p)-1)
	x0, x1 := math.Log(float64(p[i-1].N)), math.Log(float64(p[i].N))
	y0, y1 := math.Log(f(p[i-1])), math.Log(f(p[i]))
	x := math.Log(float64(n))
	return math.Exp(y0 + (y1-y0)*(x-x0)/(x1-x0))
}

// Fit returns the power laws fitted by least squares on log–log axes to the
// measured costs without and with gradient.
func (c *CostCurve) Fit() (value, grad PowerLaw) {
	return c.fit(func(p CostPoint) float64 { return p.Value }), c.fit(func(p CostPoint) float64 { return p.Grad })
}

// fit fits a power law to the cost f of the points.
func (c *CostCurve) fit(f func(CostPoint) float64) PowerLaw {
	ns := make([]int, len(c.Points))
	cs := make([]float64, len(c.Points))
	for i, p := range c.Points {
		ns[i], cs[i] = p.N, f(p)
	}
	var l PowerLaw
	l.Alpha, l.Prefactor = fit.FitExponent(ns, cs)
	return l
}

// PowerLawCost is a Coster made of power laws (and a prior cost), for
// predictions with a single fitted α. A zero ResumeLaw stands for GradLaw.
type PowerLawCost struct {
	ValueLaw, GradLaw, ResumeLaw PowerLaw
	PriorCost                    float64
	ReorderCost                  float64
}

var _ Coster = PowerLawCost{}

// Value implements Coster.
func (p PowerLawCost) Value(n int) float64 { return p.ValueLaw.At(n) }

// Grad implements Coster.
func (p PowerLawCost) Grad(n int) float64 { return p.GradLaw.At(n) }

// Resume implements Coster.
func (p PowerLawCost) Resume(n int) float64 {
	if p.ResumeLaw.Prefactor == 0 {
		return p.GradLaw.At(n)
	}
	return p.ResumeLaw.At(n)
}

// Prior implements Coster.
func (p PowerLawCost) Prior() float64 { return p.PriorCost }

// Reorder implements Coster.
func (p PowerLawCost) Reorder() float64 { return p.ReorderCost }

// PowerLaws returns the fitted power-law Coster of c.
func (c *CostCurve) PowerLaws() PowerLawCost {
	v, g := c.Fit()
	pl := PowerLawCost{ValueLaw: v, GradLaw: g, PriorCost: c.PriorCost, ReorderCost: c.ReorderCost}
	if c.resumes() {
		pl.ResumeLaw = c.fit(func(p CostPoint) float64 { return p.Resume })
	}
	return pl
}

// Anchored returns the power-law Coster with exponent alpha that agrees
// with c at n: c_val(k) = c.Value(n)·(k/n)^alpha, and likewise c_grad. It
// answers "what would the counted work cost if evaluations scaled as the
// paper assumes (α = 1 for the MVN, 3 for the GP), with the full-data
// costs as measured": the counts stay ours, only the curve changes.
func (c *CostCurve) Anchored(alpha float64, n int) PowerLawCost {
	at := func(cn float64) PowerLaw {
		return PowerLaw{Alpha: alpha, Prefactor: cn / math.Pow(float64(n), alpha)}
	}
	return PowerLawCost{ValueLaw: at(c.Value(n)), GradLaw: at(c.Grad(n)), ResumeLaw: at(c.Resume(n)), PriorCost: c.PriorCost, ReorderCost: c.ReorderCost}
}

// MeasureOptions configures MeasureCost. Zero fields take the defaults.
type MeasureOptions struct {
	// MinTime is the least time spent per size and kind of evaluation.
	// Zero means 100 ms.
	MinTime time.Duration
	// Rounds is the number of timed rounds per size and kind, of which the
	// median per-call time is kept. Zero means 7.
	Rounds int
	// Seed draws the subsets (random, as the subsampled levels' are).
	Seed uint64
	// At is the point u at which the target is evaluated; nil means the
	// target's first starting point (tempering.Starter) or the origin.
	At []float64
	// CPU times each call by the CPU time of the calling thread
	// (tempering.ThreadCPU, the goroutine locked to its thread while
	// measuring) instead of by the wall clock: the clock of a chain's
	// Result.ChainCPU, which other jobs on a shared machine do not
	// stretch. Work on other threads (a multithreaded BLAS's helpers) is
	// not counted: measure with one BLAS thread. Linux only; elsewhere
	// MeasureCost returns an error.
	CPU bool
	// Mean keeps each (size, kind)'s mean time per call over all its
	// calls instead of the median over visits of a visit's mean: what a
	// run pays, its slow calls included. Use it with CPU, whose clock
	// load bursts do not stretch.
	Mean bool
	// Spread moves the point of each visit to At + Spread·z, z standard
	// normal and drawn afresh per visit, as a chain's state moves between
	// transitions (an evaluation at a new point costs a few per cent more
	// than one repeated at the point before). Zero keeps At.
	Spread float64
}

// MeasureCost times t's LogLik without and with gradient on random subsets
// of each size in sizes (all observations for the size NumObs, as level 0
// evaluates them), a tempering.GradResumer's resume after an evaluation
// without gradient on the same subset (the evaluation untimed), and its
// LogPrior with gradient, and returns the measured CostCurve.
//
// The calls are made in the pattern a chain makes them, not in long runs
// of one call (which keep everything a call touches hot in the caches and
// under-state its cost inside a run): rounds visit every (size, kind) in
// turn, smallest size first, each visit a burst of at most visitCalls
// calls (fewer if they take longer than MinTime/Rounds), as one transition
// at a level makes; the rounds go on for at least Rounds rounds and until
// MinTime per (size, kind) has been spent in all (the cheap sizes get
// fewer seconds but more visits). The median per-call
// time over visits is kept, which is robust to the bursts of load of a
// shared machine. A tempering.Reorderer target is re-laid out at the start
// of every round by a fresh random permutation and evaluated on its
// prefixes, as STT does at every iteration; those Reorder calls are timed
// too (ReorderCost is their median). It returns an error if an evaluation
// fails or ctx is cancelled.
func MeasureCost(ctx context.Context, t tempering.Target, sizes []int, opt MeasureOptions) (*CostCurve, error) {
	if opt.MinTime == 0 {
		opt.MinTime = 100 * time.Millisecond
	}
	if opt.Rounds == 0 {
		opt.Rounds = 7
	}
	// now reads the clock the calls are timed by.
	start := time.Now()
	now := func() time.Duration { return time.Since(start) } // monotonic
	if opt.CPU {
		if _, ok := tempering.ThreadCPU(); !ok {
			return nil, errors.New("bench: no per-thread CPU clock on this system (MeasureOptions.CPU)")
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		now = func() time.Duration { d, _ := tempering.ThreadCPU(); return d }
	}
	m, ns, err := newCostMeter(t, sizes, opt, now)
	if err != nil {
		return nil, err
	}
	sites, kinds := m.sites(ns)
	if err := m.drawSubsets(ns); err != nil {
		return nil, err
	}
	per := opt.MinTime / time.Duration(opt.Rounds)
	if err := m.visitAll(ctx, sites, opt, per); err != nil {
		return nil, err
	}
	perCall := func(s *costSite) float64 {
		if opt.Mean {
			return s.total.Seconds() / float64(s.calls)
		}
		return median(s.secs)
	}
	c := &CostCurve{}
	for i := 0; i < len(sites); i += kinds {
		v, g := sites[i], sites[i+1]
		pt := CostPoint{N: v.n, Value: perCall(v), Grad: perCall(g)}
		if m.gr != nil {
			pt.Resume = perCall(sites[i+2])
		}
		c.Points = append(c.Points, pt)
	}
	u := m.base
	sec, err := timeCalls(ctx, opt.Rounds, per/4, now, func() error {
		if v := t.LogPrior(u, m.grad); math.IsNaN(v) {
			return errors.New("log prior is NaN")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bench: measuring the cost of LogPrior: %w", err)
	}
	c.PriorCost = sec
	if m.reo != nil {
		c.ReorderCost = median(m.reorderSecs)
	}
	return c, nil
}

// costMeter holds MeasureCost's state: the target, the clock the calls
// are timed by, the point they are made at and the subsets they are made
// on.
type costMeter struct {
	t    tempering.Target
	nobs int
	now  func() time.Duration
	rng  *rand.Rand
	// u is the point of the calls, base the point it moves about (by
	// spread), grad the gradient's scratch.
	u, base, grad []float64
	spread        float64
	gr            tempering.GradResumer // nil if t cannot resume
	reo           tempering.Reorderer   // nil if t cannot be re-laid out
	// perm is a Reorderer's layout, pools the subsets of each size of
	// other targets.
	perm        []int
	pools       map[int][][]int
	reorderSecs []float64
	calls       int // calls so far, to cycle through the pools
}

// costSite is one timed call site of MeasureCost, a (size, kind): n
// observations, with gradient or not, a resume or not; secs holds each
// visit's mean time per call, total all calls' time and calls their
// number.
type costSite struct {
	n      int
	grad   []float64
	resume bool
	secs   []float64
	total  time.Duration
	calls  int
}

// newCostMeter checks MeasureCost's point and sizes and returns its
// meter and the distinct sizes, sorted.
func newCostMeter(t tempering.Target, sizes []int, opt MeasureOptions, now func() time.Duration) (*costMeter, []int, error) {
	dim, nobs := t.Dim(), t.NumObs()
	u := opt.At
	if u == nil {
		u = make([]float64, dim)
		if st, ok := t.(tempering.Starter); ok {
			st.Start(0, 1, u)
		}
	}
	if len(u) != dim {
		return nil, nil, fmt.Errorf("bench: measuring cost at a point of length %d, target dimension %d", len(u), dim)
	}
	ns := slices.Clone(sizes)
	slices.Sort(ns)
	ns = slices.Compact(ns)
	if len(ns) == 0 || ns[0] < 1 || ns[len(ns)-1] > nobs {
		return nil, nil, fmt.Errorf("bench: measuring cost at sizes %v of a target with %d observations", sizes, nobs)
	}
	m := &costMeter{
		t: t, nobs: nobs, now: now,
		rng:  rand.New(rand.NewPCG(opt.Seed, 0x636f7374)),
		grad: make([]float64, dim), base: u, u: u, spread: opt.Spread,
		pools: map[int][][]int{},
	}
	if opt.Spread < 0 || math.IsNaN(opt.Spread) || math.IsInf(opt.Spread, 0) {
		return nil, nil, fmt.Errorf("bench: MeasureOptions.Spread must be finite and ≥ 0, got %v", opt.Spread)
	}
	if opt.Spread > 0 {
		m.u = slices.Clone(m.base)
	}
	if gr, ok := t.(tempering.GradResumer); ok {
		m.gr = gr
	}
	if reo, ok := t.(tempering.Reorderer); ok {
		m.reo = reo
	}
	return m, ns, nil
}

// sites returns the call sites, per size of ns (ascending) one without
// gradient, one with, and one resume if the target can resume, and the
// number of kinds per size. One timed call site per (size, kind), visited
// round-robin: a burst of load on a shared machine then hits every size
// alike, and the median over rounds discards it.
func (m *costMeter) sites(ns []int) (sites []*costSite, kinds int) {
	kinds = 2
	if m.gr != nil {
		kinds = 3
	}
	for _, n := range ns {
		sites = append(sites, &costSite{n: n}, &costSite{n: n, grad: m.grad})
		if m.gr != nil {
			sites = append(sites, &costSite{n: n, grad: m.grad, resume: true})
		}
	}
	return sites, kinds
}

// drawSubsets lays a Reorderer target out by a random permutation (untimed)
// or draws the pools of subsets of the sizes ns below NumObs. For most
// targets a pool of independent random subsets is used in turn, as STT
// draws fresh ones at every iteration and SPT alternates between levels
// (one subset, evaluated again and again, would stay hotter in the cache
// than in a run). A Reorderer target is evaluated on prefixes of its
// current layout, which is what the drivers evaluate on it.
func (m *costMeter) drawSubsets(ns []int) error {
	const poolSize = 8
	if m.reo != nil {
		m.perm = m.rng.Perm(m.nobs)
		if err := m.reorder(false); err != nil {
			return err
		}
	}
	for _, n := range ns {
		if n < m.nobs && m.reo == nil {
			for range poolSize {
				m.pools[n] = append(m.pools[n], m.rng.Perm(m.nobs)[:n])
			}
		}
	}
	return nil
}

// reorder re-lays a Reorderer target out by a fresh shuffle of its
// permutation, recording the time Reorder took if timed.
func (m *costMeter) reorder(timed bool) error {
	perm := m.perm
	m.rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	t0 := m.now()
	if err := m.reo.Reorder(perm); err != nil {
		return fmt.Errorf("bench: reordering the data: %w", err)
	}
	if timed {
		m.reorderSecs = append(m.reorderSecs, (m.now() - t0).Seconds())
	}
	return nil
}

// move draws the point of the next visit (with Spread).
func (m *costMeter) move() {
	if m.spread > 0 {
		for i, b := range m.base {
			m.u[i] = b + m.spread*m.rng.NormFloat64()
		}
	}
}

// call makes a site's call and returns the time it took (a resume's own,
// without the evaluation before it).
func (m *costMeter) call(s *costSite) (time.Duration, error) {
	var subset []int
	switch {
	case s.n >= m.nobs:
	case m.reo != nil:
		subset = m.perm[:s.n]
	default:
		p := m.pools[s.n]
		subset = p[m.calls%len(p)]
	}
	m.calls++
	if s.resume {
		if _, err := m.t.LogLik(subset, m.u, nil); err != nil {
			return 0, err
		}
		t0 := m.now()
		_, ok, err := m.gr.LogLikResume(subset, m.u, s.grad)
		el := m.now() - t0
		if err == nil && !ok {
			err = errors.New("the target declined to resume the gradient of the evaluation just before")
		}
		return el, err
	}
	t0 := m.now()
	_, err := m.t.LogLik(subset, m.u, s.grad)
	return m.now() - t0, err
}

// visitAll calls every site once to warm caches and workspaces, then
// visits the sites in rounds, each visit a burst of at most visitCalls
// calls or per of time, for at least opt.Rounds rounds and until
// opt.MinTime per site has been spent in all.
func (m *costMeter) visitAll(ctx context.Context, sites []*costSite, opt MeasureOptions, per time.Duration) error {
	for _, s := range sites { // warm caches and workspaces
		if _, err := m.call(s); err != nil {
			return fmt.Errorf("bench: measuring the cost of LogLik on %d observations: %w", s.n, err)
		}
	}
	budget := opt.MinTime * time.Duration(len(sites))
	for round, spent := 0, time.Duration(0); round < opt.Rounds || spent < budget; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if m.reo != nil {
			if err := m.reorder(true); err != nil {
				return err
			}
		}
		for _, s := range sites {
			m.move()
			k := 0
			var el time.Duration
			for k < visitCalls {
				d, err := m.call(s)
				if err != nil {
					return fmt.Errorf("bench: measuring the cost of LogLik on %d observations: %w", s.n, err)
				}
				k++
				if el += d; el >= per {
					break
				}
			}
			spent += el
			s.secs = append(s.secs, el.Seconds()/float64(k))
			s.total += el
			s.calls += k
		}
	}
	return nil
}

// visitCalls is the most calls MeasureCost makes in one visit to a (size,
// kind): about one HMC transition's worth.
const visitCalls = 8

// timeCalls returns the median over rounds of the mean time per call of f
// by the clock now, each round calling f until it has run for at least per
// (at least once).
func timeCalls(ctx context.Context, rounds int, per time.Duration, now func() time.Duration, f func() error) (float64, error) {
	if err := f(); err != nil { // warm caches and workspaces
		return 0, err
	}
	secs := make([]float64, rounds)
	for r := range secs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		calls := 0
		t0 := now()
		var el time.Duration
		for {
			if err := f(); err != nil {
				return 0, err
			}
			calls++
			if el = now() - t0; el >= per {
				break
			}
		}
		secs[r] = el.Seconds() / float64(calls)
	}
	return median(secs), nil
}

// median returns the median of x (sorting a copy).
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if k := len(s); k%2 == 0 {
		return (s[k/2-1] + s[k/2]) / 2
	}
	return s[len(s)/2]
}
