package linalgtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
)

// kernelsJSON holds scikit-learn's kernel matrices, log marginal
// likelihoods, gradients and predictions for every kernel family, written
// by scripts/matern-ref/matern_ref.py.
//
//go:embed testdata/kernels.json
var kernelsJSON []byte

// refCase is one case of testdata/kernels.json.
type refCase struct {
	Kernel string    `json:"kernel"`
	N      int       `json:"n"`
	D      int       `json:"d"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
	U      []float64 `json:"u"`
	Subset []int     `json:"subset"`
	Jitter float64   `json:"jitter"`
	K      []float64 `json:"k"`
	LogLik float64   `json:"loglik"`
	Grad   []float64 `json:"grad"`
	NT     int       `json:"nt"`
	XT     []float64 `json:"xt"`
	Mean   []float64 `json:"mean"`
	VarF   []float64 `json:"varf"`
}

var (
	refOnce  sync.Once
	refCases []refCase
	refErr   error
	refSrc   string
)

func referenceCases() ([]refCase, string, error) {
	refOnce.Do(func() {
		var doc struct {
			Source string    `json:"source"`
			Cases  []refCase `json:"cases"`
		}
		if err := json.Unmarshal(kernelsJSON, &doc); err != nil {
			refErr = fmt.Errorf("testdata/kernels.json: %w", err)
			return
		}
		refCases, refSrc = doc.Cases, doc.Source
	})
	return refCases, refSrc, refErr
}

// KernelAgreement is the largest relative difference, over the reference
// cases of one family, between a backend and scikit-learn: Kernel
// elementwise (|got − want|/|want|; an entry of 0 must be 0), LogLik
// relative to |want|, the gradient componentwise relative to the
// largest |component|, the predictive mean relative to the largest |mean|
// and the latent variance relative to σf².
type KernelAgreement struct {
	Kernel, LogLik, Grad, Mean, VarF float64
}

// KernelReferenceTolerance is the relative agreement with scikit-learn
// that KernelReferenceTest requires of every quantity.
const KernelReferenceTolerance = 1e-10

// KernelReferenceTest checks the GP handles of b for every kernel family
// (through linalg.NewGPKernel) against scikit-learn 1.2's
// GaussianProcessRegressor with ConstantKernel·RBF or ConstantKernel·Matern
// (ν = 1/2, 3/2, 5/2) plus WhiteKernel, as testdata/kernels.json holds them:
// kernel matrices, log marginal likelihoods and their gradients, posterior
// predictive means and latent variances, to KernelReferenceTolerance
// relative (KernelAgreement says relative to what). It logs the agreement
// per family. A family b refuses (linalg.NewGPKernel's error) is skipped
// with a log line, and so fails nothing: the refusal is the contract.
func KernelReferenceTest(t *testing.T, b linalg.Backend) {
	t.Helper()
	if err := checkKernelReference(b, t.Logf); err != nil {
		t.Error(err)
	}
}

func checkKernelReference(b linalg.Backend, logf func(format string, args ...any)) error {
	var f failures
	cases, src, err := referenceCases()
	if err != nil {
		return err
	}
	agree := map[string]*KernelAgreement{}
	for ci, c := range cases {
		fam, err := linalg.ParseKernel(c.Kernel)
		if err != nil {
			return fmt.Errorf("case %d: %w", ci, err)
		}
		what := fmt.Sprintf("%s N=%d D=%d subset=%d jitter=%g", c.Kernel, c.N, c.D, len(c.Subset), c.Jitter)
		g, err := linalg.NewGPKernel(b, fam, c.X, c.N, c.D, c.Y)
		if err != nil {
			if fam != linalg.KernelSE {
				if _, ok := b.(linalg.KernelBackend); !ok {
					logf("%s: refused: %v", what, err)
					continue
				}
			}
			f.errorf("%s: new gp: %v", what, err)
			continue
		}
		g.SetJitter(c.Jitter)
		a := agree[c.Kernel]
		if a == nil {
			a = &KernelAgreement{}
			agree[c.Kernel] = a
		}
		m := c.N
		if c.Subset != nil {
			m = len(c.Subset)
		}
		k := make([]float64, m*m)
		if err := g.Kernel(k, c.Subset, c.U); err != nil {
			f.errorf("%s: kernel: %v", what, err)
			continue
		}
		for i, w := range c.K {
			var e float64
			switch {
			case w != 0:
				e = math.Abs(k[i]-w) / math.Abs(w)
			case k[i] != 0:
				e = math.Inf(1)
			}
			if math.IsNaN(k[i]) {
				e = math.Inf(1)
			}
			a.Kernel = math.Max(a.Kernel, e)
		}
		grad := make([]float64, c.D+2)
		ll, err := g.LogLik(c.Subset, c.U, grad)
		if err != nil {
			f.errorf("%s: loglik: %v", what, err)
			continue
		}
		a.LogLik = math.Max(a.LogLik, relErr(ll, c.LogLik, math.Abs(c.LogLik)))
		var gmax float64
		for _, v := range c.Grad {
			gmax = math.Max(gmax, math.Abs(v))
		}
		for j, w := range c.Grad {
			a.Grad = math.Max(a.Grad, relErr(grad[j], w, gmax))
		}
		if c.NT > 0 {
			ph, ok := g.(linalg.PredictGP)
			if !ok {
				logf("%s: handle has no Predict", what)
			} else {
				mean, varf := make([]float64, c.NT), make([]float64, c.NT)
				if err := ph.Predict(c.XT, c.NT, c.U, mean, varf); err != nil {
					f.errorf("%s: predict: %v", what, err)
				} else {
					var mmax float64
					for _, v := range c.Mean {
						mmax = math.Max(mmax, math.Abs(v))
					}
					sf2 := math.Exp(2 * c.U[c.D])
					for i := range c.NT {
						a.Mean = math.Max(a.Mean, relErr(mean[i], c.Mean[i], mmax))
						a.VarF = math.Max(a.VarF, relErr(varf[i], c.VarF[i], sf2))
					}
				}
			}
		}
		_ = g.Close()
	}
	for _, name := range []string{"se", "matern12", "matern32", "matern52"} {
		a := agree[name]
		if a == nil {
			continue
		}
		logf("%s vs %s: max relative difference: kernel %.2g, loglik %.2g, gradient %.2g, mean %.2g, latent variance %.2g", b.Name(), name, a.Kernel, a.LogLik, a.Grad, a.Mean, a.VarF)
		for _, q := range []struct {
			what string
			v    float64
		}{{"kernel", a.Kernel}, {"loglik", a.LogLik}, {"gradient", a.Grad}, {"mean", a.Mean}, {"latent variance", a.VarF}} {
			if !(q.v <= KernelReferenceTolerance) {
				f.errorf("%s kernel: %s differs from scikit-learn (%s) by %.3g relative, tolerance %g", name, q.what, src, q.v, KernelReferenceTolerance)
			}
		}
	}
	return f.err()
}

// relErr is |got − want| / scale (scale floored at the smallest normal
// number); a NaN gives +Inf.
func relErr(got, want, scale float64) float64 {
	e := math.Abs(got-want) / math.Max(scale, 0x1p-1022)
	if math.IsNaN(e) {
		return math.Inf(1)
	}
	return e
}

// maternFamilies are the families other than the squared exponential.
var maternFamilies = []linalg.Kernel{linalg.KernelMatern12, linalg.KernelMatern32, linalg.KernelMatern52}

// plainCov is the covariance of family k at scaled distance r with signal
// variance sf2, and its derivative with respect to r, written from the
// textbook formulas (Rasmussen & Williams eq. 4.17 for ν = 3/2, 5/2),
// independently of the backends.
func plainCov(k linalg.Kernel, r, sf2 float64) (v, dvdr float64) {
	switch k {
	case linalg.KernelSE:
		return sf2 * math.Exp(-r*r/2), -r * sf2 * math.Exp(-r*r/2)
	case linalg.KernelMatern12:
		return sf2 * math.Exp(-r), -sf2 * math.Exp(-r)
	case linalg.KernelMatern32:
		s := math.Sqrt(3) * r
		return sf2 * (1 + s) * math.Exp(-s), -sf2 * 3 * r * math.Exp(-s)
	case linalg.KernelMatern52:
		s := math.Sqrt(5) * r
		return sf2 * (1 + s + s*s/3) * math.Exp(-s), -sf2 * 5 * r / 3 * (1 + s) * math.Exp(-s)
	}
	panic("plainCov: " + k.String())
}

// plainKernel is K_SS + (σn²+jitter)·I of family k from explicit
// differences of the inputs, row-major, both triangles; with dk non-nil
// (len D+2) it also sets dk[j] to ∂K/∂u_j.
func plainKernel(c gpCase, k linalg.Kernel, u []float64, dk [][]float64) []float64 {
	idx := c.indices()
	m, d := len(idx), c.d
	sf2, sn2 := math.Exp(2*u[d]), math.Exp(2*u[d+1])
	out := make([]float64, m*m)
	for j := range dk {
		dk[j] = make([]float64, m*m)
	}
	s := make([]float64, d)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			var r2 float64
			for q := 0; q < d; q++ {
				diff := (c.x[idx[i]*d+q] - c.x[idx[j]*d+q]) / math.Exp(u[q])
				s[q] = diff * diff
				r2 += s[q]
			}
			r := math.Sqrt(r2)
			v, dv := plainCov(k, r, sf2)
			out[i*m+j] = v
			if dk != nil {
				// ∂r/∂log ℓ_q = −s_q/r.
				for q := 0; q < d; q++ {
					if r > 0 {
						dk[q][i*m+j] = -dv * s[q] / r
					}
				}
				dk[d][i*m+j] = 2 * v
			}
		}
		out[i*m+i] += sn2 + c.jitter
		if dk != nil {
			dk[d+1][i*m+i] = 2 * sn2
		}
	}
	return out
}

// plainLogLik is log N(y_S | 0, K) on plainKernel with gonum/mat, and with
// grad non-nil its gradient ½·tr((ααᵀ − K⁻¹)·∂K/∂u_j) from the explicit
// derivative matrices.
func plainLogLik(c gpCase, k linalg.Kernel, u, grad []float64) float64 {
	m := c.size()
	var dk [][]float64
	if grad != nil {
		dk = make([][]float64, c.d+2)
	}
	ll, ch, al := gaussLogLik(c, plainKernel(c, k, u, dk))
	if grad != nil && ch != nil {
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			return math.NaN()
		}
		for j := range grad {
			var s float64
			for p := 0; p < m; p++ {
				for q := 0; q < m; q++ {
					s += (al.AtVec(p)*al.AtVec(q) - inv.At(p, q)) * dk[j][p*m+q]
				}
			}
			grad[j] = s / 2
		}
	}
	return ll
}

// MaternTest checks the GP handles of b for the Matérn families on the
// conformance data sets (random inputs with an offset, subsets, jitter, a
// pair of equal inputs): Kernel against plainKernel (explicit differences
// and the textbook formulas, elementwise to 1e-12 relative); LogLik and
// its gradient against the gonum backend (the suite's tolerance), against
// plainLogLik's value and analytic gradient (from explicit ∂K/∂u) and
// against central finite differences of plainLogLik; LogLik without
// gradient equal to LogLik with it; the model.PrefixLiker and model.GradResumer values
// against LogLik; Predict against the dense predictive from plainKernel.
// A backend that refuses the families (not a linalg.KernelBackend) is
// checked for a clear refusal only.
func MaternTest(t *testing.T, b linalg.Backend) {
	t.Helper()
	if _, ok := b.(linalg.KernelBackend); !ok {
		for _, k := range maternFamilies {
			if _, err := linalg.NewGPKernel(b, k, []float64{0, 1}, 2, 1, []float64{0, 1}); err == nil {
				t.Errorf("%s: backend without linalg.KernelBackend built a %s handle", b.Name(), k)
			}
		}
		return
	}
	for _, k := range maternFamilies {
		t.Run(k.String(), func(t *testing.T) { run(t, b, func(b linalg.Backend) error { return checkMatern(b, k) }) })
	}
}

func checkMatern(b linalg.Backend, k linalg.Kernel) error {
	var f failures
	ref := linalg.Default()
	cs := gpCases(7)
	// A case with two equal inputs (scaled distance 0 off the diagonal).
	dup := cs[len(cs)-1]
	for _, c := range cs {
		if c.n == 64 && c.d == 3 && c.subset == nil {
			dup = c
		}
	}
	dup.x = slices.Clone(dup.x)
	copy(dup.x[dup.d:2*dup.d], dup.x[:dup.d])
	cs = append(cs, dup)
	for _, c := range cs {
		what := fmt.Sprintf("%s N=%d D=%d subset=%d", k, c.n, c.d, len(c.subset))
		g, err := linalg.NewGPKernel(b, k, c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("%s: new gp: %v", what, err)
			continue
		}
		g.SetJitter(c.jitter)
		m := c.size()
		kk := make([]float64, m*m)
		if err := g.Kernel(kk, c.subset, c.u); err != nil {
			f.errorf("%s: kernel: %v", what, err)
			continue
		}
		want := plainKernel(c, k, c.u, nil)
		var worst float64
		for i, w := range want {
			worst = math.Max(worst, relErr(kk[i], w, math.Abs(w)))
		}
		if !(worst <= 1e-12) {
			f.errorf("%s: kernel differs from explicit differences by %.3g relative", what, worst)
		}
		grad := make([]float64, c.d+2)
		ll, err := g.LogLik(c.subset, c.u, grad)
		if err != nil {
			f.errorf("%s: loglik: %v", what, err)
			continue
		}
		if llOnly, err := g.LogLik(c.subset, c.u, nil); err != nil || llOnly != ll {
			f.errorf("%s: loglik without gradient %v (%v), with %v", what, llOnly, err, ll)
		}
		if rs, ok := g.(model.GradResumer); ok {
			rgrad := make([]float64, c.d+2)
			rll, ok, err := rs.LogLikResume(c.subset, c.u, rgrad)
			if !ok || err != nil || rll != ll || !slices.Equal(rgrad, grad) {
				f.errorf("%s: resumed loglik %v, gradient %v (ok %v, %v); want %v, %v", what, rll, rgrad, ok, err, ll, grad)
			}
		}
		kap := c.kappa()
		rg, err := linalg.NewGPKernel(ref, k, c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("%s: reference: %v", what, err)
			continue
		}
		rg.SetJitter(c.jitter)
		rgrad := make([]float64, c.d+2)
		rll, err := rg.LogLik(c.subset, c.u, rgrad)
		if err != nil {
			f.errorf("%s: reference loglik: %v", what, err)
			continue
		}
		tl, tg := f.agree(what, m, kap, ll, rll, grad, rgrad)
		if ph, ok := g.(model.PrefixLiker); ok && m > 2 {
			ks := []int{m, m / 2, 1}
			pre := make([]float64, len(ks))
			_, pok, err := ph.LogLikPrefixes(c.subset, c.u, nil, ks, pre)
			if err != nil {
				f.errorf("%s: prefixes: %v", what, err)
			}
			if !pok {
				ks = nil // no prefixes given: nothing to compare
			}
			idx := c.indices()
			for j, kj := range ks {
				want, err := g.LogLik(idx[:kj], c.u, nil)
				if err != nil || math.Abs(pre[j]-want) > tol(kj, kap)*math.Max(float64(kj), math.Abs(want)) {
					f.errorf("%s: prefix of %d: %v, LogLik %v (%v)", what, kj, pre[j], want, err)
				}
			}
		}
		if m > 129 {
			continue // the plain O(m³) computations are too slow here
		}
		pgrad := make([]float64, c.d+2)
		want0 := plainLogLik(c, k, c.u, pgrad)
		if d := math.Abs(ll - want0); !(d <= tl) {
			f.errorf("%s: loglik %.17g, plain %.17g: differ by %.3g, tolerance %.3g", what, ll, want0, d, tl)
		}
		for j := range grad {
			if d := math.Abs(grad[j] - pgrad[j]); !(d <= tg) {
				f.errorf("%s: grad[%d] = %.17g, plain %.17g: differ by %.3g, tolerance %.3g", what, j, grad[j], pgrad[j], d, tg)
			}
		}
		// Central differences, h = 1e-5, as checkGPLogLik.
		up := slices.Clone(c.u)
		for j := range c.u {
			const h = 1e-5
			up[j] = c.u[j] + h
			lp := plainLogLik(c, k, up, nil)
			up[j] = c.u[j] - h
			lm := plainLogLik(c, k, up, nil)
			up[j] = c.u[j]
			fd := (lp - lm) / (2 * h)
			if d := math.Abs(fd - grad[j]); !(d <= 1e-5*math.Max(1, math.Abs(fd))) {
				f.errorf("%s: grad[%d] = %.10g, finite difference %.10g", what, j, grad[j], fd)
			}
		}
		if c.subset == nil {
			checkMaternPredict(&f, g, c, k, what)
		}
	}
	return f.err()
}

// checkMaternPredict compares Predict with the dense predictive from
// plainKernel and gonum/mat at test inputs around the data and at one
// observation.
func checkMaternPredict(f *failures, g linalg.GP, c gpCase, k linalg.Kernel, what string) {
	ph, ok := g.(linalg.PredictGP)
	if !ok {
		return
	}
	const nt = 5
	d := c.d
	xt := make([]float64, nt*d)
	for i := range xt {
		xt[i] = c.x[i%len(c.x)] + 0.3*math.Sin(float64(i))
	}
	copy(xt[:d], c.x[:d])
	mean, varf := make([]float64, nt), make([]float64, nt)
	if err := ph.Predict(xt, nt, c.u, mean, varf); err != nil {
		f.errorf("%s: predict: %v", what, err)
		return
	}
	n := c.n
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, plainKernel(c, k, c.u, nil))) {
		f.errorf("%s: plain kernel not positive definite", what)
		return
	}
	sf2 := math.Exp(2 * c.u[d])
	var al mat.VecDense
	_ = ch.SolveVecTo(&al, mat.NewVecDense(n, slices.Clone(c.y)))
	kap := c.kappa()
	for t := range nt {
		kt := mat.NewVecDense(n, nil)
		for i := range n {
			var r2 float64
			for q := range d {
				diff := (xt[t*d+q] - c.x[i*d+q]) / math.Exp(c.u[q])
				r2 += diff * diff
			}
			v, _ := plainCov(k, math.Sqrt(r2), sf2)
			kt.SetVec(i, v)
		}
		var s mat.VecDense
		_ = ch.SolveVecTo(&s, kt)
		wm, wv := mat.Dot(kt, &al), max(sf2-mat.Dot(kt, &s), 0)
		tm := tol(n, kap) * math.Max(1, math.Abs(wm)) * 8
		if math.Abs(mean[t]-wm) > tm || math.Abs(varf[t]-wv) > tol(n, kap)*sf2*8 {
			f.errorf("%s: predict at test input %d: mean %.17g, variance %.17g; dense %.17g, %.17g", what, t, mean[t], varf[t], wm, wv)
		}
	}
}
