package tempering

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// climbModeGap is the largest fall below the best mode known, in log
// density, at which a local mode that a climb reaches
// (ImportanceOptions.Climbs) still joins the proposals: the warm
// start's default ModeGap.
const climbModeGap = 10

// climbsAtOnce is the number of draws a round of climbs starts from,
// whatever the number of workers, so that the same seed gives the same
// sample.
const climbsAtOnce = 2

// climber looks for the modes an importance-sampling proposal misses:
// it climbs from the heaviest draws to local maxima of the log density
// and makes a t of the kernel's degrees of freedom and scale factor on
// the Laplace approximation at each new mode it reaches.
type climber struct {
	k     Independence
	max   int          // climbs allowed
	tried map[int]bool // draws already climbed from
	modes [][]float64  // modes known, in the kernel's space, the first proposal's first
	lps   []float64    // their log densities (evaluated at the first climb)
	found [][]float64  // the new modes, in the target's space
	made  int          // climbs made
	evals int          // log densities (with gradient) they took
	white *affine      // the kernel's whitening, in which the climbs run (nil: none)
	toU   func(v []float64) []float64
}

// newClimber returns a climber allowed max climbs for proposals built on
// k, whose draws toU maps to the target's space. The modes known are
// mode (k's centre where it is nil) and the centres of the corners cs
// that are modes (Corner.Mode), all mapped into tr's space (nil: u).
func newClimber(k Independence, max int, toU func(v []float64) []float64, tr Transform, mode []float64, cs []Corner) *climber {
	c := &climber{k: k, max: max, tried: map[int]bool{}, toU: toU, white: newAffine(k.Center, k.Cov)}
	chainSpace := func(u []float64) []float64 {
		v := append([]float64(nil), u...)
		if tr != nil {
			tr.FromTarget(u, v)
		}
		return v
	}
	if mode != nil {
		c.modes = append(c.modes, chainSpace(mode))
	} else {
		c.modes = append(c.modes, k.Center)
	}
	for _, cn := range cs {
		if cn.Mode {
			c.modes = append(c.modes, chainSpace(cn.Center))
		}
	}
	return c
}

// climb climbs from the climbsAtOnce heaviest draws of m (log weights
// lw) not climbed from before (fewer where fewer climbs are left), each
// by L-BFGS on all observations (c.optimise, side by side on pool). It
// returns a t on the Laplace approximation at each local maximum within
// climbModeGap of the best known mode that a straight path joins to
// every known mode only through a dip (separated): a mode the proposals
// miss.
func (c *climber) climb(ctx context.Context, pool evalPool, m *mixSample, lw []float64) ([]*indepLevel, error) {
	t := pool.ts[0]
	for len(c.lps) < len(c.modes) {
		lp, err := logPost(t, nil, c.modes[len(c.lps)], nil)
		c.evals++
		if err != nil {
			lp = math.Inf(-1)
		}
		c.lps = append(c.lps, lp)
	}
	order := make([]int, 0, len(lw))
	for i := range lw {
		if !c.tried[i] && !math.IsInf(lw[i], -1) {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(lw[b], lw[a]) })
	starts := make([][]float64, 0, climbsAtOnce)
	for _, i := range order[:min(len(order), climbsAtOnce, c.left())] {
		c.tried[i] = true
		starts = append(starts, m.xs[i])
	}
	c.made += len(starts)
	res, evals, err := c.optimise(ctx, pool, starts)
	c.evals += evals
	if err != nil {
		return nil, err
	}
	var out []*indepLevel
	for _, r := range res {
		if !(slices.Max(c.lps)-r.logPost <= climbModeGap) || !c.isNew(t, r) {
			continue
		}
		cov, err := laplaceCov(ctx, pool, r.u)
		c.evals += len(r.u) + 1
		if err != nil {
			return out, err
		}
		if cov == nil {
			continue
		}
		k := Independence{Center: r.u, Cov: cov, DF: c.k.DF, Scale: c.k.Scale}
		lk, err := k.NewLevel(len(r.u), 1)
		if err != nil {
			continue
		}
		out = append(out, lk.(*indepLevel))
		c.modes, c.lps = append(c.modes, r.u), append(c.lps, r.logPost)
		c.found = append(c.found, c.toU(r.u))
	}
	return out, nil
}

