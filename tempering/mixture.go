package tempering

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// proposer is a proposal importance sampling draws from: its draws and
// its normalised log density.
type proposer interface {
	drawBatch(rng *rand.Rand, n int) [][]float64
	logDensityFunc() func(x []float64) float64
}

// mixtureLevel is a mixture of independence proposals: component c
// drawn with probability exp(logW[c]).
type mixtureLevel struct {
	logW  []float64
	comps []*indepLevel
}

// drawBatch draws n proposals, each from a component chosen by its
// weight.
func (m *mixtureLevel) drawBatch(rng *rand.Rand, n int) [][]float64 {
	vs := make([][]float64, n)
	for i := range vs {
		u, c := rng.Float64(), 0
		for c < len(m.comps)-1 {
			u -= math.Exp(m.logW[c])
			if u < 0 {
				break
			}
			c++
		}
		vs[i] = make([]float64, len(m.comps[c].center))
		m.comps[c].draw(rng, vs[i])
	}
	return vs
}

// logDensityFunc returns the mixture's normalised log density (one
// goroutine at a time: the components reuse their scratch).
func (m *mixtureLevel) logDensityFunc() func(x []float64) float64 {
	fs := make([]func(x []float64) float64, len(m.comps))
	for c, l := range m.comps {
		fs[c] = l.logDensityFunc()
	}
	terms := make([]float64, len(fs))
	return func(x []float64) float64 {
		for c, f := range fs {
			terms[c] = m.logW[c] + f(x)
		}
		return floats.LogSumExp(terms)
	}
}

// MixtureDefensive is the weight of the defensive components in a refit
// of ImportanceOptions.Mixture components, shared equally between the
// kernel's own proposal (a split-t's reach into a long tail included)
// and the single split-t refitted to the sample (adapt), with
// the kernel's wide component: the weights are then never more than
// 2/MixtureDefensive times those of either, however the mixture's
// components fall.
const MixtureDefensive = 0.2

// MixtureMinESS is the least effective sample size per component from
// which a refit is a mixture (ImportanceOptions.Mixture): a mixture
// fitted to fewer effective draws follows their noise.
const MixtureMinESS = 20

// fitMixture returns the proposal of a refit with comps components
// (ImportanceOptions.Mixture): MixtureDefensive of the defensive
// proposals defs in equal shares, the rest a mixture of comps t's of k's
// degrees of freedom and scale factor, fitted to the draws xs under the
// normalised weights w (effective sample size ess) by weighted EM; nil
// where the fit degenerates.
func fitMixture(k Independence, defs []*indepLevel, xs [][]float64, w []float64, ess float64, comps int) *mixtureLevel {
	means, covs, pis := weightedEM(xs, w, ess, comps)
	if means == nil {
		return nil
	}
	m := &mixtureLevel{}
	for _, d := range defs {
		m.comps, m.logW = append(m.comps, d), append(m.logW, math.Log(MixtureDefensive/float64(len(defs))))
	}
	for c := range means {
		k.Center, k.Cov, k.Split, k.Wide = means[c], covs[c], nil, 0
		lk, err := k.NewLevel(len(means[c]), 1)
		if err != nil {
			return nil
		}
		m.comps = append(m.comps, lk.(*indepLevel))
		m.logW = append(m.logW, math.Log((1-MixtureDefensive)*pis[c]))
	}
	return m
}

// emIterations is the most EM iterations of a mixture refit, and
// emMinWeight the smallest weight of a component it keeps.
const (
	emIterations = 200
	emMinWeight  = 0.02
)

