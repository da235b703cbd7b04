package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// HMC is Hamiltonian Monte Carlo with a leapfrog integrator of Steps steps
// and a Euclidean metric (the inverse metric M⁻¹ is diagonal or dense; the
// momentum is drawn from N(0, M)). A trajectory whose energy error
// H(proposal) − H(current) exceeds MaxEnergyError, or that reaches a point
// of log density −∞, is divergent: it is rejected and counted.
//
// During warm-up (Settings.Warmup, DefaultWarmup = 400 iterations by default) each level
// adapts as Adapt says, in Stan's windowed scheme: the step size by dual
// averaging (Hoffman & Gelman 2014) towards acceptance TargetAccept, the
// metric from the level's states in slow windows of doubling length. When
// adaptation starts, and after each metric update, the step size is
// re-initialised by Stan's heuristic (doubled or halved until the
// acceptance of one leapfrog step from the current state crosses 0.8) and
// dual averaging restarts from it. At the end of warm-up the step size is frozen at the
// averaged value. The zero value adapts the step size and a diagonal
// metric; AdaptNone with StepSize 0.01 gives the paper's fixed kernel.
// Without warm-up (Settings.Warmup = NoWarmup) nothing adapts.
// Settings' default kernel runs HMC{Steps: 10, Jitter: 0.2} at the target
// level (DefaultKernel).
type HMC struct {
	// StepSize is the leapfrog step ε (the starting point when adapting,
	// before Stan's heuristic). Zero means 0.01 (the paper's).
	StepSize float64
	// Steps is the number L of leapfrog steps. Zero means 10.
	Steps int
	// MaxEnergyError is the divergence threshold. Zero means 1000.
	MaxEnergyError float64
	// Adapt says what warm-up tunes. The zero value, AdaptDiag, tunes the
	// step size and a diagonal metric; AdaptNone keeps StepSize and the
	// identity metric.
	Adapt Adaptation
	// TargetAccept is the acceptance rate the step-size adaptation aims
	// at. Zero means 0.8.
	TargetAccept float64
	// Jitter, in [0,1), draws each transition's step size uniformly in
	// ε·(1 ± Jitter), which avoids the non-ergodicity of a fixed trajectory
	// length that is a multiple of a half-period. Zero means no jitter
	// (the paper's).
	Jitter float64
	// Length, if positive, fixes the integration time L·ε instead of L:
	// each transition makes max(1, round(Length/ε)) leapfrog steps, ε the
	// (adapted) step size before jitter, so that the trajectory keeps its
	// length while warm-up tunes ε. With the posterior covariance as the
	// inverse metric, a Gaussian posterior's trajectories are ellipses of
	// period 2π, and Length π/2 takes a draw a quarter of the way round,
	// to a nearly independent point. Steps is ignored when Length is set.
	Length float64
}

var _ Kernel = HMC{}

// NeedsGrad returns true: HMC uses gradients.
func (HMC) NeedsGrad() bool { return true }

// gradDefaults applies the defaults shared by HMC and NUTS and validates
// them.
func gradDefaults(name string, eps, maxE, target float64, adapt Adaptation, beta float64, dim int) (float64, float64, float64, error) {
	if eps == 0 {
		eps = DefaultStepSize
	}
	if maxE == 0 {
		maxE = 1000
	}
	if target == 0 {
		target = DefaultTargetAccept
	}
	switch {
	case !(eps > 0) || math.IsInf(eps, 0):
		return 0, 0, 0, fmt.Errorf("tempering: %s step size must be positive and finite, got %v", name, eps)
	case !(maxE > 0):
		return 0, 0, 0, fmt.Errorf("tempering: %s divergence threshold must be positive, got %v", name, maxE)
	case !(target > 0 && target < 1):
		return 0, 0, 0, fmt.Errorf("tempering: %s target acceptance must lie in (0,1), got %v", name, target)
	case !adapt.valid():
		return 0, 0, 0, fmt.Errorf("tempering: %s: unknown adaptation %d", name, int(adapt))
	case !(beta > 0 && beta <= 1):
		return 0, 0, 0, fmt.Errorf("tempering: %s level needs β in (0,1], got %v", name, beta)
	case dim < 1:
		return 0, 0, 0, fmt.Errorf("tempering: %s needs dimension ≥ 1, got %d", name, dim)
	}
	return eps, maxE, target, nil
}

