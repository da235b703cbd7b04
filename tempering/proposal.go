package tempering

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ProposalOptions configures WarmStart.FitProposal. The zero value is
// valid.
type ProposalOptions struct {
	// Transform is the chains' space v (u = g(v)) the proposal lives in;
	// nil means u itself.
	Transform Transform
	// TransformAt, if non-nil, chooses the space in place of Transform
	// from the target and the warm start's mode and Laplace covariance
	// (in u), with evals the log densities it computed on all
	// observations (Proposal.TransformEvals): a space fitted to the
	// posterior, such as the GP's variance split with b's tail compressed
	// about the mode where it falls slowly (subtemper.VarianceSplitTail).
	TransformAt func(ctx context.Context, t Target, mode, cov []float64) (tr Transform, evals int, err error)
	// Draws is the number of proposals drawn in each round. Zero means 500.
	Draws int
	// Rounds is the most rounds: the first draws from the Laplace
	// approximation, each later one from a fit to all earlier rounds'
	// weighted draws. Zero means 3.
	Rounds int
	// EnoughESS ends the rounds once one's importance ESS fraction
	// reaches it: that round's proposal is kept as it is. Zero means 0.5.
	EnoughESS float64
	// DF is the Student-t proposal's degrees of freedom (> 2). Zero means 5.
	DF float64
	// Scale multiplies the fitted covariance in the proposal's scale
	// matrix. Zero means 1.2.
	Scale float64
	// Seed determines the proposals.
	Seed uint64
	// Workers is the number of evaluations run at once, each on its own
	// clone of the target. Zero means GOMAXPROCS.
	Workers int
	// Concurrency is WarmStartOptions.Concurrency, for these evaluations.
	Concurrency func(atOnce int)
	// Split widens the kept proposal into a split-t (Independence.Split)
	// centred at the mode where the posterior reaches further than the
	// fitted covariance says: along each axis of the covariance's
	// Cholesky factor and each side of the mode, its log density is
	// evaluated at 2, 4 and 6 of the axis's units (6·Dim + 1
	// evaluations, the mode's included), and the side's scale is the
	// largest δ/√(2·fall) there, at least 1 and at most 4 (Geweke's
	// split-t).
	Split bool
	// progress is FindMode's WarmStartOptions.Progress, told of each
	// round's end.
	progress func(WarmProgress)
	// Surrogate also fits Proposal.Surrogate: the kept proposal times a
	// Gaussian-process regression of the log importance weights of every
	// draw evaluated (FitSurrogate). Where that fit fails the proposal is
	// returned without it (Proposal.SurrogateFailure).
	Surrogate bool
}

// ProposalRound is one round of FitProposal: Draws log-density evaluations
// on all observations, and the effective sample size of their importance
// weights as a fraction of Draws, (Σw)²/(Draws·Σw²).
type ProposalRound struct {
	Draws int     `json:"draws"`
	ESS   float64 `json:"ess"`
}

// Proposal is an independence proposal fitted to the posterior by
// WarmStart.FitProposal: a multivariate Student-t in the chains' space
// (Transform; nil: u), centred at Center with scale matrix Scale·Cov.
type Proposal struct {
	Transform   Transform
	Center, Cov []float64
	// Split is the split-t's scales (Independence.Split); nil for a
	// symmetric t.
	Split     []float64
	DF, Scale float64
	// Rounds holds each round's work and the importance ESS of the
	// proposal it drew from, the first round (the Laplace approximation)
	// first.
	Rounds []ProposalRound
	// ImportanceESS is the importance ESS fraction of this proposal,
	// measured on its own round's draws: the best of the rounds'.
	ImportanceESS float64
	// SecondsPerEval is the mean wall-clock time of one log-density
	// evaluation without gradient on all observations, with Workers
	// running at once.
	SecondsPerEval float64
	// EvalsAtOnce is the number of those evaluations that ran at once
	// (Workers, or fewer where clones ran out of memory).
	EvalsAtOnce int
	// SplitEvals is the number of log-density evaluations the split's
	// fit made (ProposalOptions.Split).
	SplitEvals int
	// TransformEvals is the number ProposalOptions.TransformAt made.
	TransformEvals int
	// Surrogate approximates the log posterior in the chains' space
	// (ProposalOptions.Surrogate); nil if not fitted, or if its fit
	// failed, which SurrogateFailure then says why.
	Surrogate *Surrogate
	// SurrogateFailure is FitSurrogate's error where it failed (too few
	// finite log densities, a regression not positive definite), "" if it
	// did not: a proposal without its surrogate is still a proposal.
	SurrogateFailure string

	// The rounds' draws (in the chains' space), their log densities and
	// the t each round drew from, in order: ImportanceSample's
	// ImportanceOptions.Reuse weighs them into its sample. Not kept by
	// a proposal read back from a file.
	roundX  [][]float64
	roundLP []float64
	roundT  []*tDraw
}

