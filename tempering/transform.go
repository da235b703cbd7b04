package tempering

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// A Transform is a smooth bijection u = g(v) between the target's space u
// and a space v that the chains move in (Settings.Transform). The
// density the chains sample in v is p(g(v))·|det ∂u/∂v|, so the draws,
// mapped back by g, are draws of the target: a transform changes how
// well a kernel mixes, never what it samples. A good one makes the
// posterior in v closer to a Gaussian whose shape one metric fits (a
// curved ridge straightened, a boundary moved away).
type Transform interface {
	// ToTarget sets u = g(v) (len Dim each).
	ToTarget(v, u []float64)
	// FromTarget sets v = g⁻¹(u).
	FromTarget(u, v []float64)
	// Pullback sets gv = (∂u/∂v)ᵀ·gu: the gradient with respect to v of a
	// function whose gradient with respect to u = g(v) is gu.
	Pullback(v, gu, gv []float64)
	// LogJacobian returns log|det ∂u/∂v| at v and, if grad is non-nil,
	// adds its gradient with respect to v to grad.
	LogJacobian(v, grad []float64) float64
}

// Identity is the transform u = v: the chains move in the target's own
// space, as with no transform, but a Settings.Transform that is set tells
// code that would choose one for the model (subtemper.WarmSettings picks
// the GP's variance split) to leave the space alone.
type Identity struct{}

// ToTarget sets u = v.
func (Identity) ToTarget(v, u []float64) { copy(u, v) }

// FromTarget sets v = u.
func (Identity) FromTarget(u, v []float64) { copy(v, u) }

// Pullback sets gv = gu.
func (Identity) Pullback(v, gu, gv []float64) { copy(gv, gu) }

// LogJacobian returns 0; its gradient is zero.
func (Identity) LogJacobian(v, grad []float64) float64 { return 0 }

// Reparam returns t seen in the space v of tr: its log prior is
// log p(g(v)) + log|det ∂u/∂v| and its log-likelihood that of g(v), with
// gradients with respect to v. Run uses it for Settings.Transform; it is
// exported to find modes, check gradients or evaluate densities in v.
// The returned Target passes t's optional fast paths through
// (PrefixLiker, GradResumer, Reorderer; where t lacks one it answers as
// "cannot": ok = false or an error), PriorSampler (t's prior draws mapped
// to v; NaN where t cannot draw them) and io.Closer; it is not a Starter
// (Run maps the starts of t's Starter when given the Transform itself).
func Reparam(t Target, tr Transform) Target {
	d := t.Dim()
	return &reparam{t: t, tr: tr, u: make([]float64, d), gu: make([]float64, d)}
}

type reparam struct {
	t     Target
	tr    Transform
	u, gu []float64
}

func (r *reparam) Dim() int    { return r.t.Dim() }
func (r *reparam) NumObs() int { return r.t.NumObs() }

func (r *reparam) LogPrior(v, grad []float64) float64 {
	r.tr.ToTarget(v, r.u)
	if grad == nil {
		return r.t.LogPrior(r.u, nil) + r.tr.LogJacobian(v, nil)
	}
	lp := r.t.LogPrior(r.u, r.gu)
	r.tr.Pullback(v, r.gu, grad)
	return lp + r.tr.LogJacobian(v, grad)
}

func (r *reparam) LogLik(subset []int, v, grad []float64) (float64, error) {
	r.tr.ToTarget(v, r.u)
	if grad == nil {
		return r.t.LogLik(subset, r.u, nil)
	}
	ll, err := r.t.LogLik(subset, r.u, r.gu)
	r.tr.Pullback(v, r.gu, grad)
	return ll, err
}

func (r *reparam) LogLikPrefixes(subset []int, v, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	pl, ok := r.t.(PrefixLiker)
	if !ok {
		ll, err := r.LogLik(subset, v, grad)
		return ll, false, err
	}
	r.tr.ToTarget(v, r.u)
	var gu []float64
	if grad != nil {
		gu = r.gu
	}
	ll, ok, err := pl.LogLikPrefixes(subset, r.u, gu, ks, pre)
	if grad != nil {
		r.tr.Pullback(v, r.gu, grad)
	}
	return ll, ok, err
}

func (r *reparam) LogLikResume(subset []int, v, grad []float64) (float64, bool, error) {
	gr, ok := r.t.(GradResumer)
	if !ok {
		return 0, false, nil
	}
	r.tr.ToTarget(v, r.u)
	ll, ok, err := gr.LogLikResume(subset, r.u, r.gu)
	if ok {
		r.tr.Pullback(v, r.gu, grad)
	}
	return ll, ok, err
}

func (r *reparam) Reorder(perm []int) error {
	ro, ok := r.t.(Reorderer)
	if !ok {
		return fmt.Errorf("tempering: %T cannot reorder its observations", r.t)
	}
	return ro.Reorder(perm)
}

func (r *reparam) SamplePrior(rng *rand.Rand, v []float64) {
	ps, ok := r.t.(PriorSampler)
	if !ok {
		for i := range v {
			v[i] = math.NaN()
		}
		return
	}
	ps.SamplePrior(rng, r.u)
	r.tr.FromTarget(r.u, v)
}

func (r *reparam) Clone() (Target, error) {
	c, err := r.t.Clone()
	if err != nil {
		return nil, err
	}
	return Reparam(c, r.tr), nil
}

func (r *reparam) Close() error {
	if c, ok := r.t.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// toChainSpace maps a starting point u of the target to v, checking that
// it maps to a finite point that maps back.
func toChainSpace(tr Transform, u []float64) ([]float64, error) {
	v := make([]float64, len(u))
	tr.FromTarget(u, v)
	back := make([]float64, len(u))
	tr.ToTarget(v, back)
	for i := range v {
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) || math.Abs(back[i]-u[i]) > 1e-8*(1+math.Abs(u[i])) {
			return nil, fmt.Errorf("tempering: the transform does not map the starting point %v to a finite point and back (coordinate %d: %v, back %v)", u, i, v[i], back[i])
		}
	}
	return v, nil
}

// CovInChainSpace returns the covariance in v of a Gaussian approximation
// N(m, cov) in u (cov Dim×Dim row-major), linearised at m: J⁻¹·cov·J⁻ᵀ with
// J⁻¹ = ∂v/∂u at m by central differences of FromTarget. At a mode of the
// target, with a transform whose log-Jacobian is constant, it is the
// Laplace approximation in v.
func CovInChainSpace(tr Transform, m, cov []float64) []float64 {
	d := len(m)
	jinv := make([]float64, d*d) // jinv[i*d+k] = ∂v_i/∂u_k
	up, um := make([]float64, d), make([]float64, d)
	vp, vm := make([]float64, d), make([]float64, d)
	for k := range d {
		h := 1e-6 * (1 + math.Abs(m[k]))
		copy(up, m)
		copy(um, m)
		up[k] += h
		um[k] -= h
		tr.FromTarget(up, vp)
		tr.FromTarget(um, vm)
		for i := range d {
			jinv[i*d+k] = (vp[i] - vm[i]) / (2 * h)
		}
	}
	j := mat.NewDense(d, d, jinv)
	var tmp, out mat.Dense
	tmp.Mul(j, mat.NewDense(d, d, cov))
	out.Mul(&tmp, j.T())
	res := out.RawMatrix().Data
	// Symmetrise against rounding.
	for i := range d {
		for k := range i {
			a := (res[i*d+k] + res[k*d+i]) / 2
			res[i*d+k], res[k*d+i] = a, a
		}
	}
	return res
}
