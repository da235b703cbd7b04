package tempering

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Corner is a Gaussian approximation of the posterior away from its mode
// along one parameter, in u: centred at Center with covariance Cov
// (Dim×Dim, row-major). The other parameters' conditional covariance and
// their regression on that one come from the Hessian at Center; that
// parameter's own variance is the Laplace approximation's.
type Corner struct {
	Center, Cov []float64
	// Mode is true where Center is a local mode of its own (one of
	// WarmStart.Optima after the first) and Cov the Laplace
	// approximation there.
	Mode bool
}

// cornerDrop is the fall of the log density from the mode at which
// fitCorners places a corner along a parameter: where a Gaussian's
// would be two standard deviations out.
const cornerDrop = 2

// cornerSteps are the distances from the mode, in Laplace standard
// deviations, at which fitCorners looks for the fall of cornerDrop.
var cornerSteps = []float64{0.5, 1, 1.5, 2, 2.5, 3, 4}

// fitCorners sets w.Corners: for each side of each parameter the warm
// start finds non-Gaussian (NonGaussian), a Gaussian approximation at the
// farthest of cornerSteps along that parameter where the log density has
// fallen by at most cornerDrop from the mode, the other parameters moved
// by one Newton step to their conditional mode (cornerAt: two Hessians by
// forward differences of the gradient, Dim + 1 evaluations each; a side
// whose Hessian's block of the other parameters is not negative definite
// gets none). The Laplace approximation at the mode says nothing of how
// the other parameters spread where the non-Gaussian one is far from
// its mode, and a proposal fitted around the mode misses mass there
// (a length scale's spread that grows as another's shrinks); these
// approximations are what importance sampling mixes in to cover it.
func (w *WarmStart) fitCorners(ctx context.Context, pool evalPool) error {
	for _, i := range w.NonGaussian {
		for _, sgn := range []float64{-1, 1} {
			x, err := w.cornerPoint(ctx, pool, i, sgn)
			if err != nil {
				return err
			}
			if x == nil {
				continue
			}
			c, err := w.cornerAt(ctx, pool, x, i)
			if err != nil {
				return err
			}
			if c != nil {
				w.Corners = append(w.Corners, *c)
			}
		}
	}
	return nil
}

// cornerPoint returns the farthest point of cornerSteps from the mode
// along parameter i on side sgn whose log density is within cornerDrop
// of the mode's (nil if none), value evaluations on pool.
func (w *WarmStart) cornerPoint(ctx context.Context, pool evalPool, i int, sgn float64) ([]float64, error) {
	dim := len(w.Mode)
	sd := math.Sqrt(w.Cov[i*dim+i])
	pts := make([][]float64, len(cornerSteps))
	for j, a := range cornerSteps {
		pts[j] = append([]float64(nil), w.Mode...)
		pts[j][i] += sgn * a * sd
	}
	lp, err := logPosts(ctx, pool, pts)
	if err != nil {
		return nil, err
	}
	w.Stages[len(w.Stages)-1].Evals += len(pts)
	var best []float64
	for j, v := range lp {
		if w.LogPost-v <= cornerDrop {
			best = pts[j]
		}
	}
	return best, nil
}

// cornerAt returns the Gaussian approximation at x with the parameters
// other than i moved by one Newton step to their conditional mode (each
// by at most three Laplace standard deviations): the others' conditional
// covariance and their regression on parameter i from the negative
// Hessian P at the moved point (P_oo⁻¹ and −P_oo⁻¹P_oi), parameter i's
// variance the Laplace approximation's. It is nil where P_oo is not
// positive definite there (or at x) or a gradient fails.
func (w *WarmStart) cornerAt(ctx context.Context, pool evalPool, x []float64, i int) (*Corner, error) {
	dim := len(x)
	c := &Corner{Center: append([]float64(nil), x...)}
	var chol mat.Cholesky
	var slope []float64
	var oth []int
	for step := range 2 {
		s, err := sweepAt(ctx, pool, c.Center)
		w.Stages[len(w.Stages)-1].Evals += dim + 1
		if err != nil || s.err != nil {
			return nil, err
		}
		g := s.grads[dim]
		var poo *mat.SymDense
		var poi []float64
		poo, poi, oth = others(s.negHessian(), i)
		if !chol.Factorize(poo) {
			return nil, nil
		}
		if step == 1 {
			slope = solveNeg(&chol, poi)
			break
		}
		gv := make([]float64, len(oth))
		for a, j := range oth {
			gv[a] = g[j]
		}
		d := solveNeg(&chol, gv)
		for a, j := range oth {
			lim := 3 * math.Sqrt(w.Cov[j*dim+j])
			c.Center[j] -= math.Max(-lim, math.Min(lim, d[a]))
		}
	}
	var inv mat.SymDense
	if chol.InverseTo(&inv) != nil {
		return nil, nil
	}
	vi := w.Cov[i*dim+i]
	c.Cov = make([]float64, dim*dim)
	c.Cov[i*dim+i] = vi
	for a, ja := range oth {
		c.Cov[ja*dim+i], c.Cov[i*dim+ja] = slope[a]*vi, slope[a]*vi
		for b, jb := range oth {
			c.Cov[ja*dim+jb] = inv.At(a, b) + slope[a]*slope[b]*vi
		}
	}
	return c, nil
}

