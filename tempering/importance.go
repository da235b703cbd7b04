package tempering

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/subtemper/subtemper/diag"
)

// ImportanceOptions configures ImportanceSample. The zero value is valid.
type ImportanceOptions struct {
	// Batch is the most proposals drawn and evaluated between two checks
	// of the stop rule. Zero means 500. A batch is shorter where the
	// sample so far (Reuse's draws before the first) has a Pareto k̂ of
	// at most MaxK and its least ESS, growing in proportion to the draws,
	// would reach MinESS sooner: 1.2 times the draws that predicts, in
	// multiples of 50, at least 100 (or Batch where that is less).
	Batch int
	// MinESS ends the sampling once every parameter's ESS, of its mean
	// and of both its 5% and 95% tails (ImportanceResult.ESSBulk and
	// ESSTail), reaches it with a Pareto k̂ of at most MaxK. Zero means
	// 400.
	MinESS float64
	// MaxDraws is the most proposals drawn (Reuse's not counted). Zero
	// means 20 000.
	MaxDraws int
	// MaxK is the largest Pareto k̂ (diag.PSIS) of a sample the stop rule
	// trusts. Zero means 0.7.
	MaxK float64
	// Seed determines the proposals.
	Seed uint64
	// Workers is the number of evaluations run at once, each on its own
	// clone of the target. Zero means GOMAXPROCS.
	Workers int
	// Reuse, if set, is the proposal the kernel was made from
	// (Proposal.Kernel; tr must be its Transform): the draws its rounds of
	// importance sampling evaluated join the sample, each draw weighed
	// against the mixture of every distribution the draws came from, in
	// proportion to their numbers (the deterministic mixture of adaptive
	// multiple importance sampling), so no evaluation of the fit is
	// wasted and a poor early round cannot spoil the weights. A proposal
	// read back from a file has no draws to reuse.
	Reuse *Proposal
	// Adapt refits the proposal after each batch (adaptive multiple
	// importance sampling): the next batch comes from a split-t of the
	// kernel's degrees of freedom, scale factor and wide component whose
	// scale matrix is the weighted sample's covariance so far and whose
	// sides and centre follow the sample's spread on either side of it
	// (fitWeightedSplit), and every draw is weighed against the mixture
	// of all the proposals, so a proposal that missed part of the
	// posterior is mended as the sample finds it.
	Adapt bool
	// Mixture, where above 1 (with Adapt), makes each refit a mixture:
	// MixtureDefensive of the kernel's own proposal and the single
	// refitted split-t, the rest a mixture of Mixture t's (the kernel's degrees
	// of freedom and scale factor) fitted to the weighted sample by EM
	// (mixture population Monte Carlo), which follows a posterior that
	// one t fits poorly: a ridge, a flat top, a bend. A refit is a
	// mixture once the sample's ESS reaches MixtureMinESS per component.
	// Zero or 1 means the single split-t.
	Mixture int
	// Corners, if set, are mixed into every proposal, CornerShare of it
	// in equal parts, each a t of the kernel's degrees of freedom and
	// scale factor on the corner's Gaussian (mapped into tr's space at
	// its centre): they cover mass away from the mode that a proposal
	// fitted around it, and the refits that follow the sample, miss.
	Corners []Corner
	// Climbs is the most climbs to a local mode the sampling makes (zero:
	// none). After a batch whose weights' Pareto k̂ is above MaxK, it
	// climbs from the two heaviest draws not climbed from before, each by
	// L-BFGS with gradients on all observations (the warm start's
	// optimiser), in the coordinates that the kernel's scale matrix
	// whitens. A local maximum within 10 of the
	// best known mode's log density that a straight path joins to Mode,
	// to each mode among the Corners and to each found before only
	// through a dip of more than one nat is a mode that every proposal
	// misses: a t of the kernel's degrees of freedom and scale factor on
	// its Laplace approximation joins every later proposal, sharing
	// CornerShare with the corners. The heavy weights of a missed mode's
	// few draws are what k̂ sees; from a mode's draws, and only then, the
	// climb finds it.
	Climbs int
	// Mode is the posterior mode the kernel was fitted at, in the
	// target's space (WarmStart.Mode): the mode the climbs know first.
	// Nil means the kernel's centre.
	Mode []float64
	// Reported, if set, sets dst to the quantities the caller reports of
	// the draw u (both of length Dim, u in the target's space), such as
	// a GP's hyperparameters θ = exp(u): the stop rule then also needs
	// the mean of each to have an ESS of MinESS, so that the sample it
	// stops gives the reported means that ESS too. A mean of exp(u) has
	// a lower ESS than u's where u reaches far up; the tails' ESS, of
	// quantiles, is the same in either.
	Reported func(dst, u []float64)
	// Batched, if set, is called after each batch with the sample so far.
	Batched func(*ImportanceResult)
}