// ESS returns the proposal's importance ESS fraction (ImportanceESS).
func (p *Proposal) ESS() float64 { return p.ImportanceESS }

// Evals returns the number of log-density evaluations the fit made.
func (p *Proposal) Evals() int {
	n := p.SplitEvals + p.TransformEvals
	for _, r := range p.Rounds {
		n += r.Draws
	}
	return n
}

// Kernel returns the Independence kernel that proposes from p.
func (p *Proposal) Kernel() Independence {
	return Independence{Center: append([]float64(nil), p.Center...), Cov: append([]float64(nil), p.Cov...), Split: append([]float64(nil), p.Split...), Scale: p.Scale, DF: p.DF}
}

// FitProposal fits an independence proposal to t's posterior near the
// warm start's mode by adaptive importance sampling (population Monte
// Carlo): it draws opt.Draws points from a Student-t on the Laplace
// approximation (in opt.Transform's space), weighs each by posterior over
// proposal density, and refits the centre and covariance to the weighted
// draws of every round so far (each round's weights scaled to its
// importance ESS, the covariance shrunk towards the round's own as if by
// Dim + 2 draws more, so that a round of few effective draws does not
// collapse the next); each further round draws from the latest fit. It
// returns the proposal whose round had the highest importance ESS, and
// stops early once a round's reaches opt.EnoughESS. Where the
// posterior is skewed or has heavier tails than the Laplace
// approximation says (a length scale's long tail, the ridge σf and σn
// form), the fitted t covers it and an independence sampler from it
// mixes where one from the Laplace approximation sticks. Each
// evaluation is one log density without gradient on all observations,
// run opt.Workers at a time. Weights are truncated at √Draws times their
// mean (Ionides' truncated importance sampling) so that one lucky draw
// does not make the fit. The proposal is also kept in w.Proposal.
func (w *WarmStart) FitProposal(ctx context.Context, t Target, opt ProposalOptions) (*Proposal, error) {
	return w.fitProposal(ctx, t, nil, opt)
}

// fitProposal is FitProposal evaluating on lent, clones of t that the
// caller owns (FindMode's pool: no more copies of the model at once),
// or, where lent is nil, on opt.Workers clones of its own.
func (w *WarmStart) fitProposal(ctx context.Context, t Target, lent []Target, opt ProposalOptions) (*Proposal, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	dim := t.Dim()
	if len(w.Mode) != dim || len(w.Cov) != dim*dim {
		return nil, fmt.Errorf("tempering: proposal fit: warm start of dimension %d for a target of dimension %d", len(w.Mode), dim)
	}
	var trEvals int
	if opt.TransformAt != nil {
		tr, n, err := opt.TransformAt(ctx, t, w.Mode, w.Cov)
		if err != nil {
			return nil, fmt.Errorf("tempering: proposal fit: %w", err)
		}
		opt.Transform, trEvals = tr, n
	}
	center, cov := w.Mode, w.Cov
	chain := t
	if opt.Transform != nil {
		cov = CovInChainSpace(opt.Transform, w.Mode, w.Cov)
		center = make([]float64, dim)
		opt.Transform.FromTarget(w.Mode, center)
		chain = Reparam(t, opt.Transform)
	}
	mode := center // in the chains' space
	workers, err := proposalPool(chain, lent, opt)
	if err != nil {
		return nil, fmt.Errorf("tempering: proposal fit: %w", err)
	}
	if lent == nil {
		defer closePool(workers.ts)
	}
	p := &Proposal{Transform: opt.Transform, DF: opt.DF, Scale: opt.Scale, ImportanceESS: -1, TransformEvals: trEvals}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x70726f70))
	var secs float64
	var pool, allX [][]float64 // every round's draws; every draw evaluated
	var poolW, allLP []float64 // their weights; each draw's log density
	r := newTDraw(center, cov, opt.Scale, opt.DF)
	if r == nil {
		return nil, errors.New("tempering: proposal fit: the Laplace covariance is not positive definite")
	}
	for round := range opt.Rounds {
		p.roundT = append(p.roundT, r)
		xs, lq := r.sample(rng, opt.Draws)
		t0 := time.Now()
		lp, err := logPosts(ctx, workers, xs)
		took := time.Since(t0)
		secs += took.Seconds() * float64(len(workers.ts))
		if err != nil {
			return nil, err
		}
		allX, allLP = append(allX, xs...), append(allLP, lp...)
		wts, ess := importanceWeights(lp, lq)
		if wts == nil {
			return nil, errors.New("tempering: proposal fit: no proposal had a finite log density")
		}
		p.Rounds = append(p.Rounds, ProposalRound{Draws: opt.Draws, ESS: ess})
		if ess > p.ImportanceESS {
			p.Center, p.Cov, p.ImportanceESS = center, cov, ess
		}
		opt.tell(round, ess, took)
		if ess >= opt.EnoughESS {
			break
		}
		for i := range wts {
			wts[i] *= ess * float64(opt.Draws)
		}
		pool, poolW = append(pool, xs...), append(poolW, wts...)
		center, cov = shrunkMoments(pool, poolW, cov)
		if r = newTDraw(center, cov, opt.Scale, opt.DF); r == nil {
			break // the refit is degenerate: keep the best so far
		}
	}
	p.SecondsPerEval, p.EvalsAtOnce = secs/float64(p.Evals()), len(workers.ts)
	if err := p.refine(ctx, workers, opt, mode, allX, allLP); err != nil {
		return nil, err
	}
	w.Proposal = p
	return p, nil
}