// modeCorners adds to w.Corners the Laplace approximation at each of
// w.Optima after the first (Mode true; Dim + 1 gradients each, by
// forward differences of the gradient on pool): importance sampling's
// proposals, fitted at the best mode, then cover the others. A mode
// whose Hessian fails or has no negative curvature gets none.
func (w *WarmStart) modeCorners(ctx context.Context, pool evalPool) error {
	for _, x := range w.Optima[1:] {
		cov, err := laplaceCov(ctx, pool, x)
		w.Stages[len(w.Stages)-1].Evals += len(x) + 1
		if err != nil {
			return err
		}
		if cov != nil {
			w.Corners = append(w.Corners, Corner{Center: append([]float64(nil), x...), Cov: cov, Mode: true})
		}
	}
	return nil
}

// others returns the negative Hessian p's block of the parameters other
// than i, its column i without entry i, and those parameters' indices.
func others(p *mat.SymDense, i int) (*mat.SymDense, []float64, []int) {
	dim, _ := p.Dims()
	oth := make([]int, 0, dim-1)
	for j := range dim {
		if j != i {
			oth = append(oth, j)
		}
	}
	poo := mat.NewSymDense(max(1, len(oth)), nil)
	poi := make([]float64, len(oth))
	for a, ja := range oth {
		poi[a] = p.At(ja, i)
		for b, jb := range oth {
			poo.SetSym(a, b, p.At(ja, jb))
		}
	}
	return poo, poi, oth
}

// solveNeg returns −A⁻¹b for the factorised A.
func solveNeg(chol *mat.Cholesky, b []float64) []float64 {
	var d mat.VecDense
	if err := chol.SolveVecTo(&d, mat.NewVecDense(len(b), b)); err != nil {
		return make([]float64, len(b))
	}
	out := make([]float64, len(b))
	for a := range out {
		out[a] = -d.AtVec(a)
	}
	return out
}

// CornerShare is the share of an importance-sampling proposal that its
// corners take (ImportanceOptions.Corners). Measured on a posterior with
// a corner over 20 seeds (docs/LARGE.md): at 0.2 the estimates were
// calibrated but 7 fits ran to 20 000 draws without converging (one
// looked at ended with k̂ 0.94, the corner's deepest part wider than its
// Gaussian); at 0.4 every fit converged, in 3 300 draws on average. On
// diamonds at N_train = 2048 it doubled the draws, on the §4.2 generator
// at N = 1024 it added 0–29%.
const CornerShare = 0.4

// cornerLevels returns the corners cs as t's of k's degrees of freedom
// and scale factor in tr's space (nil: u), each mapped at its centre;
// a corner whose scale matrix there is not positive definite is left
// out.
func cornerLevels(k Independence, tr Transform, cs []Corner) []*indepLevel {
	var out []*indepLevel
	for _, c := range cs {
		ck := Independence{Center: append([]float64(nil), c.Center...), Cov: append([]float64(nil), c.Cov...), DF: k.DF, Scale: k.Scale}
		if tr != nil {
			tr.FromTarget(c.Center, ck.Center)
			ck.Cov = CovInChainSpace(tr, c.Center, c.Cov)
		}
		if lk, err := ck.NewLevel(len(c.Center), 1); err == nil {
			out = append(out, lk.(*indepLevel))
		}
	}
	return out
}

// withCorners returns p with the corners mixed in, CornerShare of it in
// equal parts (p itself where there are none).
func withCorners(p proposer, corners []*indepLevel) proposer {
	if len(corners) == 0 {
		return p
	}
	m := &mixtureLevel{}
	if pm, ok := p.(*mixtureLevel); ok {
		for c, l := range pm.comps {
			m.comps, m.logW = append(m.comps, l), append(m.logW, pm.logW[c]+math.Log1p(-CornerShare))
		}
	} else {
		m.comps, m.logW = []*indepLevel{p.(*indepLevel)}, []float64{math.Log1p(-CornerShare)}
	}
	for _, l := range corners {
		m.comps, m.logW = append(m.comps, l), append(m.logW, math.Log(CornerShare/float64(len(corners))))
	}
	return m
}
