package tempering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// WarmStartOptions configures FindMode. The zero value is valid.
type WarmStartOptions struct {
	// Starts is the number of optimiser starts on the smallest subset: the
	// Target's own starting points (Starter) first, then points drawn
	// uniformly in (−2, 2)^Dim. Zero means 4.
	Starts int
	// MinSubset is the size of the smallest subset the optimisation
	// starts on; the stages then double it up to all N observations. Zero
	// means 256; with N below 2·MinSubset there is one stage, on all the
	// data.
	MinSubset int
	// Chains is the number of starting points to draw for the chains.
	// Zero means 3.
	Chains int
	// Dispersion scales the Laplace approximation's covariance for the
	// chains' starting points, drawn from N(mode, Dispersion²·Σ) so that
	// they are over-dispersed and R̂ still tests convergence. Zero means
	// 2.
	Dispersion float64
	// Seed determines the subsets, the random starts and the chains'
	// starting points.
	Seed uint64
	// ModeGap is the largest gap in log posterior density, at the full
	// data, below which a second local optimum counts as a mode that
	// matters (WarmStart.Modes). Zero means 10.
	ModeGap float64
	// Workers is the number of optimisations run at once (each on its own
	// clone of the target). Zero means GOMAXPROCS.
	Workers int
	// Concurrency, if set, is called before each batch of evaluations run
	// side by side on the clones, with how many run at once (at most
	// Workers): a backend whose evaluations are themselves multithreaded
	// (OpenBLAS) can then share the cores among them. FitGP sets it on
	// the openblas backend.
	Concurrency func(atOnce int)
	// Proposal, if non-nil, has FindMode fit an independence proposal
	// (WarmStart.FitProposal, with these options) when it finds one mode
	// (with AllModes, at the best of several), into WarmStart.Proposal,
	// and first, unless NoCorners, the corners along the parameters it
	// finds non-Gaussian (WarmStart.Corners: 7 log densities and
	// 2·(Dim + 1) gradients per side). Its evaluations run on the warm
	// start's own clones (as many at once as the optimisations), so that
	// no more copies of the model are held at once: on a GPU each copy
	// holds an N×N matrix.
	Proposal *ProposalOptions
	// NoCorners skips the corners where a proposal is fitted: only
	// importance sampling uses them (ImportanceOptions.Corners).
	NoCorners bool
	// AllModes, with Proposal, fits the proposal at the best mode also
	// where the search finds several, and first the Laplace
	// approximation at each of the others, into WarmStart.Corners (Mode
	// true; Dim + 1 gradients each), which importance sampling mixes into
	// every proposal: the modes are then sampled by importance sampling
	// instead of by chains with tempering.
	AllModes bool
	// Progress, if set, is called after each step of the warm start
	// (WarmProgress: each stage of the search, the Laplace
	// approximation, each of the proposal's rounds), on FindMode's
	// goroutine.
	Progress func(WarmProgress)
}

// StageWork counts a warm-start stage's evaluations: Evals log-likelihood
// evaluations on Size observations, with gradient but for the few checks
// of the full-data stage (modes, Drops), which are counted as if they
// had one.
type StageWork struct {
	Size  int
	Evals int
}