// optimise maximises the log density on all observations by L-BFGS
// from each of starts, side by side on pool, in the coordinates that the
// kernel's scale matrix whitens (optimiseWhitened with c.white). On the
// GP of the §4.2 generator (N = 1024, D = 8; BenchmarkClimbWhitening)
// four climbs from a t of nine times the proposal's spread took 16
// gradients each so, against 44 in u, and reached the same mode.
func (c *climber) optimise(ctx context.Context, pool evalPool, starts [][]float64) ([]optimum, int, error) {
	return optimiseWhitened(ctx, pool, nil, c.white, starts)
}

// optimiseWhitened is optimiseAll on subset from starts in the
// coordinates x of v = a.c + L·x (a nil: v itself, with optimiseAll's
// threshold for all observations), where a whitens a Gaussian about the
// posterior's shape: there the curvature is about the identity whatever
// the parameters' scales, and L-BFGS's first steps are of about a
// standard deviation. The optima come back in v, their log densities
// without the map's Jacobian.
func optimiseWhitened(ctx context.Context, pool evalPool, subset []int, a *affine, starts [][]float64) ([]optimum, int, error) {
	if a == nil {
		size := pool.ts[0].NumObs()
		if subset != nil {
			size = len(subset)
		}
		return optimiseAll(ctx, pool, subset, starts, size)
	}
	ws := make([]Target, len(pool.ts))
	for i, t := range pool.ts {
		ws[i] = Reparam(t, a)
	}
	xs := make([][]float64, len(starts))
	for i, v := range starts {
		xs[i] = make([]float64, len(v))
		a.FromTarget(v, xs[i])
	}
	// Unit curvature: a gradient of 10⁻³ is a Newton step of 10⁻³
	// standard deviations, as optimise's threshold means in u.
	res, evals, err := optimiseAll(ctx, evalPool{ts: ws, atOnce: pool.atOnce}, subset, xs, 1)
	if err != nil {
		return nil, evals, err
	}
	for i, r := range res {
		v := make([]float64, len(r.u))
		a.ToTarget(r.u, v)
		res[i] = optimum{u: v, logPost: r.logPost - a.logDet}
	}
	return res, evals, nil
}

// affine is the transform v = c + L·x, L lower triangular: the whitening
// of a Gaussian of mean c and covariance LLᵀ.
type affine struct {
	c, chol []float64 // c and L (row-major)
	logDet  float64   // log|det L|
}

// newAffine returns the whitening of the Gaussian of mean c and
// covariance cov (row-major), nil where cov is not positive definite.
func newAffine(c, cov []float64) *affine {
	d := len(c)
	a := &affine{c: slices.Clone(c), chol: make([]float64, d*d)}
	if !cholesky(cov, a.chol, d) {
		return nil
	}
	for i := range d {
		a.logDet += math.Log(a.chol[i*d+i])
	}
	return a
}

// ToTarget sets v = c + L·x.
func (a *affine) ToTarget(x, v []float64) { lowerOffset(a.chol, x, a.c, 1, v) }

// FromTarget sets x = L⁻¹(v − c).
func (a *affine) FromTarget(v, x []float64) { whiten(a.chol, a.c, v, x) }

// Pullback sets gx = Lᵀ·gv.
func (a *affine) Pullback(_, gv, gx []float64) {
	d := len(gx)
	for j := range d {
		var s float64
		for i := j; i < d; i++ {
			s += a.chol[i*d+j] * gv[i]
		}
		gx[j] = s
	}
}

// LogJacobian returns log|det L|, a constant: its gradient is zero.
func (a *affine) LogJacobian(_, _ []float64) float64 { return a.logDet }

// left returns the number of climbs still allowed.
func (c *climber) left() int { return c.max - c.made }

// isNew reports whether the optimum r is separated from every mode known
// (its log density evaluations counted in c.evals).
func (c *climber) isNew(t Target, r optimum) bool {
	for k := range c.modes {
		sep, n := separated(t, c.modes[k], r.u, c.lps[k], r.logPost)
		c.evals += n
		if !sep {
			return false
		}
	}
	return true
}
