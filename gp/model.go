package gp

import (
	"errors"
	"fmt"
	"math"

	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
)

// ErrNotPositiveDefinite is wrapped by LogLik's error when the kernel matrix
// is not positive definite in floating point. It is linalg's sentinel.
var ErrNotPositiveDefinite = linalg.ErrNotPositiveDefinite

// Kernel is the covariance family of a Model, with ARD length scales:
// SE (the squared exponential, the paper's and the default), Matern12,
// Matern32 or Matern52 (linalg.Kernel gives the formulas). The
// parameters are the same for every family: θ = (ℓ_1, …, ℓ_D, σf, σn).
type Kernel = linalg.Kernel

// The kernel families.
const (
	SE       = linalg.KernelSE
	Matern12 = linalg.KernelMatern12
	Matern32 = linalg.KernelMatern32
	Matern52 = linalg.KernelMatern52
)

// ParseKernel returns the family named s: "se", "matern12", "matern32" or
// "matern52".
func ParseKernel(s string) (Kernel, error) {
	k, err := linalg.ParseKernel(s)
	if err != nil {
		return 0, fmt.Errorf("gp: %w", err)
	}
	return k, nil
}

// Options configures a Model. The zero value is the paper's setting.
type Options struct {
	// Kernel is the covariance family; the zero value is SE. A backend
	// without the family (the cuda backend has only SE) refuses it in New.
	Kernel Kernel
	// Prior on θ; the zero value is the paper's prior.
	Prior Prior
	// Jitter is a constant added to the diagonal of every kernel matrix on
	// top of σn² (it does not enter the gradient). 0, the default, adds
	// nothing: a kernel matrix that is not positive definite is then an
	// error. It must be ≥ 0 and finite.
	Jitter float64
}

// Model is GP regression on a dataset, evaluated through a linalg backend.
// A Model holds a backend handle with workspaces and is not safe for
// concurrent use; Clone gives another one over the same data.
type Model struct {
	be     linalg.Backend
	data   *Data
	prior  Prior
	jitter float64
	kern   Kernel
	h      linalg.GP
}

// New returns a Model of data on the backend be (nil: linalg.Default()).
// The data are uploaded to the backend and shared read-only.
func New(be linalg.Backend, data *Data, opt Options) (*Model, error) {
	if err := data.Check(); err != nil {
		return nil, err
	}
	pr, err := opt.Prior.WithDefaults()
	if err != nil {
		return nil, err
	}
	if !(opt.Jitter >= 0) || math.IsInf(opt.Jitter, 0) {
		return nil, fmt.Errorf("gp: jitter %v, want ≥ 0 and finite", opt.Jitter)
	}
	if !opt.Kernel.Valid() {
		return nil, fmt.Errorf("gp: invalid kernel family %d", int(opt.Kernel))
	}
	if be == nil {
		be = linalg.Default()
	}
	m := &Model{be: be, data: data, prior: pr, jitter: opt.Jitter, kern: opt.Kernel}
	if err := m.open(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Model) open() error {
	h, err := linalg.NewGPKernel(m.be, m.kern, m.data.X, m.data.N, m.data.D, m.data.Y)
	if err != nil {
		return fmt.Errorf("gp: uploading %d×%d data to backend %s for the %s kernel: %w", m.data.N, m.data.D, m.be.Name(), m.kern, err)
	}
	h.SetJitter(m.jitter)
	m.h = h
	return nil
}

// Copy returns an independent Model over the same (read-only) data, with
// its own backend handle and workspaces, for use by another goroutine.
func (m *Model) Copy() (*Model, error) {
	c := &Model{be: m.be, data: m.data, prior: m.prior, jitter: m.jitter, kern: m.kern}
	if err := c.open(); err != nil {
		return nil, err
	}
	return c, nil
}

// Clone is Copy as a model.Target: the samplers clone their target once
// per chain.
func (m *Model) Clone() (model.Target, error) { return model.CloneOf(m.Copy()) }

// Start implements model.Starter: chain c starts at θ*, θ*/2 or 2θ* (θ*
// the prior mean, as in the paper), cycling for more than 3 chains.
func (m *Model) Start(c, chains int, u []float64) {
	p := m.StartPoints()
	copy(u, p[c%len(p)])
}

// Close releases the backend handle. The Model cannot be used afterwards.
func (m *Model) Close() error { return linalg.CloseHandle(&m.h) }

// Dim returns the number of parameters, D+2.
func (m *Model) Dim() int { return m.data.D + 2 }

// NumObs returns the number of observations N.
func (m *Model) NumObs() int { return m.data.N }

// Data returns the model's dataset (read-only).
func (m *Model) Data() *Data { return m.data }

// Prior returns the prior, with defaults filled in.
func (m *Model) Prior() Prior { return m.prior }

// Jitter returns the constant added to the kernel diagonal (0 unless set
// in Options).
func (m *Model) Jitter() float64 { return m.jitter }

// Kernel returns the covariance family.
func (m *Model) Kernel() Kernel { return m.kern }

// Backend returns the name of the backend the model evaluates on.
func (m *Model) Backend() string { return m.be.Name() }

// PriorMean returns θ* = E[θ] under the prior, in natural units.
func (m *Model) PriorMean() []float64 { return m.prior.Mean(m.data.D) }

// StartPoints returns θ*, θ*/2 and 2θ* in the sampling space u = log θ.
func (m *Model) StartPoints() [][]float64 { return m.prior.StartPoints(m.data.D) }

// LogPrior returns log p(u) for u = log θ, including the log-Jacobian, and
// if grad is non-nil (len Dim) overwrites it with the gradient.
func (m *Model) LogPrior(u, grad []float64) float64 {
	if len(u) != m.Dim() {
		if grad != nil {
			clear(grad)
		}
		return math.Inf(-1)
	}
	return m.prior.LogDensity(u, grad)
}

// LogLik returns log N(y_S | 0, K_SS + (σn²+jitter)·I) for the
// observations in subset (nil: all) at u = log θ and, if grad is non-nil
// (len Dim), overwrites grad with its gradient with respect to u.
//
// On failure it returns −Inf, a zero gradient and an error: one wrapping
// ErrNotPositiveDefinite when the kernel matrix is not positive definite
// in floating point (samplers count it and reject the proposal), another
// for malformed arguments. It never returns NaN.
func (m *Model) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, _, err := m.logLik(subset, u, grad, nil, nil)
	return ll, err
}

// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood of
// the observations subset[:ks[j]] (0..ks[j]−1 for a nil subset), 1 ≤
// ks[j] ≤ the subset's size, from the same Cholesky factor, when the
// backend's handle gives them (model.PrefixLiker: the CPU backends do);
// ok reports whether it did. The value and gradient are those of LogLik.
// It implements model.PrefixLiker.
func (m *Model) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (ll float64, ok bool, err error) {
	if len(pre) != len(ks) {
		ll, err = m.fail(grad, fmt.Errorf("gp: log-likelihood: %d prefix lengths, %d outputs", len(ks), len(pre)))
		return ll, false, err
	}
	// Checked here too, so that a handle without prefixes refuses
	// the same arguments as one with it.
	size := len(subset)
	if subset == nil {
		size = m.data.N
	}
	for _, k := range ks {
		if k < 1 || k > size {
			ll, err = m.fail(grad, fmt.Errorf("gp: log-likelihood: prefix of %d observations of a subset of %d", k, size))
			return ll, false, err
		}
	}
	return m.logLik(subset, u, grad, ks, pre)
}

func (m *Model) logLik(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	if len(u) != m.Dim() || (grad != nil && len(grad) != m.Dim()) {
		ll, err := m.fail(grad, fmt.Errorf("gp: log-likelihood: len(u) = %d, len(grad) = %d, want %d", len(u), len(grad), m.Dim()))
		return ll, false, err
	}
	if m.h == nil {
		ll, err := m.fail(grad, errors.New("gp: log-likelihood: model is closed"))
		return ll, false, err
	}
	var (
		ll  float64
		err error
	)
	ph, ok := m.h.(model.PrefixLiker)
	ok = ok && ks != nil
	if ok {
		ll, ok, err = ph.LogLikPrefixes(subset, u, grad, ks, pre)
	} else {
		ll, err = m.h.LogLik(subset, u, grad)
	}
	ll, err = m.check(subset, u, grad, ll, err)
	return ll, ok && err == nil, err
}

// LogLikResume is LogLik with the gradient (grad non-nil, len Dim) from
// the Cholesky factor of the model's last evaluation, without building and
// factorising the kernel again, when that evaluation was made without
// gradient at the same u on a subset of which subset is a prefix, and the
// backend's handle implements model.GradResumer (the CPU backends do). It
// returns ok = false, having done nothing, otherwise; the caller then
// evaluates with LogLik. With ok, value, gradient and error are LogLik's
// (to rounding on a shorter prefix). It implements model.GradResumer.
func (m *Model) LogLikResume(subset []int, u, grad []float64) (ll float64, ok bool, err error) {
	rh, can := m.h.(model.GradResumer)
	if !can || len(u) != m.Dim() || len(grad) != m.Dim() {
		return 0, false, nil
	}
	ll, ok, err = rh.LogLikResume(subset, u, grad)
	if !ok {
		return 0, false, nil
	}
	ll, err = m.check(subset, u, grad, ll, err)
	return ll, true, err
}

// check turns the backend's result into LogLik's: errors with context,
// never NaN.
func (m *Model) check(subset []int, u, grad []float64, ll float64, err error) (float64, error) {
	if err != nil {
		n := len(subset)
		if subset == nil {
			n = m.data.N
		}
		if errors.Is(err, linalg.ErrNotPositiveDefinite) {
			return m.fail(grad, fmt.Errorf("gp: log-likelihood of %s at θ = %.4g (jitter %g): kernel matrix not positive definite: %w", plural.Count(n, "observation", "observations"), Theta(nil, u), m.jitter, err))
		}
		return m.fail(grad, fmt.Errorf("gp: log-likelihood of %s at u = %.4g: %w", plural.Count(n, "observation", "observations"), u, err))
	}
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		return m.fail(grad, fmt.Errorf("gp: log-likelihood at θ = %.4g is %v: %w", Theta(nil, u), ll, ErrNotPositiveDefinite))
	}
	return ll, nil
}

func (m *Model) fail(grad []float64, err error) (float64, error) {
	if grad != nil {
		clear(grad)
	}
	return math.Inf(-1), err
}

var (
	_ model.Target      = (*Model)(nil)
	_ model.Starter     = (*Model)(nil)
	_ model.PrefixLiker = (*Model)(nil)
	_ model.GradResumer = (*Model)(nil)
)