// WarmStart is the outcome of the warm start: the posterior mode (MAP in
// the sampling space), the Laplace approximation there, and starting
// points and a metric for the chains.
type WarmStart struct {
	// Mode is the MAP u* of log p(X|u) + log p(u) on all observations,
	// LogPost its value there and Grad the gradient there (near zero).
	Mode    []float64
	LogPost float64
	Grad    []float64
	// Cov is the Laplace approximation's covariance (−∇²log p)⁻¹ at Mode,
	// Dim×Dim row-major (the Hessian by forward differences of the
	// analytic gradient, Dim evaluations; eigenvalues that are not
	// positive are raised to keep it positive definite).
	Cov []float64
	// Inits holds the chains' starting points, drawn from
	// N(Mode, Dispersion²·Cov).
	Inits [][]float64
	// Optima holds the modes found (the best first) on all observations
	// and their log posterior densities: local optima within ModeGap of
	// the best that a straight path joins to it only through a dip of
	// more than one nat below the lower of the two (optima on a ridge of
	// the density count as one); Modes is their number. More than one
	// suggests a posterior that needs tempering to move between modes.
	Optima       [][]float64
	OptimaLogPos []float64
	Modes        int
	// Drops[i] holds the fall of the log density from the mode to
	// Mode ∓ 2·sd_i along parameter i (the others at the mode): [below,
	// above]. A Gaussian posterior falls by the same 2·Σ_ii·(Σ⁻¹)_ii ≥ 2
	// each way; very unequal falls mark a parameter whose posterior the
	// Laplace approximation misdescribes (a flat tail, a boundary),
	// where the warm-started kernel may mix slowly. NonGaussian lists
	// those parameters' indices: the falls differ by more than 1 and
	// one is more than twice the other (or a side cannot be evaluated).
	Drops       [][2]float64
	NonGaussian []int
	// Corners holds Gaussian approximations away from the mode along the
	// NonGaussian parameters (fitted with the proposal; see
	// ImportanceOptions.Corners), where the Laplace approximation
	// misdescribes how the other parameters spread.
	Corners []Corner
	// Stages is the work of each stage, smallest subset first; the last
	// entry (Size N) includes the Hessian's evaluations.
	Stages []StageWork
	// SecondsPerGrad is the mean wall-clock time of one log-likelihood
	// evaluation with gradient on all observations, measured during the
	// Hessian (with Workers evaluations running at once).
	SecondsPerGrad float64
	// GradsAtOnce is the number of those evaluations that ran at once
	// (on the pool's clones): on one shared device such as a GPU,
	// SecondsPerGrad/GradsAtOnce is the device's time per gradient.
	GradsAtOnce int
	// Wall is the warm start's wall-clock time; CPU the process's CPU
	// time meanwhile (0 where it cannot be read).
	Wall, CPU time.Duration
	// Proposal is the independence proposal FitProposal fitted (nil
	// before it runs).
	Proposal *Proposal
}

// Tuning returns the target level's starting tuning: the Laplace
// covariance as a dense inverse metric (no step size: the kernel's
// warm-up finds one).
func (w *WarmStart) Tuning() Tuning {
	return Tuning{InvMetricDense: append([]float64(nil), w.Cov...)}
}

// SD returns the Laplace approximation's standard deviation of each
// parameter.
func (w *WarmStart) SD() []float64 {
	d := len(w.Mode)
	sd := make([]float64, d)
	for i := range d {
		sd[i] = math.Sqrt(w.Cov[i*d+i])
	}
	return sd
}

// GradEquivalents returns the warm start's work in full-data gradient
// evaluations, each stage's evaluations priced at (Size/N)³, the cost of
// a dense factorisation (a GP's).
func (w *WarmStart) GradEquivalents(n int) float64 {
	var s float64
	for _, st := range w.Stages {
		r := float64(st.Size) / float64(n)
		s += float64(st.Evals) * r * r * r
	}
	return s
}