// tell reports the end of round (from 0) of importance ESS ess that took
// took to opt.progress, if set.
func (opt *ProposalOptions) tell(round int, ess float64, took time.Duration) {
	if opt.progress == nil {
		return
	}
	p := WarmProgress{Step: WarmRound, Round: round + 1, Rounds: opt.Rounds, ESS: ess, EnoughESS: opt.EnoughESS, Draws: opt.Draws, StepTime: took}
	if ess < opt.EnoughESS {
		p.MaxLeft = time.Duration(opt.Rounds-round-1) * took
	}
	opt.progress(p)
}

// refine makes p a split-t around mode, in the chains' space
// (opt.Split), and fits its surrogate (opt.Surrogate) to the draws xs
// evaluated, of log densities lp, which it keeps for ImportanceSample.
func (p *Proposal) refine(ctx context.Context, pool evalPool, opt ProposalOptions, mode []float64, xs [][]float64, lp []float64) error {
	p.roundX, p.roundLP = xs, lp
	if opt.Split {
		if err := p.fitSplit(ctx, pool, mode); err != nil {
			return err
		}
	}
	if opt.Surrogate {
		var err error
		if p.Surrogate, err = FitSurrogate(p.Center, p.Cov, p.Scale, p.DF, xs, lp); err != nil {
			p.SurrogateFailure = err.Error()
		}
	}
	return nil
}

// splitDistances are the distances, in units of the covariance's axes,
// at which fitSplit measures the posterior's fall.
var splitDistances = []float64{2, 4, 6}

// fitSplit centres p at mode and sets its split scales from the log
// density's fall along each axis of p.Cov's Cholesky factor, both ways
// (ProposalOptions.Split), evaluated on pool.
func (p *Proposal) fitSplit(ctx context.Context, pool evalPool, mode []float64) error {
	D := len(mode)
	l := make([]float64, D*D)
	if !cholesky(p.Cov, l, D) {
		return errors.New("tempering: proposal fit: the fitted covariance is not positive definite")
	}
	nd := len(splitDistances)
	pts := make([][]float64, 0, 2*D*nd+1)
	pts = append(pts, mode)
	for i := range D {
		for _, sign := range []float64{-1, 1} {
			for _, d := range splitDistances {
				x := slices.Clone(mode)
				for r := i; r < D; r++ {
					x[r] += sign * d * l[r*D+i]
				}
				pts = append(pts, x)
			}
		}
	}
	lp, err := logPosts(ctx, pool, pts)
	if err != nil {
		return err
	}
	p.Center, p.Split = slices.Clone(mode), make([]float64, 2*D)
	for i := range D {
		for side := range 2 {
			sc := 1.0
			for j, d := range splitDistances {
				fall := lp[0] - lp[1+(2*i+side)*nd+j]
				switch {
				case math.IsNaN(fall) || math.IsInf(fall, 1):
					continue // beyond the posterior's support: no wider
				case fall <= d*d/(2*splitMax*splitMax):
					sc = splitMax
				default:
					sc = max(sc, d/math.Sqrt(2*fall))
				}
			}
			p.Split[2*i+side] = sc
		}
	}
	p.SplitEvals = len(pts)
	return nil
}