// NewLevel returns the HMC transition for a level; ε, L and the metric
// start the same at every level (beta is only validated).
func (k HMC) NewLevel(dim int, beta float64) (LevelKernel, error) {
	steps := k.Steps
	if steps == 0 {
		steps = DefaultLeapfrog
	}
	if steps < 1 {
		return nil, fmt.Errorf("tempering: HMC needs at least 1 leapfrog step, got %d", k.Steps)
	}
	if !(k.Jitter >= 0 && k.Jitter < 1) {
		return nil, fmt.Errorf("tempering: HMC jitter must lie in [0,1), got %v", k.Jitter)
	}
	if !(k.Length >= 0) || math.IsInf(k.Length, 0) {
		return nil, fmt.Errorf("tempering: HMC integration time must be ≥ 0 and finite, got %v", k.Length)
	}
	eps, maxE, target, err := gradDefaults("HMC", k.StepSize, k.MaxEnergyError, k.TargetAccept, k.Adapt, beta, dim)
	if err != nil {
		return nil, err
	}
	return &hmcLevel{
		ham:   newHam(dim, eps, k.Adapt, target),
		steps: steps, maxE: maxE, jitter: k.Jitter, length: k.Length,
		prop: NewState(dim),
	}, nil
}

type hmcLevel struct {
	ham
	steps  int
	maxE   float64
	jitter float64
	length float64 // integration time L·ε (0: fixed L)
	prop   *State
}

// ham is what HMC and NUTS share: the step size, the metric, workspaces
// for momentum and gradient, and the warm-up adaptation.
type ham struct {
	eps    float64
	metric metric
	ad     adapter
	p, v   []float64 // momentum and velocity M⁻¹p
	g      []float64 // gradient of the log density
	newInv []float64 // adaptation's metric estimate
	trial  *State    // step-size heuristic's workspace
}

func newHam(dim int, eps float64, adapt Adaptation, target float64) ham {
	h := ham{
		eps:    eps,
		metric: newMetric(dim, adapt == AdaptDense),
		ad:     newAdapter(adapt, dim, target),
		p:      make([]float64, dim),
		v:      make([]float64, dim),
		g:      make([]float64, dim),
		trial:  NewState(dim),
	}
	if adapt.metricAdapts() {
		h.newInv = make([]float64, len(h.metric.inv))
	}
	return h
}

func (h *ham) Init(d *Density, s *State) { d.Eval(s, true) }

// hamiltonian marks the kernels whose StepInfo carries the energy.
func (h *ham) hamiltonian() {}

// energyKernel is a level kernel whose transitions report their
// Hamiltonian (StepInfo.Energy): HMC and NUTS.
type energyKernel interface{ hamiltonian() }

// Adapt starts (or restarts) warm-up adaptation over the next n
// transitions from the current step size and metric.
func (h *ham) Adapt(n int) { h.ad.begin(n, h.eps) }

// EndWarmup freezes the step size at dual averaging's averaged value.
func (h *ham) EndWarmup() { h.eps = h.ad.end(h.eps) }

// Tuning returns the step size and, unless it is the identity the kernel
// started with, the inverse metric.
func (h *ham) Tuning() Tuning {
	t := Tuning{StepSize: h.eps}
	m := &h.metric
	switch {
	case m.dense:
		t.InvMetricDense = append([]float64(nil), m.inv...)
	case !m.unit:
		t.InvMetric = append([]float64(nil), m.inv...)
	}
	return t
}

// SetTuning sets the step size and the metric: InvMetric for a diagonal
// metric, InvMetricDense for a dense one (or InvMetric as its diagonal).
// A kernel that does not adapt a metric (AdaptStep, AdaptNone) takes a
// dense one even if it started diagonal. Entries of the wrong length or
// not positive definite are ignored.
func (h *ham) SetTuning(t Tuning) {
	if t.StepSize > 0 && !math.IsInf(t.StepSize, 0) {
		h.eps = t.StepSize
		h.ad.da.restart(h.eps)
	}
	m := &h.metric
	D := len(h.p)
	if !m.dense && !h.ad.kind.metricAdapts() && len(t.InvMetricDense) == D*D {
		dm := newMetric(D, true)
		dm.setDense(t.InvMetricDense)
		if !dm.unit {
			*m = dm
		}
		return
	}
	switch {
	case m.dense && len(t.InvMetricDense) == D*D:
		m.setDense(t.InvMetricDense)
	case m.dense && len(t.InvMetric) == D:
		buf := make([]float64, D*D)
		for i, v := range t.InvMetric {
			buf[i*D+i] = v
		}
		m.setDense(buf)
	case !m.dense && len(t.InvMetric) == D:
		m.setDiag(t.InvMetric)
	}
}

// ensureGrad gives s the gradient of d's log density if it arrived
// without it (after a rebase, an SPT swap, ...). It reports false, with
// s's value caches kept, if the evaluation failed.
func ensureGrad(d *Density, s *State) bool {
	if s.HasGrad {
		return true
	}
	lh, ll, lp := s.LogDensity, s.LogLik, s.LogPrior
	if math.IsInf(d.Eval(s, true), -1) {
		s.LogDensity, s.LogLik, s.LogPrior, s.HasGrad = lh, ll, lp, false
		return false
	}
	return true
}