// FindMode finds the posterior mode of t by quasi-Newton optimisation
// (L-BFGS with the analytic gradient) on nested subsets of growing size —
// prefixes of one random permutation, MinSubset, 2·MinSubset, …, N — from
// several starts on the smallest subset, each stage starting from the
// optima of the one before, so that most of the search is paid at a
// fraction of the full data's cost. The last stage searches in the
// coordinates that the Laplace approximation at the best optimum of the
// stage before whitens (its Hessian on that subset, Dim + 1 gradients
// there), so that L-BFGS's steps fit the parameters' scales: on the GP of
// the §4.2 generator at D = 8 it took 22–25 fewer full-data gradients
// (BenchmarkFindModeWhitening). At the full data's mode it builds the
// Laplace approximation and draws over-dispersed starting points for the
// chains. It is the warm start of large fits: Settings.Init = Inits and
// Settings.InitTuning = Tuning() give the chains the mode's
// neighbourhood and its shape, and their warm-up can be short. The draws
// of a Run started so are as exact as any (warm-up only starts
// elsewhere). If ctx is cancelled it returns ctx's error.
func FindMode(ctx context.Context, t Target, opt WarmStartOptions) (*WarmStart, error) {
	start := time.Now()
	cpu0, cpuOK := ProcessCPU()
	if err := opt.setDefaults(); err != nil {
		return nil, err
	}
	dim, n := t.Dim(), t.NumObs()
	if dim < 1 || n < 1 {
		return nil, fmt.Errorf("tempering: warm start needs a target with parameters and observations, got dimension %d and %d observations", dim, n)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, warmStream))
	perm := rng.Perm(n)
	sizes := subsetSizes(n, opt.MinSubset)
	starts := warmStarts(t, rng, opt.Starts, dim)

	workers := min(opt.Workers, max(opt.Starts, dim))
	clones, err := clonePool(t, workers)
	if err != nil {
		return nil, fmt.Errorf("tempering: warm start: %w", err)
	}
	defer closePool(clones)

	w := &WarmStart{}
	pool := evalPool{clones, opt.Concurrency}
	tell := opt.progress(start, n)
	optima, logPosts, err := w.climbStages(ctx, pool, perm, sizes, starts, opt.ModeGap, tell)
	if err != nil {
		return nil, err
	}
	w.separateModes(clones[0], optima, logPosts, opt.ModeGap)
	t0 := time.Now()
	if err := w.laplace(ctx, pool); err != nil {
		return nil, err
	}
	w.measureDrops(clones[0])
	if err := w.drawInits(clones[0], rng, opt.Chains, opt.Dispersion); err != nil {
		return nil, err
	}
	fit := opt.Proposal != nil && (w.Unimodal() || opt.AllModes)
	po := ProposalOptions{}
	if fit {
		po = *opt.Proposal
		if po.Workers == 0 {
			po.Workers = opt.Workers
		}
		if po.Concurrency == nil {
			po.Concurrency = opt.Concurrency
		}
		if err := po.fill(); err != nil {
			return nil, err
		}
	}
	tell(WarmProgress{Step: WarmLaplace, Optima: w.Modes, Rounds: po.Rounds, Draws: po.Draws, EnoughESS: po.EnoughESS, StepTime: time.Since(t0)})
	if fit {
		if err := w.modeCorners(ctx, pool); err != nil {
			return nil, err
		}
		if !opt.NoCorners {
			if err := w.fitCorners(ctx, pool); err != nil {
				return nil, err
			}
		}
		po.progress = tell
		if _, err := w.fitProposal(ctx, t, clones, po); err != nil {
			return nil, err
		}
	}
	w.Wall = time.Since(start)
	if cpu1, ok := ProcessCPU(); ok && cpuOK {
		w.CPU = cpu1 - cpu0
	}
	return w, nil
}

// progress returns the function that passes a step's WarmProgress, with N
// and Elapsed (since start) filled in, to opt.Progress; one that does
// nothing where it is nil.
func (opt *WarmStartOptions) progress(start time.Time, n int) func(WarmProgress) {
	if opt.Progress == nil {
		return func(WarmProgress) {}
	}
	return func(p WarmProgress) {
		p.N, p.Elapsed = n, time.Since(start)
		opt.Progress(p)
	}
}

// setDefaults replaces opt's zero fields by their defaults and checks the
// result.
func (opt *WarmStartOptions) setDefaults() error {
	if opt.Starts == 0 {
		opt.Starts = 4
	}
	if opt.MinSubset == 0 {
		opt.MinSubset = 256
	}
	if opt.Chains == 0 {
		opt.Chains = 3
	}
	if opt.Dispersion == 0 {
		opt.Dispersion = 2
	}
	if opt.ModeGap == 0 {
		opt.ModeGap = 10
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case opt.Starts < 1:
		return fmt.Errorf("tempering: warm start needs at least 1 start, got %d", opt.Starts)
	case opt.MinSubset < 1:
		return fmt.Errorf("tempering: warm start's smallest subset must be ≥ 1, got %d", opt.MinSubset)
	case opt.Chains < 1:
		return fmt.Errorf("tempering: warm start needs at least 1 chain, got %d", opt.Chains)
	case !(opt.Dispersion > 0) || math.IsInf(opt.Dispersion, 0):
		return fmt.Errorf("tempering: warm start's dispersion must be positive and finite, got %v", opt.Dispersion)
	case !(opt.ModeGap > 0):
		return fmt.Errorf("tempering: warm start's mode gap must be positive, got %v", opt.ModeGap)
	case opt.Workers < 1:
		return fmt.Errorf("tempering: warm start needs at least 1 worker, got %d", opt.Workers)
	}
	return nil
}

// subsetSizes returns the stages' subset sizes, smallest first: n, n/2,
// n/4, … down to the last that is at least minSubset (n alone when n/2 is
// below it), reversed.
func subsetSizes(n, minSubset int) []int {
	var sizes []int
	for s := n; ; s /= 2 {
		sizes = append(sizes, s)
		if s/2 < minSubset {
			break
		}
	}
	slices.Reverse(sizes)
	return sizes
}

