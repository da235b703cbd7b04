package temperingtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/subtemper/subtemper/tempering"
)

// Exact is a Target whose posterior (all observations, β = 1) can be
// sampled exactly: the known posterior of CheckInvariance. Gaussian is
// one; a model with a conjugate posterior can embed a *Normal.
type Exact interface {
	tempering.Target
	// Draw writes an exact draw from the posterior into u (len Dim),
	// using rng for its randomness.
	Draw(rng *rand.Rand, u []float64)
}

// Momenter is an optional interface of an Exact target: the posterior's
// mean and covariance (row-major Dim×Dim), against which CheckInvariance
// also compares the starting draws (which checks Draw) and the draws
// after the transitions.
type Momenter interface {
	Moments() (mean, cov []float64)
}

// InvarianceOptions configures CheckInvariance. Zero fields take the
// documented defaults.
type InvarianceOptions struct {
	// Replicates is the number R of independent exact starting draws.
	// Zero means 2000.
	Replicates int
	// Steps is the number of the kernel's transitions applied to each.
	// Zero means 5.
	Steps int
	// Seed determines the draws and the kernel's randomness.
	Seed uint64
	// Tuning, if non-nil, is the kernel's fixed tuning (as
	// tempering.Settings.InitTuning): a step size and metric suited to
	// the target. Nil keeps the kernel's own starting tuning.
	Tuning *tempering.Tuning
	// Z is how many Monte Carlo standard errors a moment may be off.
	// Zero means 4.
	Z float64
}

func (o InvarianceOptions) withDefaults() InvarianceOptions {
	if o.Replicates == 0 {
		o.Replicates = 2000
	}
	if o.Steps == 0 {
		o.Steps = 5
	}
	if o.Z == 0 {
		o.Z = 4
	}
	return o
}

// InvarianceTest runs CheckInvariance and reports its error, if any, with
// t.Error.
func InvarianceTest(t testing.TB, k tempering.Kernel, target Exact, opts InvarianceOptions) {
	t.Helper()
	if err := CheckInvariance(k, target, opts); err != nil {
		t.Error(err)
	}
}

// CheckInvariance checks that the kernel k leaves target's posterior
// invariant, as Pigeons.jl's invariance test does for its explorers: R
// replicates each start from an exact draw (Draw), run Steps of k's
// fixed (not adapting) transitions at the target level through
// tempering.Run (Driver None, no warm-up, each replicate a chain started
// at its draw, the target's clones evaluated concurrently), and end where
// a correct kernel leaves them: at exact draws again. For every moment u_i and
// (u_i − μ_i)(u_j − μ_j), i ≤ j (μ the posterior mean when target is a
// Momenter, else the starting draws' mean), it compares the mean after
// the transitions with the mean at the start, pair by pair, and fails
// when they differ by more than Z Monte Carlo standard errors of the
// paired differences; for a Momenter also when the starting or final
// draws' moments are more than Z standard errors from the exact ones. It
// fails too when no replicate moved (a kernel that never moves is
// trivially invariant). It returns every failure (joined), or nil.
func CheckInvariance(k tempering.Kernel, target Exact, opts InvarianceOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the kernel or the target panicked: %v\n%s", r, debug.Stack())
		}
	}()
	o := opts.withDefaults()
	before, after, moved, err := replicates(k, target, o)
	if err != nil {
		return err
	}
	if moved == 0 {
		return fmt.Errorf("invariance: no replicate moved in %d transitions: the check is vacuous (a tuning the kernel accepts nothing with?)", o.Steps)
	}
	var mean, cov []float64
	exact, hasExact := target.(Momenter)
	if hasExact {
		mean, cov = exact.Moments()
	} else {
		mean = columnMeans(before)
	}
	var errs []error
	for _, st := range moments(mean, cov) {
		if z, m0, m1, se := pairedZ(st.f, before, after); math.Abs(z) > o.Z {
			errs = append(errs, fmt.Errorf("invariance: %s = %.5g after %d transitions, %.5g at the exact start: off by %.1f MCSE (%.3g) of the paired difference", st.name, m1, o.Steps, m0, z, se))
		}
		if !hasExact {
			continue
		}
		for _, set := range []struct {
			name  string
			draws [][]float64
		}{{"Draw's starting draws", before}, {"the draws after the transitions", after}} {
			if z, m, se := oneSampleZ(st.f, set.draws, st.exact); math.Abs(z) > o.Z {
				errs = append(errs, fmt.Errorf("invariance: %s of %s = %.5g, exact %.5g: off by %.1f MCSE (%.3g)", st.name, set.name, m, st.exact, z, se))
			}
		}
	}
	return errors.Join(errs...)
}

