package mvn

import (
	"errors"
	"fmt"
	"math"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// DefaultSigma0 is the prior standard deviation σ0 of each θ_d when
// Options.Sigma0 is zero.
const DefaultSigma0 = 1.0

// Options configures a Model. The zero value uses σ0 = DefaultSigma0.
type Options struct {
	// Sigma0 is the prior standard deviation of each θ_d; 0 means
	// DefaultSigma0. It must be positive and finite.
	Sigma0 float64
}

// shared is the read-only part of a Model, shared by its clones.
type shared struct {
	data   *Data
	sigma  *mat.SymDense // Σ
	chol   []float64     // L, D×D row-major lower (upper triangle zero)
	w      []float64     // whitened observations L⁻¹x_n, N×D
	norm   float64       // ½·log|2πΣ| per observation
	sigma0 float64
}

// Model is the multivariate-normal mean model on a dataset, evaluated
// through a linalg backend. It holds a backend handle with workspaces and
// is not safe for concurrent use; Clone gives another one over the same
// data.
type Model struct {
	be linalg.Backend
	s  *shared
	h  linalg.MVN

	// Workspaces grown to the largest batch seen.
	t, resid, out []float64
}

// New returns a Model of the observations data with known covariance sigma
// (D×D, symmetric positive definite) on the backend be (nil:
// linalg.Default()). The data are whitened and uploaded once and shared
// read-only.
func New(be linalg.Backend, data *Data, sigma mat.Symmetric, opt Options) (*Model, error) {
	if err := data.Check(); err != nil {
		return nil, err
	}
	s0 := opt.Sigma0
	if s0 == 0 {
		s0 = DefaultSigma0
	}
	if !(s0 > 0) || math.IsInf(s0, 0) {
		return nil, fmt.Errorf("mvn: prior standard deviation σ0 = %v, want positive and finite", opt.Sigma0)
	}
	if sigma == nil || sigma.SymmetricDim() != data.D {
		dim := 0
		if sigma != nil {
			dim = sigma.SymmetricDim()
		}
		return nil, fmt.Errorf("mvn: Σ is %d×%d for %d-dimensional observations", dim, dim, data.D)
	}
	d, n := data.D, data.N
	sg := mat.NewSymDense(d, nil)
	sg.CopySym(sigma)
	var ch mat.Cholesky
	if !ch.Factorize(sg) {
		return nil, fmt.Errorf("mvn: Σ (%d×%d) is not positive definite", d, d)
	}
	var lt mat.TriDense
	ch.LTo(&lt)
	l := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			l[i*d+j] = lt.At(i, j)
		}
	}
	w := append([]float64(nil), data.X...)
	// W = X·L⁻ᵀ, i.e. w_n = L⁻¹x_n for each row.
	gblas.Implementation{}.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n, d, 1, l, d, w, d)
	sh := &shared{
		data: data, sigma: sg, chol: l, w: w, sigma0: s0,
		norm: 0.5 * (float64(d)*math.Log(2*math.Pi) + ch.LogDet()),
	}
	if be == nil {
		be = linalg.Default()
	}
	return open(be, sh)
}

func open(be linalg.Backend, s *shared) (*Model, error) {
	h, err := be.NewMVN(s.w, s.data.N, s.data.D)
	if err != nil {
		return nil, fmt.Errorf("mvn: uploading %d×%d observations to backend %s: %w", s.data.N, s.data.D, be.Name(), err)
	}
	d := s.data.D
	return &Model{be: be, s: s, h: h, t: make([]float64, d), resid: make([]float64, d), out: make([]float64, 1)}, nil
}

// Copy returns an independent Model over the same (read-only) data, with
// its own backend handle and workspaces, for use by another goroutine.
func (m *Model) Copy() (*Model, error) { return open(m.be, m.s) }

// Clone is Copy as a model.Target: the samplers clone their target once
// per chain.
func (m *Model) Clone() (model.Target, error) { return model.CloneOf(m.Copy()) }

// Start implements model.Starter: chain c starts at 0 (the prior mean)
// or ±σ0 in every coordinate, cycling for more than 3 chains.
func (m *Model) Start(c, chains int, u []float64) {
	p := m.StartPoints()
	copy(u, p[c%len(p)])
}

// Close releases the backend handle. The Model cannot be used afterwards.
func (m *Model) Close() error { return linalg.CloseHandle(&m.h) }

// Reorder lays the model's observations out in the order perm (a
// permutation of 0..N−1) on backends that support it (model.Reorderer),
// so that subsets which are prefixes of perm are evaluated contiguously;
// it does nothing on other backends. Results do not change: subsets still
// name observations by their original index. The tempering drivers call
// it when they draw nested subsets as prefixes of a permutation.
func (m *Model) Reorder(perm []int) error {
	r, ok := m.h.(model.Reorderer)
	if !ok {
		return nil
	}
	if err := r.Reorder(perm); err != nil {
		return fmt.Errorf("mvn: %w", err)
	}
	return nil
}

// Dim returns the number of parameters D.
func (m *Model) Dim() int { return m.s.data.D }