// warmStarts returns the optimiser's starting points: the target's own
// (up to 3, if it is a Starter), then uniform in (−2, 2)^dim (Stan's),
// drawn from rng.
func warmStarts(t Target, rng *rand.Rand, count, dim int) [][]float64 {
	starts := make([][]float64, count)
	st, hasStarter := t.(Starter)
	for i := range starts {
		u := make([]float64, dim)
		if hasStarter && i < 3 {
			st.Start(i, 3, u)
		} else {
			for j := range u {
				u[j] = 4*rng.Float64() - 2
			}
		}
		starts[i] = u
	}
	return starts
}

// climbStages optimises from starts on the subsets perm[:size] for each
// of sizes (the last, all the data), each stage from the optima of the
// one before, and records each stage's work in w.Stages. Between stages
// it keeps the optima that may still matter at the full data; it returns
// the last stage's distinct optima, the best first, and their log
// posterior densities.
func (w *WarmStart) climbStages(ctx context.Context, pool evalPool, perm, sizes []int, starts [][]float64, modeGap float64, tell func(WarmProgress)) ([][]float64, []float64, error) {
	n := len(perm)
	optima := starts
	var logPosts []float64
	for k, size := range sizes {
		t0 := time.Now()
		var subset []int
		if size < n {
			subset = perm[:size]
		}
		var white *affine
		if k > 0 && k == len(sizes)-1 && whitenLastStage {
			var err error
			if white, err = w.stageWhitening(ctx, pool, perm[:sizes[k-1]], optima[0], float64(size)/float64(sizes[k-1])); err != nil {
				return nil, nil, err
			}
		}
		res, evals, err := optimiseWhitened(ctx, pool, subset, white, optima)
		if err != nil {
			return nil, nil, err
		}
		w.Stages = append(w.Stages, StageWork{Size: size, Evals: evals})
		optima, logPosts = distinct(res)
		if len(optima) == 0 {
			return nil, nil, fmt.Errorf("tempering: warm start: no start reached a finite log density on %d observations", size)
		}
		// Keep the optima that may still matter at the full data: the
		// gap between optima grows about in proportion to the data.
		keep := 1
		for keep < len(optima) && (logPosts[0]-logPosts[keep])*float64(n)/float64(size) < 4*modeGap {
			keep++
		}
		if k == len(sizes)-1 {
			keep = len(optima)
		}
		optima, logPosts = optima[:keep], logPosts[:keep]
		tell(WarmProgress{Step: WarmStage, Size: size, Optima: keep, StepTime: time.Since(t0)})
	}
	return optima, logPosts, nil
}

// whitenLastStage makes the warm start's last stage search in the
// coordinates that the Laplace approximation on the stage before whitens
// (stageWhitening). Only tests and benchmarks turn it off, to measure
// what it does.
var whitenLastStage = true

// stageWhitening returns the whitening (optimiseWhitened) of the Laplace
// approximation at x on the observations subset, its negative Hessian
// (by an fdSweep, Dim + 1 gradients on pool, counted in the work of the
// stage on subset, the latest in w.Stages) multiplied by grow, the ratio
// of the next stage's observations to subset's, as the posterior narrows
// with the data: the last stage's
// search then runs where the curvature is about the identity. Nil where
// a gradient fails or the Hessian is not negative definite there.
func (w *WarmStart) stageWhitening(ctx context.Context, pool evalPool, subset []int, x []float64, grow float64) (*affine, error) {
	s, err := sweepOn(ctx, pool, subset, x)
	w.Stages[len(w.Stages)-1].Evals += len(x) + 1
	if err != nil || s.err != nil {
		return nil, err
	}
	p := s.negHessian()
	p.ScaleSym(grow, p)
	cov, err := inversePD(p)
	if err != nil {
		return nil, nil
	}
	return newAffine(x, cov), nil
}

// separateModes sets w's Optima, OptimaLogPos, Modes and Mode from the
// full data's optima (the best first). Optima joined to the best by a
// path without a dip of more than one nat (a ridge along a length scale
// that the data do not pin down) are one mode; the others within modeGap
// are modes of their own. The path checks' evaluations, on t, count in
// the last stage's work.
func (w *WarmStart) separateModes(t Target, optima [][]float64, logPosts []float64, modeGap float64) {
	keepU, keepLP := optima[:1], logPosts[:1]
	checks := 0
	for k := 1; k < len(optima); k++ {
		if logPosts[0]-logPosts[k] > modeGap {
			continue
		}
		sep, n := separated(t, optima[0], optima[k], logPosts[0], logPosts[k])
		checks += n
		if sep {
			keepU, keepLP = append(keepU, optima[k]), append(keepLP, logPosts[k])
		}
	}
	w.Stages[len(w.Stages)-1].Evals += checks
	w.Optima, w.OptimaLogPos = keepU, keepLP
	w.Modes = len(keepU)
	w.Mode = append([]float64(nil), optima[0]...)
}