// ImportanceResult is a weighted sample of a posterior made by
// ImportanceSample.
type ImportanceResult struct {
	// Draws holds the proposals in the target's space u (one per row,
	// in the order drawn) and LogWeights their Pareto-smoothed log
	// importance weights, log posterior over proposal density up to a
	// constant (−∞ where the log density could not be evaluated).
	Draws      [][]float64
	LogWeights []float64
	// K is the Pareto k̂ of the raw log weights: above 0.7 the tail of
	// the weights is too heavy for the estimates to be trusted.
	K float64
	// ESS is the weights' effective sample size, (Σw)²/Σw².
	ESS float64
	// Means and SE are each parameter's posterior mean and its standard
	// error (the delta method's, √Σw̃²(u−μ)², w̃ the normalised weights).
	Means, SE []float64
	// ESSBulk is each parameter's ESS for its mean, its weighted variance
	// over SE² (the smaller of it and the ESS of the mean of the reported
	// quantity, where ImportanceOptions.Reported is set); ESSTail the
	// smaller of the ESS of the indicators of its
	// 5% and 95% tails (below the weighted 5% quantile, above the 95%),
	// whose estimates' variance is computed the same way.
	ESSBulk, ESSTail []float64
	// Converged is the stop rule's verdict: K ≤ MaxK and every ESSBulk
	// and ESSTail ≥ MinESS.
	Converged bool
	// Failed counts the evaluations that failed (weight 0).
	Failed int
	// Reused is the number of Draws, the first, that
	// ImportanceOptions.Reuse's rounds drew and evaluated.
	Reused int
	// Components is the number of proposals the fresh draws came from:
	// 1, or with ImportanceOptions.Adapt or Climbs one more per refit or
	// mode found.
	Components int
	// Climbs is the number of climbs made (ImportanceOptions.Climbs),
	// ClimbEvals the log densities with gradient on all observations they
	// and the Laplace approximations took, and Modes the local modes
	// found, in the target's space, whose approximations joined the
	// proposals.
	Climbs, ClimbEvals int
	Modes              [][]float64
}

// MinESS returns the smallest of r's ESSBulk and ESSTail.
func (r *ImportanceResult) MinESS() float64 {
	return min(slices.Min(r.ESSBulk), slices.Min(r.ESSTail))
}

// Least returns the parameter whose ESS is the smallest of r's ESSBulk
// and ESSTail (the first, on ties) and whether that ESS is of its tails
// rather than its mean: the parameter the stop rule waits for.
func (r *ImportanceResult) Least() (param int, tail bool) {
	least := math.Inf(1)
	for i := range r.ESSBulk {
		if r.ESSBulk[i] < least {
			param, least, tail = i, r.ESSBulk[i], false
		}
		if r.ESSTail[i] < least {
			param, least, tail = i, r.ESSTail[i], true
		}
	}
	return param, tail
}