// replicates draws R exact starting points and applies o.Steps of k's
// transitions to each; it returns both and how many replicates moved.
// The transitions are tempering.Run's, the one sampling loop: the
// replicates are chains (a batch of them per Run) started at the exact
// draws, with no warm-up, each keeping one draw after o.Steps iterations.
func replicates(k tempering.Kernel, target Exact, o InvarianceOptions) (before, after [][]float64, moved int, err error) {
	const batch = 250 // chains per Run: their goroutines and clones at once
	rng := rand.New(rand.NewPCG(o.Seed, 0x1a7a))
	dim := target.Dim()
	for r0 := 0; r0 < o.Replicates; r0 += batch {
		init := make([][]float64, min(batch, o.Replicates-r0))
		for i := range init {
			init[i] = make([]float64, dim)
			target.Draw(rng, init[i])
		}
		g := &guarded{Kernel: k}
		s := &tempering.Settings{
			Sampler: tempering.Sampler{Driver: tempering.None, Kernel: g},
			Control: tempering.Control{Chains: len(init), Warmup: tempering.NoWarmup, Draws: 1, Thin: o.Steps,
				Seed: rng.Uint64(), Init: init, InitTuning: o.Tuning},
		}
		res, err := tempering.Run(context.Background(), target, s)
		if p := g.panicked.Load(); p != nil {
			return nil, nil, 0, fmt.Errorf("the kernel or the target panicked: %s", *p)
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("invariance: replicates %d to %d: %w", r0, r0+len(init)-1, err)
		}
		for c, u := range init {
			v := res.Draws[c][0]
			if !slices.Equal(u, v) {
				moved++
			}
			before, after = append(before, u), append(after, v)
		}
	}
	return before, after, moved, nil
}

// guarded is a Kernel whose level kernels recover a panic in Init or Step
// (the kernel's, or the target's in an evaluation they make), which Run's
// chains meet in goroutines of their own, and record the first one: the
// step then leaves the state as it is.
type guarded struct {
	tempering.Kernel
	panicked atomic.Pointer[string]
}

// NewLevel implements tempering.Kernel.
func (g *guarded) NewLevel(dim int, beta float64) (tempering.LevelKernel, error) {
	lk, err := g.Kernel.NewLevel(dim, beta)
	if err != nil {
		return nil, err
	}
	return guardedLevel{lk, g}, nil
}

// guardedLevel is a level kernel of a guarded Kernel.
type guardedLevel struct {
	tempering.LevelKernel
	g *guarded
}

// recover records a panic, if one is under way.
func (l guardedLevel) recover() {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("%v\n%s", r, debug.Stack())
		l.g.panicked.CompareAndSwap(nil, &msg)
	}
}

// Init implements tempering.LevelKernel.
func (l guardedLevel) Init(d *tempering.Density, s *tempering.State) {
	defer l.recover()
	l.LevelKernel.Init(d, s)
}

// Step implements tempering.LevelKernel.
func (l guardedLevel) Step(rng *rand.Rand, d *tempering.Density, s *tempering.State) (info tempering.StepInfo) {
	defer l.recover()
	return l.LevelKernel.Step(rng, d, s)
}

// moment is a function of a draw and, when known, its exact expectation.
type moment struct {
	name  string
	f     func(u []float64) float64
	exact float64
}

// moments returns the coordinates and the centred products about mean;
// cov, if non-nil, gives the products' expectations.
func moments(mean, cov []float64) []moment {
	d := len(mean)
	var ms []moment
	for i := range d {
		ms = append(ms, moment{fmt.Sprintf("mean of u[%d]", i), func(u []float64) float64 { return u[i] }, mean[i]})
	}
	for i := range d {
		for j := i; j < d; j++ {
			m := moment{name: fmt.Sprintf("mean of (u[%d]−μ)(u[%d]−μ)", i, j), f: func(u []float64) float64 {
				return (u[i] - mean[i]) * (u[j] - mean[j])
			}}
			if cov != nil {
				m.exact = cov[i*d+j]
			}
			ms = append(ms, m)
		}
	}
	return ms
}

// pairedZ returns the mean difference of f over after and before in
// units of its standard error, the two means and the standard error
// (z = 0 when every difference is 0).
func pairedZ(f func([]float64) float64, before, after [][]float64) (z, m0, m1, se float64) {
	n := float64(len(before))
	diff := make([]float64, len(before))
	for r := range before {
		a, b := f(after[r]), f(before[r])
		m0 += b / n
		m1 += a / n
		diff[r] = a - b
	}
	md, sd := meanSD(diff)
	se = sd / math.Sqrt(n)
	if se == 0 {
		return 0, m0, m1, se
	}
	return md / se, m0, m1, se
}

// oneSampleZ returns how many standard errors the mean of f over draws
// is from exact, the mean and the standard error.
func oneSampleZ(f func([]float64) float64, draws [][]float64, exact float64) (z, m, se float64) {
	v := make([]float64, len(draws))
	for r, u := range draws {
		v[r] = f(u)
	}
	m, sd := meanSD(v)
	se = sd / math.Sqrt(float64(len(v)))
	if se == 0 {
		return 0, m, se
	}
	return (m - exact) / se, m, se
}

// meanSD returns the mean and the sample standard deviation of x.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// columnMeans returns the mean of each coordinate of draws.
func columnMeans(draws [][]float64) []float64 {
	m := make([]float64, len(draws[0]))
	for _, u := range draws {
		for i, v := range u {
			m[i] += v / float64(len(draws))
		}
	}
	return m
}