// separated reports whether the straight path on t from a to b (of log
// densities lpa and lpb) dips more than one nat below the lower of the
// two at a quarter, half or three quarters of the way (or fails to
// evaluate there), with the number of log densities it took.
func separated(t Target, a, b []float64, lpa, lpb float64) (bool, int) {
	low := min(lpa, lpb) - 1
	u := make([]float64, len(a))
	checks := 0
	for _, f := range []float64{0.25, 0.5, 0.75} {
		for i := range u {
			u[i] = (1-f)*a[i] + f*b[i]
		}
		checks++
		lp, err := logPost(t, nil, u, nil)
		if err != nil || lp < low {
			return true, checks
		}
	}
	return false, checks
}

// laplace sets w's LogPost, Grad, SecondsPerGrad and Cov at w.Mode: the
// Hessian by forward differences of the gradient, evaluated in parallel
// on pool, and the Laplace covariance its negative's inverse.
func (w *WarmStart) laplace(ctx context.Context, pool evalPool) error {
	dim := len(w.Mode)
	s, err := sweepAt(ctx, pool, w.Mode)
	if err != nil {
		return err
	}
	w.Stages[len(w.Stages)-1].Evals += dim + 1
	if s.err != nil {
		return fmt.Errorf("tempering: warm start: the Hessian at the mode: %w", s.err)
	}
	for _, v := range s.secs {
		w.SecondsPerGrad += v / float64(dim+1)
	}
	w.GradsAtOnce = min(len(pool.ts), dim+1)
	w.LogPost, w.Grad = s.lps[dim], s.grads[dim]
	cov, err := inversePD(s.negHessian())
	if err != nil {
		return fmt.Errorf("tempering: warm start: %w", err)
	}
	w.Cov = cov
	return nil
}

// fdSweep holds the evaluations of a Hessian by forward differences of
// the gradient at x: grads[j] and lps[j] at x + h_j e_j for j < Dim and
// at x itself for j = Dim, secs[j] the seconds each took, err the first
// evaluation's error (nil if none).
type fdSweep struct {
	h, lps, secs []float64
	grads        [][]float64
	err          error
}

// sweepAt makes the Dim + 1 evaluations of an fdSweep at x, in parallel
// on pool; the error is the context's.
func sweepAt(ctx context.Context, pool evalPool, x []float64) (*fdSweep, error) {
	return sweepOn(ctx, pool, nil, x)
}

// sweepOn is sweepAt on the observations subset (nil: all).
func sweepOn(ctx context.Context, pool evalPool, subset []int, x []float64) (*fdSweep, error) {
	dim := len(x)
	s := &fdSweep{h: make([]float64, dim), lps: make([]float64, dim+1), secs: make([]float64, dim+1), grads: make([][]float64, dim+1)}
	for j := range s.h {
		s.h[j] = 1e-4 * max(1, math.Abs(x[j]))
	}
	errs := make([]error, dim+1)
	err := pool.run(ctx, dim+1, func(t Target, j int) {
		u := append([]float64(nil), x...)
		if j < dim {
			u[j] += s.h[j]
		}
		g := make([]float64, dim)
		t0 := time.Now()
		s.lps[j], errs[j] = logPost(t, subset, u, g)
		s.secs[j] = time.Since(t0).Seconds()
		s.grads[j] = g
	})
	for _, e := range errs {
		if e != nil && s.err == nil {
			s.err = e
		}
	}
	return s, err
}

// laplaceCov returns the Laplace approximation's covariance at x, the
// inverse of the negative Hessian by an fdSweep (Dim + 1 gradients on
// pool): nil where a gradient fails or the Hessian has no negative
// curvature. The error is the context's.
func laplaceCov(ctx context.Context, pool evalPool, x []float64) ([]float64, error) {
	s, err := sweepAt(ctx, pool, x)
	if err != nil || s.err != nil {
		return nil, err
	}
	cov, err := inversePD(s.negHessian())
	if err != nil {
		return nil, nil
	}
	return cov, nil
}