// ImportanceSample samples t's posterior by self-normalised importance
// sampling from k's proposal (the Student-t, or the mixture with its wide
// component; k's local steps and screen play no part), in the space of tr
// (nil: u itself), as a fitted independence proposal defines it
// (Proposal.Kernel). Where the proposal covers the posterior (an
// importance ESS fraction e, FitProposal's), each log density, one
// without gradient on all observations, buys about e effective draws,
// where an independence Metropolis–Hastings chain from the same proposal
// buys far fewer in the tails: the chain sticks where the weights are
// large, the weighted sample only weighs those points more. It draws
// opt.Batch proposals at a time, evaluates them opt.Workers at once, and
// stops once every parameter's ESS reaches opt.MinESS with a Pareto k̂ of
// at most opt.MaxK, or after opt.MaxDraws (Converged false). The weights
// are Pareto-smoothed (diag.PSIS). opt.Reuse adds the proposal fit's
// draws to the sample and opt.Adapt refits the proposal as the sample
// grows; opt.Climbs climbs from heavy draws to modes the proposals miss.
// The same seed gives the same sample whatever the number of
// workers. If ctx is cancelled it returns the sample of the batches
// evaluated before (nil if none) with the context's error.
func ImportanceSample(ctx context.Context, t Target, k Independence, tr Transform, opt ImportanceOptions) (*ImportanceResult, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	dim := t.Dim()
	lk, err := k.NewLevel(dim, 1)
	if err != nil {
		return nil, err
	}
	l := lk.(*indepLevel)
	chain := t
	if tr != nil {
		chain = Reparam(t, tr)
	}
	ts, err := clonePool(chain, opt.Workers)
	if err != nil {
		return nil, err
	}
	defer closePool(ts)
	pool := evalPool{ts: ts}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x1a7b0c))
	corners := cornerLevels(k, tr, opt.Corners)
	var base proposer = l
	prop := withCorners(base, corners)
	m := newMixSample(prop, opt.Reuse)
	toU := toTarget(tr, dim)
	var us [][]float64
	for _, v := range m.xs {
		us = append(us, toU(v))
	}
	cl := newClimber(k, opt.Climbs, toU, tr, opt.Mode, opt.Corners)
	fresh, rounds := 0, len(m.comps)-1
	var last *ImportanceResult
	batch := firstBatch(us, m, opt, len(corners) > 0)
	for {
		vs := prop.drawBatch(rng, batch)
		lp, err := logPosts(ctx, pool, vs)
		if err != nil {
			return last, err
		}
		for i, v := range vs {
			us = append(us, toU(v))
			m.add(v, lp[i])
		}
		fresh += len(vs)
		res, err := weighSample(us, m.logRatios(), opt)
		if err != nil {
			return nil, err
		}
		res.Reused = len(us) - fresh
		res.Components = len(m.comps) - rounds
		res.Climbs, res.ClimbEvals, res.Modes = cl.made, cl.evals, cl.found
		last = res
		if opt.Batched != nil {
			opt.Batched(res)
		}
		if res.Converged || fresh >= opt.MaxDraws {
			return res, nil
		}
		batch = nextBatch(res, opt)
		changed := false
		if opt.Adapt {
			if p := refit(k, l, m.xs, res, opt.Mixture); p != nil {
				base, changed = p, true
			}
		}
		if cl.left() > 0 && res.K > opt.MaxK {
			found, err := cl.climb(ctx, pool, m, res.LogWeights)
			if err != nil {
				return last, err
			}
			corners, changed = append(corners, found...), changed || len(found) > 0
		}
		if changed {
			prop = withCorners(base, corners)
			m.addComp(prop.logDensityFunc())
		}
	}
}

// toTarget returns the map from tr's space to the target's (of dimension
// dim), into new slices: tr.ToTarget, or a copy where tr is nil.
func toTarget(tr Transform, dim int) func(v []float64) []float64 {
	return func(v []float64) []float64 {
		u := make([]float64, dim)
		if tr != nil {
			tr.ToTarget(v, u)
		} else {
			copy(u, v)
		}
		return u
	}
}

// mixSample holds the draws of a deterministic mixture: counts[c] of
// them from component c, whose normalised log density is comps[c];
// lq[i][c] is draw i's under component c.
type mixSample struct {
	comps  []func(x []float64) float64
	counts []int
	xs     [][]float64
	lp     []float64
	lq     [][]float64
}

// newMixSample returns the mixture of reuse's rounds' draws, where reuse
// is not nil, and the proposal l, whose draws add adds.
func newMixSample(l proposer, reuse *Proposal) *mixSample {
	m := &mixSample{}
	if reuse != nil && len(reuse.roundT) > 0 {
		for _, t := range reuse.roundT {
			m.addComp(t.logDensityFunc())
		}
		per := len(reuse.roundX) / len(reuse.roundT)
		for i, x := range reuse.roundX {
			m.record(x, reuse.roundLP[i], i/per)
		}
	}
	m.addComp(l.logDensityFunc())
	return m
}