// NumObs returns the number of observations N.
func (m *Model) NumObs() int { return m.s.data.N }

// Data returns the observations (read-only).
func (m *Model) Data() *Data { return m.s.data }

// Sigma returns a copy of the known covariance Σ.
func (m *Model) Sigma() *mat.SymDense {
	var c mat.SymDense
	c.CopySym(m.s.sigma)
	return &c
}

// Sigma0 returns the prior standard deviation σ0.
func (m *Model) Sigma0() float64 { return m.s.sigma0 }

// Backend returns the name of the backend the model evaluates on.
func (m *Model) Backend() string { return m.be.Name() }

// PriorMean returns θ* = E[θ] = 0 under the prior. (The paper's chains
// start at θ*, θ*/2 and 2θ*, all zero here; samplers should start this
// model elsewhere, e.g. from StartPoints.)
func (m *Model) PriorMean() []float64 { return make([]float64, m.Dim()) }

// StartPoints returns three starting points for chains: 0 (the prior mean)
// and ±σ0 in every coordinate.
func (m *Model) StartPoints() [][]float64 {
	d, s := m.Dim(), m.s.sigma0
	pts := [][]float64{make([]float64, d), make([]float64, d), make([]float64, d)}
	for j := 0; j < d; j++ {
		pts[1][j], pts[2][j] = -s, s
	}
	return pts
}

// LogPrior returns log p(θ) = Σ_d log N(θ_d | 0, σ0²) and, if grad is
// non-nil (len D), overwrites it with the gradient −θ/σ0². A θ of the wrong
// length or with a NaN gives −Inf (and a zero gradient).
func (m *Model) LogPrior(u, grad []float64) float64 {
	d := m.Dim()
	if len(u) != d || (grad != nil && len(grad) != d) {
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1)
	}
	v := m.s.sigma0 * m.s.sigma0
	var ss float64
	for j, x := range u {
		ss += x * x
		if grad != nil {
			grad[j] = -x / v
		}
	}
	lp := -0.5*ss/v - 0.5*float64(d)*math.Log(2*math.Pi*v)
	if math.IsNaN(lp) {
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1)
	}
	return lp
}

// LogLik returns log p(x_S | θ) = Σ_{n∈S} log N(x_n | θ, Σ) for the
// observations in subset (nil: all) at u = θ and, if grad is non-nil (len
// D), overwrites grad with its gradient. It is LogLikBatch with B = 1; on
// failure it returns −Inf, a zero gradient and an error, never NaN.
func (m *Model) LogLik(subset []int, u, grad []float64) (float64, error) {
	if err := m.LogLikBatch(subset, u, m.out[:1], grad); err != nil {
		return math.Inf(-1), err
	}
	return m.out[0], nil
}

// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood of
// the observations subset[:ks[j]] (0..ks[j]−1 for a nil subset), 1 ≤
// ks[j] ≤ the subset's size, from the same pass over the observations,
// when the backend's handle implements linalg.PrefixMVN and holds the
// subset in consecutive rows (the CPU backends, for prefixes of the order
// given to Reorder); ok reports whether it did. The value and gradient are
// those of LogLik. It implements tempering.PrefixLiker.
func (m *Model) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (ll float64, ok bool, err error) {
	if len(pre) != len(ks) {
		return math.Inf(-1), false, m.fail(m.out[:1], grad, fmt.Errorf("mvn: log-likelihood: %d prefix lengths, %d outputs", len(ks), len(pre)))
	}
	ok, err = m.logLikBatch(subset, u, m.out[:1], grad, ks, pre)
	if err != nil {
		return math.Inf(-1), false, err
	}
	return m.out[0], ok, nil
}

// LogLikBatch sets out[b] = log p(x_S | θ_b) for the B = len(out) parameter
// vectors in thetas (B×D, row-major) and, if grads is non-nil (B×D),
// grads[b,:] = ∇_θ log p(x_S | θ_b). The subset (nil: all) is evaluated
// observation by observation with one backend GEMM for the whole batch.
// On failure every out[b] is −Inf, grads is zeroed and the error says why.
func (m *Model) LogLikBatch(subset []int, thetas, out, grads []float64) error {
	_, err := m.logLikBatch(subset, thetas, out, grads, nil, nil)
	return err
}