// negHessian returns the sweep's negative Hessian, symmetrised.
func (s *fdSweep) negHessian() *mat.SymDense {
	dim := len(s.h)
	negH := mat.NewSymDense(dim, nil)
	for i := range dim {
		for j := i; j < dim; j++ {
			a := -(s.grads[j][i] - s.grads[dim][i]) / s.h[j]
			b := -(s.grads[i][j] - s.grads[dim][j]) / s.h[i]
			negH.SetSym(i, j, (a+b)/2)
		}
	}
	return negH
}

// measureDrops sets w's Drops and NonGaussian: how Gaussian the posterior
// is along each parameter, two value evaluations each on t.
func (w *WarmStart) measureDrops(t Target) {
	dim := len(w.Mode)
	cov := w.Cov
	w.Drops = make([][2]float64, dim)
	u := make([]float64, dim)
	for i := range dim {
		for side, sgn := range []float64{-1, 1} {
			copy(u, w.Mode)
			u[i] += sgn * 2 * math.Sqrt(cov[i*dim+i])
			drop := math.Inf(1)
			if lp, err := logPost(t, nil, u, nil); err == nil {
				drop = w.LogPost - lp
			}
			w.Drops[i][side] = drop
		}
		if d := w.Drops[i]; math.IsInf(d[0], 1) || math.IsInf(d[1], 1) || math.Abs(d[0]-d[1]) > 1 && max(d[0], d[1]) > 2*min(d[0], d[1]) {
			w.NonGaussian = append(w.NonGaussian, i)
		}
	}
	w.Stages[len(w.Stages)-1].Evals += 2 * dim
}

// drawInits sets w.Inits to chains over-dispersed starting points drawn
// from N(Mode, s²·Cov) with rng, s = dispersion shrunk by 0.7 a try until
// the log density on t is finite (the mode itself after 20 tries).
func (w *WarmStart) drawInits(t Target, rng *rand.Rand, chains int, dispersion float64) error {
	dim := len(w.Mode)
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(dim, append([]float64(nil), w.Cov...))) {
		return errors.New("tempering: warm start: the Laplace covariance is not positive definite")
	}
	var L mat.TriDense
	chol.LTo(&L)
	z := make([]float64, dim)
	for range chains {
		u := make([]float64, dim)
		ok := false
		for try, s := 0, dispersion; try < 20; try, s = try+1, s*0.7 {
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			for i := range dim {
				v := 0.0
				for j := 0; j <= i; j++ {
					v += L.At(i, j) * z[j]
				}
				u[i] = w.Mode[i] + s*v
			}
			if lp, err := logPost(t, nil, u, nil); err == nil && !math.IsInf(lp, 0) && !math.IsNaN(lp) {
				ok = true
				break
			}
		}
		if !ok {
			copy(u, w.Mode)
		}
		w.Inits = append(w.Inits, u)
	}
	return nil
}

// warmStream is the PCG stream of the warm start's randomness, apart from
// the chains' streams 0, 1, ….
const warmStream = 0x5741524d // "WARM"

// logPost returns log p(X_subset|u) + log p(u) and, if grad is non-nil,
// its gradient there; an evaluation that fails or is not finite is an
// error.
func logPost(t Target, subset []int, u, grad []float64) (float64, error) {
	var gp []float64
	if grad != nil {
		gp = make([]float64, len(grad))
	}
	lp := t.LogPrior(u, gp)
	if !validLog(lp) {
		return 0, fmt.Errorf("log prior %v at %v", lp, u)
	}
	ll, err := t.LogLik(subset, u, grad)
	if err != nil {
		return 0, err
	}
	if !validLog(ll) {
		return 0, fmt.Errorf("log-likelihood %v at %v", ll, u)
	}
	for i := range grad {
		grad[i] += gp[i]
		if math.IsNaN(grad[i]) || math.IsInf(grad[i], 0) {
			return 0, fmt.Errorf("gradient component %d is %v at %v", i, grad[i], u)
		}
	}
	return ll + lp, nil
}

// optimum is one optimisation's outcome: the best point it reached and
// its log posterior density (−∞ if it never reached a finite one).
type optimum struct {
	u       []float64
	logPost float64
}

// optimiseAll maximises the log posterior on subset (size observations)
// from each of starts, running up to len(pool) optimisations at once, and
// returns their optima in the order of starts with the number of
// evaluations made.
func optimiseAll(ctx context.Context, pool evalPool, subset []int, starts [][]float64, size int) ([]optimum, int, error) {
	res := make([]optimum, len(starts))
	evals := make([]int, len(starts))
	err := pool.run(ctx, len(starts), func(t Target, i int) {
		res[i], evals[i] = optimise(ctx, t, subset, starts[i], size)
	})
	if err != nil {
		return nil, 0, err
	}
	total := 0
	for _, e := range evals {
		total += e
	}
	return res, total, nil
}