// logPosts returns the log posterior densities on all observations at
// xs, evaluated len(pool.ts) at a time, −∞ where an evaluation fails.
func logPosts(ctx context.Context, pool evalPool, xs [][]float64) ([]float64, error) {
	lp := make([]float64, len(xs))
	err := pool.run(ctx, len(xs), func(t Target, i int) {
		v, err := logPost(t, nil, xs[i], nil)
		if err != nil {
			v = math.Inf(-1)
		}
		lp[i] = v
	})
	return lp, err
}

// splitMax is the widest split scale fitSplit gives.
const splitMax = 4.0

func (o *ProposalOptions) fill() error {
	if o.Draws == 0 {
		o.Draws = 500
	}
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.EnoughESS == 0 {
		o.EnoughESS = 0.5
	}
	if o.DF == 0 {
		o.DF = 5
	}
	if o.Scale == 0 {
		o.Scale = 1.2
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Draws < 10:
		return fmt.Errorf("tempering: proposal fit needs at least 10 draws a round, got %d", o.Draws)
	case o.Rounds < 1:
		return fmt.Errorf("tempering: proposal fit needs at least 1 round, got %d", o.Rounds)
	case !(o.EnoughESS > 0):
		return fmt.Errorf("tempering: proposal fit's enough-ESS fraction must be positive, got %v", o.EnoughESS)
	case !(o.DF > 2):
		return fmt.Errorf("tempering: proposal fit needs more than 2 degrees of freedom (a finite covariance), got %v", o.DF)
	case !(o.Scale > 0) || math.IsInf(o.Scale, 0):
		return fmt.Errorf("tempering: proposal fit's scale must be positive and finite, got %v", o.Scale)
	case o.Workers < 1:
		return fmt.Errorf("tempering: proposal fit needs at least 1 worker, got %d", o.Workers)
	}
	return nil
}

// proposalPool returns the pool the proposal fit evaluates on, with
// opt.Concurrency: lent, in the chains' space (opt.Transform's), or where
// lent is nil opt.Workers clones of chain, which the caller closes.
func proposalPool(chain Target, lent []Target, opt ProposalOptions) (evalPool, error) {
	if lent == nil {
		ts, err := clonePool(chain, opt.Workers)
		return evalPool{ts, opt.Concurrency}, err
	}
	ts := make([]Target, len(lent))
	for i, c := range lent {
		ts[i] = c
		if opt.Transform != nil {
			ts[i] = Reparam(c, opt.Transform)
		}
	}
	return evalPool{ts, opt.Concurrency}, nil
}

// clonePool returns n clones of t, or fewer (at least one) where a clone
// fails for want of memory (ErrOutOfMemory: a GPU holding as many
// copies of a large kernel matrix as the machine has cores, say); the
// pool's users run fewer evaluations at once then, with the same results.
func clonePool(t Target, n int) ([]Target, error) {
	pool := make([]Target, 0, n)
	for range n {
		c, err := t.Clone()
		if err != nil && len(pool) > 0 && errors.Is(err, ErrOutOfMemory) {
			return pool, nil
		}
		if err != nil {
			closePool(pool)
			return nil, fmt.Errorf("cloning the target: %w", err)
		}
		pool = append(pool, c)
	}
	return pool, nil
}

// closePool closes the pool's targets that hold resources.
func closePool(pool []Target) {
	for _, p := range pool {
		if c, ok := p.(io.Closer); ok {
			c.Close()
		}
	}
}

// tDraw draws from a multivariate Student-t.
type tDraw struct {
	center []float64
	chol   *mat.TriDense // lower factor of the scale matrix
	df     float64
}