// logLikBatch is LogLikBatch that, for B = 1 and ks non-nil on a
// linalg.PrefixMVN handle, also sets the prefixes' log-likelihoods into pre
// and reports whether it could.
func (m *Model) logLikBatch(subset []int, thetas, out, grads []float64, ks []int, pre []float64) (bool, error) {
	d, bn := m.Dim(), len(out)
	if bn < 1 || len(thetas) != bn*d || (grads != nil && len(grads) != bn*d) {
		return false, m.fail(out, grads, fmt.Errorf("mvn: log-likelihood of a batch of %d: len(thetas) = %d, len(grads) = %d, want %d (D = %d)", bn, len(thetas), len(grads), bn*d, d))
	}
	if m.h == nil {
		return false, m.fail(out, grads, errors.New("mvn: log-likelihood: model is closed"))
	}
	for i, v := range thetas {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false, m.fail(out, grads, fmt.Errorf("mvn: log-likelihood: θ[%d,%d] = %v", i/d, i%d, v))
		}
	}
	if len(m.t) < bn*d {
		m.t = make([]float64, bn*d)
		m.resid = make([]float64, bn*d)
	}
	t := m.t[:bn*d]
	copy(t, thetas)
	bl := gblas.Implementation{}
	// T = Θ·L⁻ᵀ: t_b = L⁻¹θ_b.
	bl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, bn, d, 1, m.s.chol, d, t, d)
	var resid []float64
	if grads != nil {
		resid = m.resid[:bn*d]
	}
	var (
		ok  bool
		err error
	)
	if ph, can := m.h.(linalg.PrefixMVN); can && ks != nil && bn == 1 {
		ok, err = ph.SumSqPrefixes(subset, t, out, resid, ks, pre)
	} else {
		err = m.h.SumSq(subset, t, bn, out, resid)
	}
	if err != nil {
		return false, m.fail(out, grads, fmt.Errorf("mvn: log-likelihood of a batch of %d: %w", bn, err))
	}
	if ok {
		for j, kj := range ks {
			pre[j] = -0.5*pre[j] - float64(kj)*m.s.norm
		}
	}
	k := len(subset)
	if subset == nil {
		k = m.s.data.N
	}
	c := float64(k) * m.s.norm
	for b, v := range out {
		out[b] = -0.5*v - c
		if math.IsNaN(out[b]) || math.IsInf(out[b], 0) {
			return false, m.fail(out, grads, fmt.Errorf("mvn: log-likelihood of θ_%d is %v", b, out[b]))
		}
	}
	if grads != nil {
		// G = R·L⁻¹: g_b = L⁻ᵀ r_b.
		copy(grads, resid)
		bl.Dtrsm(blas.Right, blas.Lower, blas.NoTrans, blas.NonUnit, bn, d, 1, m.s.chol, d, grads, d)
	}
	return ok, nil
}

func (m *Model) fail(out, grads []float64, err error) error {
	for b := range out {
		out[b] = math.Inf(-1)
	}
	if grads != nil {
		clear(grads)
	}
	return err
}

// Posterior is a Gaussian distribution: the tempered posterior of θ.
type Posterior struct {
	Mean []float64     // posterior mean, len D
	Cov  *mat.SymDense // posterior covariance, D×D
}

// Posterior returns the posterior p(θ)·p(x_S|θ)^β ∝ N(θ | Mean, Cov) for
// the observations in subset (nil: all) and a power beta ≥ 0 of the
// likelihood: precision I/σ0² + β·n·Σ⁻¹ and mean Cov·β·Σ⁻¹·Σ_{n∈S} x_n.
// β = 0 gives the prior.
func (m *Model) Posterior(subset []int, beta float64) (*Posterior, error) {
	if !(beta >= 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("mvn: posterior: β = %v, want ≥ 0 and finite", beta)
	}
	d, n := m.Dim(), m.s.data.N
	sum := make([]float64, d)
	k := n
	if subset != nil {
		k = len(subset)
		for _, i := range subset {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("mvn: posterior: observation %d outside 0..%d", i, n-1)
			}
			floats64Add(sum, m.s.data.X[i*d:i*d+d])
		}
	} else {
		for i := 0; i < n; i++ {
			floats64Add(sum, m.s.data.X[i*d:i*d+d])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(m.s.sigma) {
		return nil, errors.New("mvn: posterior: Σ is not positive definite")
	}
	var sinv mat.SymDense
	if err := ch.InverseTo(&sinv); err != nil {
		return nil, fmt.Errorf("mvn: posterior: inverting Σ: %w", err)
	}
	prec := mat.NewSymDense(d, nil)
	prec.ScaleSym(beta*float64(k), &sinv)
	for j := 0; j < d; j++ {
		prec.SetSym(j, j, prec.At(j, j)+1/(m.s.sigma0*m.s.sigma0))
	}
	var pc mat.Cholesky
	if !pc.Factorize(prec) {
		return nil, errors.New("mvn: posterior: precision is not positive definite")
	}
	cov := mat.NewSymDense(d, nil)
	if err := pc.InverseTo(cov); err != nil {
		return nil, fmt.Errorf("mvn: posterior: inverting the precision: %w", err)
	}
	var rhs, mean mat.VecDense
	rhs.MulVec(&sinv, mat.NewVecDense(d, sum))
	rhs.ScaleVec(beta, &rhs)
	if err := pc.SolveVecTo(&mean, &rhs); err != nil {
		return nil, fmt.Errorf("mvn: posterior mean: %w", err)
	}
	return &Posterior{Mean: append([]float64(nil), mean.RawVector().Data...), Cov: cov}, nil
}

func floats64Add(dst, s []float64) {
	for j, v := range s {
		dst[j] += v
	}
}

var (
	_ model.Target      = (*Model)(nil)
	_ model.Starter     = (*Model)(nil)
	_ model.PrefixLiker = (*Model)(nil)
	_ model.Reorderer   = (*Model)(nil)
)