// logDensityFunc returns the level's normalised proposal log density,
// its constant computed once.
func (l *indepLevel) logDensityFunc() func(x []float64) float64 {
	c := l.logQNorm()
	return func(x []float64) float64 { return l.logQ(x, l.split) + c }
}

// addComp adds a component of log density f, from which later draws
// come (add).
func (m *mixSample) addComp(f func(x []float64) float64) {
	for i, x := range m.xs {
		m.lq[i] = append(m.lq[i], f(x))
	}
	m.comps, m.counts = append(m.comps, f), append(m.counts, 0)
}

// add records the draw x, of log density lp, from the latest component.
func (m *mixSample) add(x []float64, lp float64) { m.record(x, lp, len(m.comps)-1) }

// record records the draw x, of log density lp, from component c.
func (m *mixSample) record(x []float64, lp float64, c int) {
	q := make([]float64, len(m.comps))
	for r, f := range m.comps {
		q[r] = f(x)
	}
	m.xs, m.lp, m.lq = append(m.xs, x), append(m.lp, lp), append(m.lq, q)
	m.counts[c]++
}

// logRatios returns each draw's log density over the mixture's.
func (m *mixSample) logRatios() []float64 {
	n := float64(len(m.xs))
	logc := make([]float64, len(m.counts))
	for r, c := range m.counts {
		logc[r] = math.Log(float64(c) / n)
	}
	lr := make([]float64, len(m.xs))
	for i, q := range m.lq {
		top := math.Inf(-1)
		for r := range q {
			top = max(top, logc[r]+q[r])
		}
		var s float64
		for r := range q {
			s += math.Exp(logc[r] + q[r] - top)
		}
		lr[i] = m.lp[i] - top - math.Log(s)
	}
	return lr
}

// adapt returns the kernel k refitted to the weighted sample: its scale
// matrix (before k.Scale) the weighted covariance of the draws xs (in
// the kernel's space) under the normalised weights w, with k's degrees
// of freedom and wide component; where splitRefits is set, a split-t
// (fitWeightedSplit) and otherwise a t centred at the weighted mean; nil
// where the covariance is not positive definite.
func adapt(k Independence, xs [][]float64, w []float64) *indepLevel {
	k.Center, k.Cov = weightedMoments(xs, w)
	k.Split = nil
	if splitRefits {
		k.Center, k.Split = fitWeightedSplit(xs, w, k.Center, k.Cov)
	}
	lk, err := k.NewLevel(len(k.Center), 1)
	if err != nil {
		return nil
	}
	return lk.(*indepLevel)
}

// splitRefits makes the refits split-t's (adapt); only benchmarks and
// tests turn it off, to measure what it changes.
var splitRefits = true

// splitRefitFloor is the narrowest side of a refitted split-t, as a
// share of the weighted sample's spread along its axis: a side fitted to
// few draws does not cut off mass the sample has not yet reached.
const splitRefitFloor = 0.5

// splitRefitSteps is the number of fixed-point steps that place a
// refitted split-t's centre.
const splitRefitSteps = 20

// fitWeightedSplit returns the centre and the sides (Independence.Split)
// of a split-t fitted to the draws xs under the normalised weights w,
// whose weighted mean and covariance are mean and cov (not positive
// definite: mean and no split). Along each axis z of cov's Cholesky
// factor, each side's scale is the sample's root mean square of z on
// that side of the centre (a half-normal's), between splitRefitFloor
// and splitMax; the centre is placed, by damped fixed-point steps, where
// the sample's mean of z is that of a split normal of those sides,
// √(2/π)·(hi − lo) (a long upper tail puts it below the mean). Where the
// posterior reaches further on one side than on the other (a length
// scale whose likelihood flattens as it grows), the t fitted to the
// mean and covariance puts draws on the short side where there is no
// mass and too few on the long one.
func fitWeightedSplit(xs [][]float64, w, mean, cov []float64) (center, split []float64) {
	d := len(mean)
	l := make([]float64, d*d)
	if !cholesky(cov, l, d) {
		return mean, nil
	}
	center, split = slices.Clone(mean), make([]float64, 2*d)
	z, delta := make([]float64, d), make([]float64, d)
	sq, mass, mz := make([]float64, 2*d), make([]float64, 2*d), make([]float64, d)
	for range splitRefitSteps {
		clear(sq)
		clear(mass)
		clear(mz)
		for i, x := range xs {
			if w[i] == 0 {
				continue
			}
			whiten(l, center, x, z)
			for j, v := range z {
				side := 2 * j
				if v >= 0 {
					side++
				}
				sq[side] += w[i] * v * v
				mass[side] += w[i]
				mz[j] += w[i] * v
			}
		}
		for j := range d {
			for side := 2 * j; side <= 2*j+1; side++ {
				split[side] = 1
				if mass[side] > 0 {
					split[side] = min(splitMax, max(splitRefitFloor, math.Sqrt(sq[side]/mass[side])))
				}
			}
			delta[j] = 0.5 * (mz[j] - math.Sqrt(2/math.Pi)*(split[2*j+1]-split[2*j]))
		}
		lowerOffset(l, delta, center, 1, center)
	}
	return center, split
}