// learn feeds a transition's acceptance statistic and end point to the
// adaptation; after a metric update it re-initialises the step size from
// s and restarts dual averaging.
func (h *ham) learn(rng *rand.Rand, d *Density, s *State, stat float64) {
	eps, update := h.ad.learn(stat, s.U, h.newInv)
	h.eps = eps
	if update {
		h.metric.update(h.newInv)
		h.eps = h.findStepSize(rng, d, s, h.eps)
		h.ad.da.restart(h.eps)
	}
}

// beforeStep runs the step-size heuristic when adaptation has just begun.
func (h *ham) beforeStep(rng *rand.Rand, d *Density, s *State) {
	if h.ad.needInit {
		h.ad.needInit = false
		h.eps = h.findStepSize(rng, d, s, h.eps)
		h.ad.da.restart(h.eps)
	}
}

// findStepSize is Stan's init_stepsize: from s (which has its gradient),
// with a fresh momentum each time, it doubles (or halves) eps while the
// acceptance exp(−ΔH) of a single leapfrog step stays above (or below)
// 0.8, and returns the first step size that crosses it. It gives up after
// 60 doublings or halvings.
func (h *ham) findStepSize(rng *rand.Rand, d *Density, s *State, eps float64) float64 {
	const logTarget = -0.2231435513142097 // log 0.8
	dir := 0
	for range 61 {
		h.trial.CopyFrom(s)
		h0 := -s.LogDensity + h.metric.drawMomentum(rng, h.p, h.v)
		d.Grad(h.trial, h.g)
		h1 := math.Inf(1)
		if h.leapfrog(d, h.trial, eps) {
			h1 = -h.trial.LogDensity + h.metric.kinetic(h.p, h.v)
		}
		up := h0-h1 > logTarget
		switch {
		case dir == 0 && up:
			dir = 1
			continue
		case dir == 0:
			dir = -1
			continue
		case dir == 1 && !up, dir == -1 && up:
			return eps
		case dir == 1:
			eps *= 2
		default:
			eps /= 2
		}
		if eps > 1e7 || eps < 1e-12 {
			return clampStep(eps)
		}
	}
	return eps
}

// leapfrog makes one leapfrog step of size eps (negative: backwards) from
// q with momentum h.p, h.g holding the gradient at q; it leaves the new
// gradient in h.g and the velocity M⁻¹p in h.v. It reports false if the new
// point has log density −∞ (q and p are then invalid).
func (h *ham) leapfrog(d *Density, q *State, eps float64) bool {
	p, g, v := h.p, h.g, h.v
	for i := range p {
		p[i] += 0.5 * eps * g[i]
	}
	h.metric.velocity(p, v)
	for i := range q.U {
		q.U[i] += eps * v[i]
	}
	if math.IsInf(d.Eval(q, true), -1) {
		return false
	}
	d.Grad(q, g)
	for i := range p {
		p[i] += 0.5 * eps * g[i]
	}
	h.metric.velocity(p, v)
	return true
}

func (l *hmcLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := StepInfo{StepSize: l.eps, Energy: math.NaN()}
	if !ensureGrad(d, s) {
		info.Failed = true
		return info
	}
	l.beforeStep(rng, d, s)
	q, p, g, v, eps := l.prop, l.p, l.g, l.v, l.eps
	steps := l.steps
	if l.length > 0 {
		steps = max(1, int(math.Round(min(l.length/eps, 1e6))))
	}
	info.StepSize = eps
	if l.jitter > 0 {
		eps *= 1 + l.jitter*(2*rng.Float64()-1)
		info.StepSize = eps
	}
	q.CopyFrom(s)
	h0 := -s.LogDensity + l.metric.drawMomentum(rng, p, v)
	info.Energy = h0
	d.Grad(q, g)
	for i := range p {
		p[i] += 0.5 * eps * g[i]
	}
	for step := 1; step <= steps; step++ {
		l.metric.velocity(p, v)
		for i := range q.U {
			q.U[i] += eps * v[i]
		}
		info.Leapfrogs++
		if math.IsInf(d.Eval(q, true), -1) {
			// A trajectory that reaches zero density (or an evaluation
			// that fails) has infinite energy error: a divergence.
			info.Failed, info.Divergent = true, true
			break
		}
		d.Grad(q, g)
		f := eps
		if step == steps {
			f = 0.5 * eps
		}
		for i := range p {
			p[i] += f * g[i]
		}
	}
	if !info.Failed {
		dE := -q.LogDensity + l.metric.kinetic(p, v) - h0
		info.EnergyError = dE
		switch {
		case math.IsNaN(dE) || dE > l.maxE:
			info.Divergent = true
		default:
			info.AcceptProb = math.Exp(min(0, -dE))
			if dE <= 0 || math.Log(rng.Float64()) < -dE {
				info.Accepted = true
				info.Energy = h0 + dE
				q.Replica = s.Replica
				s.CopyFrom(q)
			}
		}
	}
	if l.ad.active {
		l.learn(rng, d, s, info.AcceptProb)
	}
	return info
}