// weightedEM fits a mixture of comps Gaussians to the draws xs under the
// normalised weights w (effective sample size ess) by EM, started from
// comps slices of the sample along the weighted covariance's principal
// axis (each of an equal share of the weight). Each component's
// covariance is shrunk towards the weighted one as if by Dim + 2 draws
// more (so that a component of few effective draws stays positive
// definite), and a component whose weight falls below emMinWeight is
// dropped. It returns the means, covariances (row-major) and weights,
// nil where the weighted covariance is not positive definite.
func weightedEM(xs [][]float64, w []float64, ess float64, comps int) (means, covs [][]float64, pis []float64) {
	mu, sigma := weightedMoments(xs, w)
	d := len(mu)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, slices.Clone(sigma)), true) {
		return nil, nil, nil
	}
	if vals := eig.Values(nil); !(vals[d-1] > 0) { // ascending
		return nil, nil, nil
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	resp := axisSlices(xs, w, mat.Col(nil, d-1, &vecs), comps)
	tau := float64(d + 2)
	prev := math.Inf(-1)
	cw := make([]float64, len(xs))
	for range emIterations {
		means, covs, pis = mStep(xs, w, resp, sigma, ess, tau, cw)
		if len(means) == 0 {
			return nil, nil, nil
		}
		ll, ok := eStep(xs, w, means, covs, pis, resp)
		if !ok {
			return nil, nil, nil
		}
		if ll-prev < 1e-9*math.Abs(ll) {
			break
		}
		prev = ll
	}
	return means, covs, pis
}

// axisSlices returns responsibilities that give each draw of xs to one
// of comps slices along the direction axis, each slice holding an equal
// share of the weights w: EM's start.
func axisSlices(xs [][]float64, w, axis []float64, comps int) [][]float64 {
	proj := make([]float64, len(xs))
	for i, x := range xs {
		for j, a := range axis {
			proj[i] += a * x[j]
		}
	}
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(proj[a], proj[b]) })
	resp := make([][]float64, len(xs))
	var cum float64
	for _, i := range order {
		c := min(comps-1, int(cum*float64(comps)))
		cum += w[i]
		resp[i] = make([]float64, comps)
		resp[i][c] = 1
	}
	return resp
}

// eStep sets resp[i] to draw i's responsibilities under the mixture and
// returns the weighted log-likelihood, false where a covariance is not
// positive definite.
func eStep(xs [][]float64, w []float64, means, covs [][]float64, pis []float64, resp [][]float64) (float64, bool) {
	d := len(means[0])
	chols := make([][]float64, len(means))
	logc := make([]float64, len(means))
	for c := range means {
		chols[c] = make([]float64, d*d)
		if !cholesky(covs[c], chols[c], d) {
			return 0, false
		}
		logc[c] = math.Log(pis[c]) - 0.5*float64(d)*math.Log(2*math.Pi)
		for i := range d {
			logc[c] -= math.Log(chols[c][i*d+i])
		}
	}
	z := make([]float64, d)
	var ll float64
	for i, x := range xs {
		r := resp[i][:0]
		for c := range means {
			whiten(chols[c], means[c], x, z)
			var m float64
			for _, v := range z {
				m += v * v
			}
			r = append(r, logc[c]-0.5*m)
		}
		lse := floats.LogSumExp(r)
		for c := range r {
			r[c] = math.Exp(r[c] - lse)
		}
		resp[i] = r
		if w[i] > 0 {
			ll += w[i] * lse
		}
	}
	return ll, true
}

// mStep returns the mixture's weights, means and covariances from the
// responsibilities resp of the draws xs under weights w, each
// covariance shrunk towards sigma by tau draws (a component of weight π
// counting π·ess), the components below emMinWeight dropped; cw (one
// per draw) is its scratch for a component's weights.
func mStep(xs [][]float64, w []float64, resp [][]float64, sigma []float64, ess, tau float64, cw []float64) (means, covs [][]float64, pis []float64) {
	for c := range resp[0] {
		var pi float64
		for i := range xs {
			cw[i] = w[i] * resp[i][c]
			pi += cw[i]
		}
		if pi < emMinWeight {
			continue
		}
		m, s := weightedMoments(xs, cw)
		shrinkCov(s, sigma, pi*ess, tau)
		means, covs, pis = append(means, m), append(covs, s), append(pis, pi)
	}
	var sum float64
	for _, p := range pis {
		sum += p
	}
	for c := range pis {
		pis[c] /= sum
	}
	return means, covs, pis
}