// refit returns the proposal refitted to the weighted sample res of the
// draws xs (in the kernel's space): the single split-t adapt fits, or where
// mixture is above 1 the mixture fitMixture makes around it and the
// kernel's own proposal first; nil where the single split-t cannot be
// fitted.
func refit(k Independence, first *indepLevel, xs [][]float64, res *ImportanceResult, mixture int) proposer {
	w := NormalisedWeights(res.LogWeights)
	a := adapt(k, xs, w)
	if a == nil {
		return nil
	}
	if mixture > 1 && res.ESS >= MixtureMinESS*float64(mixture) {
		if mx := fitMixture(k, []*indepLevel{first, a}, xs, w, res.ESS, mixture); mx != nil {
			return mx
		}
	}
	return a
}

// firstBatch returns the size of the first batch: nextBatch of the
// sample of the reused draws us (their log densities in m); opt.Batch
// where there are none, or where the proposal has corners (cornered):
// the reused draws came from proposals without them, and their ESS says
// nothing of the mass that only the corners reach. On a posterior with
// a corner a first batch of 100 (40 of them from the corners) let fits
// stop before the corner's far side was sampled, with the bending
// parameter's mean biased.
func firstBatch(us [][]float64, m *mixSample, opt ImportanceOptions, cornered bool) int {
	if len(us) == 0 || cornered {
		return opt.Batch
	}
	r, err := weighSample(us, m.logRatios(), opt)
	if err != nil {
		return opt.Batch
	}
	return nextBatch(r, opt)
}

// nextBatch returns the size of the batch after the sample r: opt.Batch,
// or where r's k̂ is at most opt.MaxK and its least ESS is positive, 1.2
// times the draws that would bring that ESS to opt.MinESS if it grew in
// proportion to the draws, rounded up to a multiple of 50, at least 100
// and at most opt.Batch. A fit no longer overshoots the stop rule by
// most of a batch.
func nextBatch(r *ImportanceResult, opt ImportanceOptions) int {
	least := r.MinESS()
	if r.K > opt.MaxK || !(least > 0) {
		return opt.Batch
	}
	more := 1.2 * float64(len(r.Draws)) * (opt.MinESS/least - 1)
	n := 50 * int(math.Ceil(max(0, min(more, float64(opt.Batch)))/50))
	return min(opt.Batch, max(100, n))
}

// drawBatch draws n proposals from l.
func (l *indepLevel) drawBatch(rng *rand.Rand, n int) [][]float64 {
	vs := make([][]float64, n)
	for i := range vs {
		vs[i] = make([]float64, len(l.center))
		l.draw(rng, vs[i])
	}
	return vs
}

// weighSample smooths the log ratios lr of the draws us and returns the
// weighted sample's estimates and the stop rule's verdict.
func weighSample(us [][]float64, lr []float64, opt ImportanceOptions) (*ImportanceResult, error) {
	r := &ImportanceResult{Draws: us}
	finite := make([]float64, 0, len(lr))
	for _, v := range lr {
		if math.IsInf(v, -1) || math.IsNaN(v) {
			r.Failed++
			continue
		}
		finite = append(finite, v)
	}
	if len(finite) == 0 {
		return nil, errors.New("tempering: importance sampling: every log density failed")
	}
	sm, k := diag.PSIS(finite)
	r.K = k
	r.LogWeights = make([]float64, len(lr))
	j := 0
	for i, v := range lr {
		if math.IsInf(v, -1) || math.IsNaN(v) {
			r.LogWeights[i] = math.Inf(-1)
			continue
		}
		r.LogWeights[i] = sm[j]
		j++
	}
	w := NormalisedWeights(r.LogWeights)
	var sw2 float64
	for _, x := range w {
		sw2 += x * x
	}
	r.ESS = 1 / sw2
	r.moments(w, opt.Reported)
	r.Converged = r.K <= opt.MaxK && r.MinESS() >= opt.MinESS
	return r, nil
}