// metric is a Euclidean metric given by its inverse M⁻¹: diagonal (inv, with
// sd = 1/√inv) or dense (inv row-major, chol its lower Cholesky factor).
type metric struct {
	dim   int
	dense bool
	unit  bool // the identity the kernel started with
	inv   []float64
	sd    []float64 // diagonal: M^{1/2} = 1/√inv
	chol  []float64 // dense: L with M⁻¹ = L·Lᵀ, row-major
	work  []float64 // dense: a candidate factor
}

func newMetric(dim int, dense bool) metric {
	m := metric{dim: dim, dense: dense, unit: true}
	if dense {
		m.inv = make([]float64, dim*dim)
		m.chol = make([]float64, dim*dim)
		m.work = make([]float64, dim*dim)
		for i := range dim {
			m.inv[i*dim+i], m.chol[i*dim+i] = 1, 1
		}
		return m
	}
	m.inv = make([]float64, dim)
	m.sd = make([]float64, dim)
	for i := range dim {
		m.inv[i], m.sd[i] = 1, 1
	}
	return m
}

// update replaces the metric by the adaptation's estimate (same shape).
func (m *metric) update(inv []float64) {
	if m.dense {
		m.setDense(inv)
	} else {
		m.setDiag(inv)
	}
}

func (m *metric) setDiag(inv []float64) {
	for _, v := range inv {
		if !(v > 0) || math.IsInf(v, 0) {
			return
		}
	}
	copy(m.inv, inv)
	for i, v := range inv {
		m.sd[i] = 1 / math.Sqrt(v)
	}
	m.unit = false
}

// setDense sets a dense inverse metric, unless it is not symmetric
// positive definite to working precision (the Cholesky factorisation
// fails): then the metric is kept.
func (m *metric) setDense(inv []float64) {
	if !cholesky(inv, m.work, m.dim) {
		return
	}
	copy(m.inv, inv)
	copy(m.chol, m.work)
	m.unit = false
}

// cholesky writes the lower Cholesky factor of the symmetric D×D matrix a
// (its lower triangle is read) into l, reporting false if a is not
// positive definite.
func cholesky(a, l []float64, D int) bool {
	clear(l)
	for j := range D {
		s := a[j*D+j]
		for k := range j {
			s -= l[j*D+k] * l[j*D+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		ljj := math.Sqrt(s)
		l[j*D+j] = ljj
		for i := j + 1; i < D; i++ {
			s := a[i*D+j]
			for k := range j {
				s -= l[i*D+k] * l[j*D+k]
			}
			l[i*D+j] = s / ljj
		}
	}
	return true
}

// drawMomentum draws p ~ N(0, M), writes v = M⁻¹p and returns the kinetic
// energy ½·pᵀM⁻¹p.
func (m *metric) drawMomentum(rng *rand.Rand, p, v []float64) float64 {
	if !m.dense {
		for i := range p {
			p[i] = rng.NormFloat64() * m.sd[i]
		}
		return m.kinetic(p, v)
	}
	// p = L⁻ᵀz: Cov(p) = (L·Lᵀ)⁻¹ = M.
	for i := range p {
		p[i] = rng.NormFloat64()
	}
	D := len(p)
	for i := D - 1; i >= 0; i-- {
		s := p[i]
		for j := i + 1; j < D; j++ {
			s -= m.chol[j*D+i] * p[j]
		}
		p[i] = s / m.chol[i*D+i]
	}
	return m.kinetic(p, v)
}

// velocity writes v = M⁻¹p.
func (m *metric) velocity(p, v []float64) {
	if !m.dense {
		for i, x := range p {
			v[i] = m.inv[i] * x
		}
		return
	}
	D := len(p)
	for i := range D {
		s := 0.0
		for j, x := range p {
			s += m.inv[i*D+j] * x
		}
		v[i] = s
	}
}

// kinetic writes v = M⁻¹p and returns ½·pᵀM⁻¹p.
func (m *metric) kinetic(p, v []float64) float64 {
	m.velocity(p, v)
	k := 0.0
	for i, x := range p {
		k += x * v[i]
	}
	return 0.5 * k
}