// evalPool is the clones of a target that evaluations run on side by
// side, and the hook told, before each batch, how many run at once
// (WarmStartOptions.Concurrency; nil: none).
type evalPool struct {
	ts     []Target
	atOnce func(int)
}

// run calls f(t, i) for i = 0, …, n−1, each on one of the pool's targets,
// len(p.ts) calls at a time at most, and returns ctx's error if it was
// cancelled (calls not yet begun are then skipped).
func (p evalPool) run(ctx context.Context, n int, f func(t Target, i int)) error {
	if p.atOnce != nil && n > 0 {
		p.atOnce(min(len(p.ts), n))
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for wi := range min(len(p.ts), n) {
		wg.Go(func() {
			for i := range jobs {
				f(p.ts[wi], i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return ctx.Err()
}

// optimise maximises the log posterior on subset from u0 by L-BFGS and
// returns the best point evaluated and the number of evaluations. It stops
// once the gradient's largest component falls below 10⁻³·√size (a Newton
// step of about 10⁻³ posterior standard deviations), after 500
// iterations, or when ctx is cancelled.
func optimise(ctx context.Context, t Target, subset []int, u0 []float64, size int) (optimum, int) {
	dim := len(u0)
	best := optimum{u: append([]float64(nil), u0...), logPost: math.Inf(-1)}
	lastX := make([]float64, dim)
	lastG := make([]float64, dim)
	var lastF float64
	have := false
	evals := 0
	eval := func(x []float64) {
		if have && slices.Equal(x, lastX) {
			return
		}
		copy(lastX, x)
		have = true
		if ctx.Err() != nil {
			lastF = math.Inf(1)
			clear(lastG)
			return
		}
		evals++
		lp, err := logPost(t, subset, x, lastG)
		if err != nil {
			lastF = math.Inf(1)
			clear(lastG)
			return
		}
		lastF = -lp
		for i := range lastG {
			lastG[i] = -lastG[i]
		}
		if lp > best.logPost {
			best.logPost = lp
			copy(best.u, x)
		}
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return lastF },
		Grad: func(g, x []float64) { eval(x); copy(g, lastG) },
	}
	set := &optimize.Settings{
		GradientThreshold: 1e-3 * math.Sqrt(float64(size)),
		MajorIterations:   500,
		Converger:         &ctxConverger{ctx: ctx, fc: optimize.FunctionConverge{Absolute: 1e-9, Relative: 1e-12, Iterations: 20}},
	}
	// An error (a failed line search at a point where the density is
	// −∞, a cancelled context) leaves the best point evaluated, which is
	// what is wanted.
	_, _ = optimize.Minimize(p, u0, set, &optimize.LBFGS{})
	return best, evals
}

// ctxConverger is a FunctionConverge that also ends the optimisation when
// its context is cancelled.
type ctxConverger struct {
	ctx context.Context
	fc  optimize.FunctionConverge
}

func (c *ctxConverger) Init(dim int) { c.fc.Init(dim) }

func (c *ctxConverger) Converged(l *optimize.Location) optimize.Status {
	if c.ctx.Err() != nil {
		return optimize.RuntimeLimit
	}
	return c.fc.Converged(l)
}

// distinct returns the distinct optima of res (finite ones only), best
// first, with their log posterior densities: two optima are the same
// when no coordinate differs by more than 0.1.
func distinct(res []optimum) ([][]float64, []float64) {
	ok := make([]optimum, 0, len(res))
	for _, r := range res {
		if !math.IsInf(r.logPost, -1) {
			ok = append(ok, r)
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].logPost > ok[j].logPost })
	var us [][]float64
	var lps []float64
next:
	for _, r := range ok {
		for _, u := range us {
			same := true
			for i := range u {
				if math.Abs(u[i]-r.u[i]) > 0.1 {
					same = false
					break
				}
			}
			if same {
				continue next
			}
		}
		us = append(us, r.u)
		lps = append(lps, r.logPost)
	}
	return us, lps
}

// inversePD returns the inverse of the symmetric matrix a, row-major,
// after raising its eigenvalues to at least 10⁻⁸ of the largest (and to a
// positive floor if none is positive), so that the result is positive
// definite.
func inversePD(a *mat.SymDense) ([]float64, error) {
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return nil, errors.New("the Hessian's eigendecomposition failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := slices.Max(vals)
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, fmt.Errorf("the log density's Hessian at the mode has no negative curvature (largest eigenvalue of its negative %v)", top)
	}
	floor := 1e-8 * top
	d := len(vals)
	out := make([]float64, d*d)
	for k, v := range vals {
		inv := 1 / max(v, floor)
		for i := range d {
			vi := vecs.At(i, k) * inv
			for j := range d {
				out[i*d+j] += vi * vecs.At(j, k)
			}
		}
	}
	return out, nil
}

// WarmStartWarmup is the number of warm-up iterations Apply gives a run
// whose Warmup is zero: enough for dual averaging to settle the step size
// in the Laplace approximation's metric from starting points near the
// mode (on the GP at N = 512, D = 3, 75 iterations converged for 2 201
// full-data gradients, 150 for 2 967).
const WarmStartWarmup = 75

// WarmKernel returns the kernel Apply gives a run whose Kernel is nil:
// PerLevel{Target: HMC{Length: 1.5, Jitter: 0.2}, Hot: MH{}}. In the
// Laplace covariance's metric a near-Gaussian posterior's trajectories
// have period about 2π, and an integration time of 1.5 (about a quarter
// period, L = 2 leapfrog steps at the step sizes warm-up finds for a
// handful of parameters) takes each transition to a nearly independent
// point: on the GP at N = 512, D = 3 it needed 2 967 full-data gradients
// to converge where HMC with L = 10 needed 14 977 and NUTS 4 812
// (docs/LARGE.md).
func WarmKernel() Kernel {
	return PerLevel{Target: HMC{Length: 1.5, Jitter: 0.2}, Hot: MH{}}
}

// Unimodal reports whether the optimisation found a single mode that
// matters (Modes == 1): then hotter levels have no other mode to reach,
// and the kernel alone (Driver None) is the cheapest exact sampler.
func (w *WarmStart) Unimodal() bool { return w.Modes == 1 }

// Apply makes s start from the warm start: the chains start at Inits and
// the target level's kernel with the Laplace covariance as its inverse
// metric (InitTuning); a gradient kernel there (HMC, NUTS, the target of a
// PerLevel) then adapts its step size only (AdaptStep), unless it adapts
// nothing, and an Independence kernel with no Center proposes from the
// Laplace approximation (centred at Mode, scale matrix Cov). A nil Kernel becomes WarmKernel() and a zero Warmup
// WarmStartWarmup. The driver is the caller's to choose (see Unimodal).
//
// With s.Transform set (before Apply), the metric and an Independence
// kernel's centre and scale are mapped into the chains' space v
// (CovInChainSpace at the mode); the starting points stay in u, as Run
// takes them.
func (w *WarmStart) Apply(s *Settings) {
	s.Init = w.Inits
	mode, cov := w.Mode, w.Cov
	if s.Transform != nil {
		cov = CovInChainSpace(s.Transform, w.Mode, w.Cov)
		mode = make([]float64, len(w.Mode))
		s.Transform.FromTarget(w.Mode, mode)
	}
	s.InitTuning = &Tuning{InvMetricDense: append([]float64(nil), cov...)}
	if s.Warmup == 0 {
		s.Warmup = WarmStartWarmup
	}
	k := s.Kernel
	if k == nil {
		k = WarmKernel()
	}
	if pl, ok := k.(PerLevel); ok && pl.Target != nil {
		pl.Target = fitWarm(pl.Target, mode, cov)
		k = pl
	} else {
		k = fitWarm(k, mode, cov)
	}
	s.Kernel = k
}

// fitWarm returns k fitted to the warm start: a gradient kernel adapting
// its step size only, an Independence kernel with an empty Center centred
// at the mode with the Laplace covariance (both in the chains' space).
func fitWarm(k Kernel, mode, cov []float64) Kernel {
	if ik, ok := k.(Independence); ok && len(ik.Center) == 0 {
		ik.Center = append([]float64(nil), mode...)
		ik.Cov = append([]float64(nil), cov...)
		return ik
	}
	return stepOnly(k)
}

// stepOnly returns a gradient kernel that adapts its step size only
// (keeping a metric set by InitTuning); other kernels unchanged.
func stepOnly(k Kernel) Kernel {
	switch v := k.(type) {
	case HMC:
		if v.Adapt != AdaptNone {
			v.Adapt = AdaptStep
		}
		return v
	case NUTS:
		if v.Adapt != AdaptNone {
			v.Adapt = AdaptStep
		}
		return v
	}
	return k
}