// moments sets r's Means, SE, ESSBulk and ESSTail from the normalised
// weights w.
func (r *ImportanceResult) moments(w []float64, reported func(dst, u []float64)) {
	d := len(r.Draws[0])
	r.Means, r.SE = make([]float64, d), make([]float64, d)
	r.ESSBulk, r.ESSTail = make([]float64, d), make([]float64, d)
	x := make([]float64, len(r.Draws))
	var ys [][]float64
	if reported != nil {
		ys = make([][]float64, len(r.Draws))
		for i, u := range r.Draws {
			ys[i] = make([]float64, d)
			reported(ys[i], u)
		}
	}
	for j := range d {
		for i, u := range r.Draws {
			x[i] = u[j]
		}
		r.Means[j], r.SE[j], r.ESSBulk[j] = diag.WeightedMean(x, w)
		r.ESSTail[j] = min(diag.WeightedTailESS(x, w, 0.05), diag.WeightedTailESS(x, w, 0.95))
		if ys != nil {
			for i, y := range ys {
				x[i] = 0 // a failed draw's, of weight 0, may be infinite
				if w[i] > 0 {
					x[i] = y[j]
				}
			}
			_, _, ess := diag.WeightedMean(x, w)
			r.ESSBulk[j] = min(r.ESSBulk[j], ess)
		}
	}
}

// NormalisedWeights returns exp(lw) scaled to sum to one (zero where lw
// is −∞), as diag.NormalizeWeights does.
func NormalisedWeights(lw []float64) []float64 { return diag.NormalizeWeights(lw) }

// Resample returns m draws from r's weighted sample by systematic
// resampling (each draw i appears about m·w̃_i times, so equal-weight
// summaries and predictions can be made from them; copies, not
// independent draws).
func (r *ImportanceResult) Resample(rng *rand.Rand, m int) [][]float64 {
	w := NormalisedWeights(r.LogWeights)
	out := make([][]float64, 0, m)
	u := rng.Float64() / float64(m)
	var cum float64
	for i, x := range w {
		cum += x
		for len(out) < m && u < cum {
			out = append(out, slices.Clone(r.Draws[i]))
			u += 1 / float64(m)
		}
	}
	for len(out) < m { // rounding left the last few out
		out = append(out, slices.Clone(r.Draws[len(r.Draws)-1]))
	}
	return out
}

func (o *ImportanceOptions) fill() error {
	if o.Batch == 0 {
		o.Batch = 500
	}
	if o.MinESS == 0 {
		o.MinESS = 400
	}
	if o.MaxDraws == 0 {
		o.MaxDraws = 20000
	}
	if o.MaxK == 0 {
		o.MaxK = diag.ParetoKMax
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Batch < 10:
		return fmt.Errorf("tempering: importance sampling needs batches of at least 10 draws, got %d", o.Batch)
	case !(o.MinESS > 0) || math.IsInf(o.MinESS, 0):
		return fmt.Errorf("tempering: importance sampling's least ESS must be positive and finite, got %v", o.MinESS)
	case o.MaxDraws < o.Batch:
		return fmt.Errorf("tempering: importance sampling's most draws (%d) are fewer than a batch (%d)", o.MaxDraws, o.Batch)
	case !(o.MaxK > 0):
		return fmt.Errorf("tempering: importance sampling's largest Pareto k̂ must be positive, got %v", o.MaxK)
	case o.Workers < 1:
		return fmt.Errorf("tempering: importance sampling needs at least 1 worker, got %d", o.Workers)
	case o.Mixture < 0:
		return fmt.Errorf("tempering: importance sampling's mixture needs at least 0 components, got %d", o.Mixture)
	case o.Climbs < 0:
		return fmt.Errorf("tempering: importance sampling's most climbs must be at least 0, got %d", o.Climbs)
	}
	return nil
}
