package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LogPosteriorGrid evaluates the model's unnormalised log posterior density
// in the sampling space, log p(u) + log p(y | u) with u = log θ (the
// log-Jacobian included, as Model.LogPrior + Model.LogLik), for one-input
// data (D = 1) at every point of the grid logEll × logSf × logSn, and
// returns it with the last index fastest:
//
//	out[(i·len(logSf) + j)·len(logSn) + k] at u = (logEll[i], logSf[j], logSn[k]).
//
// It is a reference for quadrature, not a sampler's evaluation: for each
// length scale it diagonalises the unit-variance kernel matrix R = QΛQᵀ
// once, after which K + (σn²+jitter)I = Q(σf²Λ + σn² + jitter)Qᵀ gives every
// (σf, σn) pair's likelihood in O(N). A point where σf²λ_i + σn² + jitter
// is not positive (a kernel matrix that is not positive definite) is −Inf.
// It agrees with Model.LogLik + Model.LogPrior to rounding (gp's tests check
// it); an error is returned for data with D ≠ 1, malformed data or prior,
// or an empty grid.
func LogPosteriorGrid(d *Data, p Prior, jitter float64, logEll, logSf, logSn []float64) ([]float64, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	if d.D != 1 {
		return nil, fmt.Errorf("gp: LogPosteriorGrid needs one input column, got %d", d.D)
	}
	pr, err := p.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(logEll) == 0 || len(logSf) == 0 || len(logSn) == 0 {
		return nil, fmt.Errorf("gp: LogPosteriorGrid: empty grid (%d×%d×%d)", len(logEll), len(logSf), len(logSn))
	}
	if !(jitter >= 0) || math.IsInf(jitter, 0) {
		return nil, fmt.Errorf("gp: LogPosteriorGrid: jitter %v, want ≥ 0 and finite", jitter)
	}
	n := d.N
	nf, nn := len(logSf), len(logSn)
	out := make([]float64, len(logEll)*nf*nn)
	r := mat.NewSymDense(n, nil)
	var eig mat.EigenSym
	var q mat.Dense
	z := make([]float64, n)
	z2 := make([]float64, n)
	lam := make([]float64, n)
	u := make([]float64, 3)
	c := -0.5 * float64(n) * math.Log(2*math.Pi)
	for i, le := range logEll {
		ell := math.Exp(le)
		for a := 0; a < n; a++ {
			for b := a; b < n; b++ {
				dx := (d.X[a] - d.X[b]) / ell
				r.SetSym(a, b, math.Exp(-0.5*dx*dx))
			}
		}
		if !eig.Factorize(r, true) {
			return nil, fmt.Errorf("gp: LogPosteriorGrid: eigendecomposition failed at log ℓ = %v", le)
		}
		eig.Values(lam)
		eig.VectorsTo(&q)
		for k := range z {
			var s float64
			for a := 0; a < n; a++ {
				s += q.At(a, k) * d.Y[a]
			}
			z[k] = s
			z2[k] = s * s
		}
		for j, lf := range logSf {
			sf2 := math.Exp(2 * lf)
			for k, ln := range logSn {
				v0 := math.Exp(2*ln) + jitter
				ll := c
				for t := 0; t < n; t++ {
					v := sf2*lam[t] + v0
					if !(v > 0) {
						ll = math.Inf(-1)
						break
					}
					ll -= 0.5 * (z2[t]/v + math.Log(v))
				}
				u[0], u[1], u[2] = le, lf, ln
				out[(i*nf+j)*nn+k] = ll + pr.LogDensity(u, nil)
			}
		}
	}
	return out, nil
}

// ModeSplit splits a log density tabulated on a grid whose first
// coordinate has the values x (len(lp) a multiple of len(x), the first
// index slowest, as LogPosteriorGrid returns it) at the saddle of its
// first-coordinate marginal: the marginal's lowest point between its two
// highest local maxima. It returns the marginal log density (log-sum-exp
// over the other coordinates), the saddle's index, the mass below the
// saddle (x[i] < x[saddle]) and the saddle's depth below the lower of the
// two peaks, in nats. It returns an error when the marginal has fewer than
// two local maxima.
func ModeSplit(lp, x []float64) (marginal []float64, saddle int, below, depth float64, err error) {
	if len(x) == 0 || len(lp)%len(x) != 0 {
		return nil, 0, 0, 0, fmt.Errorf("gp: mode split of %d values over %d grid points", len(lp), len(x))
	}
	per := len(lp) / len(x)
	m := make([]float64, len(x))
	for i := range x {
		hi := math.Inf(-1)
		for _, v := range lp[i*per : (i+1)*per] {
			hi = max(hi, v)
		}
		var s float64
		for _, v := range lp[i*per : (i+1)*per] {
			s += math.Exp(v - hi)
		}
		m[i] = hi + math.Log(s)
	}
	p1, p2 := -1, -1
	for i := 1; i < len(m)-1; i++ {
		if m[i] > m[i-1] && m[i] >= m[i+1] {
			switch {
			case p1 < 0 || m[i] > m[p1]:
				p1, p2 = i, p1
			case p2 < 0 || m[i] > m[p2]:
				p2 = i
			}
		}
	}
	if p2 < 0 {
		return m, 0, 0, 0, fmt.Errorf("gp: the marginal of the first coordinate has fewer than two local maxima")
	}
	p1, p2 = min(p1, p2), max(p1, p2)
	saddle = p1
	for i := p1; i <= p2; i++ {
		if m[i] < m[saddle] {
			saddle = i
		}
	}
	hi := math.Max(m[p1], m[p2])
	var lo, tot float64
	for i, v := range m {
		w := math.Exp(v - hi)
		tot += w
		if i < saddle {
			lo += w
		}
	}
	return m, saddle, lo / tot, math.Min(m[p1], m[p2]) - m[saddle], nil
}