// newTDraw returns a t with location center, scale matrix scale·cov and
// df degrees of freedom, or nil if the scale matrix is not positive
// definite.
func newTDraw(center, cov []float64, scale, df float64) *tDraw {
	d := len(center)
	a := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			a.SetSym(i, j, scale*cov[i*d+j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil
	}
	l := mat.NewTriDense(d, mat.Lower, nil)
	ch.LTo(l)
	return &tDraw{center: center, chol: l, df: df}
}

// sample returns n draws and their log densities up to a constant.
func (r *tDraw) sample(rng *rand.Rand, n int) (xs [][]float64, lq []float64) {
	d := len(r.center)
	z := mat.NewVecDense(d, nil)
	x := mat.NewVecDense(d, nil)
	xs, lq = make([][]float64, n), make([]float64, n)
	for k := range n {
		var m float64
		for i := range d {
			v := rng.NormFloat64()
			z.SetVec(i, v)
			m += v * v
		}
		s := gammaRand(rng, r.df/2) * 2 / r.df
		x.MulVec(r.chol, z)
		u := make([]float64, d)
		for i := range d {
			u[i] = r.center[i] + x.AtVec(i)/math.Sqrt(s)
		}
		xs[k] = u
		lq[k] = -0.5 * (r.df + float64(d)) * math.Log1p(m/s/r.df)
	}
	return xs, lq
}

// logDensityFunc returns the t's normalised log density, its constant
// computed once (the function reuses one scratch vector: one goroutine
// at a time).
func (r *tDraw) logDensityFunc() func(x []float64) float64 {
	d := len(r.center)
	c := logTConst(r.df, d)
	for i := range d {
		c -= math.Log(r.chol.At(i, i))
	}
	z := make([]float64, d)
	return func(x []float64) float64 {
		var m float64
		for i := range d {
			v := x[i] - r.center[i]
			for k := range i {
				v -= r.chol.At(i, k) * z[k]
			}
			z[i] = v / r.chol.At(i, i)
			m += z[i] * z[i]
		}
		return c - 0.5*(r.df+float64(d))*math.Log1p(m/r.df)
	}
}

// logTConst is the log normalising constant of a d-variate Student-t of
// df degrees of freedom with an identity scale matrix (the Gaussian's
// for df = +Inf).
func logTConst(df float64, d int) float64 {
	if math.IsInf(df, 1) {
		return -0.5 * float64(d) * math.Log(2*math.Pi)
	}
	a, _ := math.Lgamma((df + float64(d)) / 2)
	b, _ := math.Lgamma(df / 2)
	return a - b - 0.5*float64(d)*math.Log(df*math.Pi)
}

// importanceWeights returns the weights exp(lp − lq), scaled to sum to 1
// and truncated at √n times their mean, with their effective sample size
// as a fraction of n (before truncation); nil if no lp is finite.
func importanceWeights(lp, lq []float64) ([]float64, float64) {
	n := len(lp)
	top := math.Inf(-1)
	for i := range lp {
		top = max(top, lp[i]-lq[i])
	}
	if math.IsInf(top, -1) || math.IsNaN(top) {
		return nil, 0
	}
	w := make([]float64, n)
	var s, s2 float64
	for i := range w {
		w[i] = math.Exp(lp[i] - lq[i] - top)
		s += w[i]
		s2 += w[i] * w[i]
	}
	ess := s * s / s2 / float64(n)
	limit := s / float64(n) * math.Sqrt(float64(n))
	var st float64
	for i := range w {
		w[i] = min(w[i], limit)
		st += w[i]
	}
	for i := range w {
		w[i] /= st
	}
	return w, ess
}

// shrunkMoments returns the weighted mean and covariance of xs under the
// weights w, which sum to their effective number of draws, the
// covariance shrunk towards prev as if by Dim + 2 draws more
// (shrinkCov).
func shrunkMoments(xs [][]float64, w, prev []float64) (mean, cov []float64) {
	mean, cov = weightedMoments(xs, w)
	shrinkCov(cov, prev, floats.Sum(w), float64(len(mean)+2))
	return mean, cov
}

// shrinkCov sets cov to (n·cov + tau·toward)/(n + tau): a covariance
// estimated from n effective draws shrunk towards toward as if by tau
// draws more, so that one of few effective draws (fewer than its
// dimension, say) stays positive definite and near what was known.
func shrinkCov(cov, toward []float64, n, tau float64) {
	for j := range cov {
		cov[j] = (n*cov[j] + tau*toward[j]) / (n + tau)
	}
}

// weightedMoments returns the weighted mean and covariance (row-major) of
// xs under non-negative weights w.
func weightedMoments(xs [][]float64, w []float64) (mean, cov []float64) {
	d := len(xs[0])
	var sum float64
	for _, v := range w {
		sum += v
	}
	mean = make([]float64, d)
	for k, x := range xs {
		for i, v := range x {
			mean[i] += w[k] / sum * v
		}
	}
	cov = make([]float64, d*d)
	for k, x := range xs {
		if w[k] == 0 {
			continue
		}
		for i := range d {
			di := x[i] - mean[i]
			for j := range d {
				cov[i*d+j] += w[k] / sum * di * (x[j] - mean[j])
			}
		}
	}
	return mean, cov
}
