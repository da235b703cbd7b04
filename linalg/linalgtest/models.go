package linalgtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
)

// gpCase is a GP regression data set with hyperparameters.
type gpCase struct {
	n, d   int
	x, y   []float64
	u      []float64
	subset []int
	jitter float64
}

// gpCases returns data sets at every size in Sizes: inputs N(3, 1) (an
// offset that the Gram-matrix kernel build must not lose precision to),
// length scales around √D, σf ≈ 1.2, σn = 0.3, with and without a
// subset.
func gpCases(seed uint64) []gpCase {
	rng := rand.New(rand.NewPCG(seed, 4))
	var cs []gpCase
	for _, n := range Sizes {
		for _, d := range []int{3, 18} {
			if n > 129 && d == 3 {
				continue
			}
			c := gpCase{n: n, d: d, x: make([]float64, n*d), y: make([]float64, n), u: make([]float64, d+2)}
			for i := range c.x {
				c.x[i] = 3 + rng.NormFloat64()
			}
			for i := range c.y {
				c.y[i] = rng.NormFloat64()
			}
			for j := 0; j < d; j++ {
				c.u[j] = 0.5*math.Log(float64(d)) + 0.3*rng.NormFloat64()
			}
			c.u[d], c.u[d+1] = 0.2, math.Log(0.3)
			cs = append(cs, c)
			if n > 2 {
				s := c
				s.subset = rng.Perm(n)[:n/2+1]
				s.jitter = 1e-3
				cs = append(cs, s)
			}
		}
	}
	return cs
}

func (c gpCase) size() int {
	if c.subset == nil {
		return c.n
	}
	return len(c.subset)
}

// kappa bounds the condition number of the kernel matrix:
// λmax ≤ m·σf² + σn² + jitter (Gershgorin), λmin ≥ σn² + jitter.
func (c gpCase) kappa() float64 {
	sf2, sn2 := math.Exp(2*c.u[c.d]), math.Exp(2*c.u[c.d+1])
	return 1 + float64(c.size())*sf2/(sn2+c.jitter)
}

func (c gpCase) indices() []int { return Indices(c.subset, c.n) }

// Indices returns the observations a subset names: subset itself, or
// 0, 1, …, n−1 when it is nil (all n observations), as the GP and MVN
// handles read it.
func Indices(subset []int, n int) []int {
	if subset != nil {
		return subset
	}
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// naiveKernel is K_SS + (σn²+jitter)·I from explicit differences of the
// inputs, row-major, both triangles.
func naiveKernel(c gpCase, u []float64) []float64 {
	idx := c.indices()
	m, d := len(idx), c.d
	sf2, sn2 := math.Exp(2*u[d]), math.Exp(2*u[d+1])
	k := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			var s float64
			for q := 0; q < d; q++ {
				diff := (c.x[idx[i]*d+q] - c.x[idx[j]*d+q]) / math.Exp(u[q])
				s += diff * diff
			}
			k[i*m+j] = sf2 * math.Exp(-0.5*s)
		}
		k[i*m+i] += sn2 + c.jitter
	}
	return k
}

// naiveLogLik is log N(y_S | 0, K) with gonum/mat on the naive kernel.
func naiveLogLik(c gpCase, u []float64) float64 {
	ll, _, _ := gaussLogLik(c, naiveKernel(c, u))
	return ll
}

// gaussLogLik returns log N(y_S | 0, K) with gonum/mat for c's subset S
// and its kernel matrix k (row-major), with K's Cholesky factor and α =
// K⁻¹·y_S; NaN (and nil) where K is not positive definite.
func gaussLogLik(c gpCase, k []float64) (float64, *mat.Cholesky, *mat.VecDense) {
	idx := c.indices()
	m := len(idx)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(m, k)) {
		return math.NaN(), nil, nil
	}
	ys := mat.NewVecDense(m, nil)
	for i, j := range idx {
		ys.SetVec(i, c.y[j])
	}
	var al mat.VecDense
	if err := ch.SolveVecTo(&al, ys); err != nil {
		return math.NaN(), nil, nil
	}
	return -0.5*mat.Dot(ys, &al) - 0.5*ch.LogDet() - 0.5*float64(m)*math.Log(2*math.Pi), &ch, &al
}

func checkGPKernel(b linalg.Backend) error {
	var f failures
	ref := linalg.Default()
	for _, c := range gpCases(5) {
		g, err := b.NewGP(c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("N=%d D=%d: new gp: %v", c.n, c.d, err)
			continue
		}
		g.SetJitter(c.jitter)
		m := c.size()
		got := make([]float64, m*m)
		if err := g.Kernel(got, c.subset, c.u); err != nil {
			f.errorf("N=%d D=%d subset=%d: kernel: %v", c.n, c.d, len(c.subset), err)
			continue
		}
		want := naiveKernel(c, c.u)
		// The Gram-matrix form |z_i|² + |z_j|² − 2 z_i·z_j of the squared
		// distance has absolute error O(D·ε·max|z|²) on centred inputs.
		var zmax float64
		idx := c.indices()
		for _, i := range idx {
			var s float64
			for q := 0; q < c.d; q++ {
				var mean float64
				for r := 0; r < c.n; r++ {
					mean += c.x[r*c.d+q]
				}
				mean /= float64(c.n)
				z := (c.x[i*c.d+q] - mean) / math.Exp(c.u[q])
				s += z * z
			}
			zmax = math.Max(zmax, s)
		}
		sf2 := math.Exp(2 * c.u[c.d])
		bound := 16 * float64(c.d+2) * eps * sf2 * (1 + zmax)
		var worst float64
		for i := range want {
			worst = math.Max(worst, math.Abs(got[i]-want[i]))
		}
		if anyNaN(got) || !(worst <= bound) {
			f.errorf("N=%d D=%d subset=%d: kernel differs from explicit differences by %.3g, tolerance %.3g", c.n, c.d, len(c.subset), worst, bound)
		}
		for i := 0; i < m; i++ {
			if want := sf2 + math.Exp(2*c.u[c.d+1]) + c.jitter; math.Abs(got[i*m+i]-want) > 4*eps*want {
				f.errorf("N=%d D=%d: K[%d,%d] = %v, want σf²+σn²+jitter = %v", c.n, c.d, i, i, got[i*m+i], want)
				break
			}
		}
		rg, _ := ref.NewGP(c.x, c.n, c.d, c.y)
		rg.SetJitter(c.jitter)
		rk := make([]float64, m*m)
		_ = rg.Kernel(rk, c.subset, c.u)
		worst = 0
		for i := range rk {
			worst = math.Max(worst, math.Abs(got[i]-rk[i]))
		}
		if !(worst <= bound) {
			f.errorf("N=%d D=%d subset=%d: kernel differs from gonum's by %.3g, tolerance %.3g", c.n, c.d, len(c.subset), worst, bound)
		}
	}
	return f.err()
}

func checkGPLogLik(b linalg.Backend) error {
	var f failures
	ref := linalg.Default()
	for _, c := range gpCases(6) {
		g, err := b.NewGP(c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("N=%d D=%d: new gp: %v", c.n, c.d, err)
			continue
		}
		g.SetJitter(c.jitter)
		if g.N() != c.n || g.D() != c.d {
			f.errorf("N=%d D=%d: handle reports N=%d D=%d", c.n, c.d, g.N(), g.D())
		}
		m := c.size()
		kap := c.kappa()
		grad := make([]float64, c.d+2)
		ll, err := g.LogLik(c.subset, c.u, grad)
		if err != nil {
			f.errorf("N=%d D=%d subset=%d: loglik: %v", c.n, c.d, len(c.subset), err)
			continue
		}
		llOnly, err := g.LogLik(c.subset, c.u, nil)
		if err != nil || llOnly != ll {
			f.errorf("N=%d D=%d subset=%d: loglik without gradient %v (%v), with %v", c.n, c.d, len(c.subset), llOnly, err, ll)
		}
		rg, _ := ref.NewGP(c.x, c.n, c.d, c.y)
		rg.SetJitter(c.jitter)
		rgrad := make([]float64, c.d+2)
		rll, err := rg.LogLik(c.subset, c.u, rgrad)
		if err != nil {
			f.errorf("N=%d D=%d: reference loglik: %v", c.n, c.d, err)
			continue
		}
		tl, _ := f.agree(fmt.Sprintf("N=%d D=%d subset=%d", c.n, c.d, len(c.subset)), m, kap, ll, rll, grad, rgrad)
		if m > 129 {
			continue // the naive O(m³) finite differences are too slow here
		}
		want := naiveLogLik(c, c.u)
		if d := math.Abs(ll - want); !(d <= tl) {
			f.errorf("N=%d D=%d subset=%d: loglik %.17g, naive %.17g: differ by %.3g, tolerance %.3g", c.n, c.d, len(c.subset), ll, want, d, tl)
		}
		// Central differences, h = 1e-5: truncation O(h²) and rounding
		// O(ε|ℓ|/h) are both below 1e-6 of max(1, |∂ℓ|) here.
		up := append([]float64(nil), c.u...)
		for j := range c.u {
			const h = 1e-5
			up[j] = c.u[j] + h
			lp := naiveLogLik(c, up)
			up[j] = c.u[j] - h
			lm := naiveLogLik(c, up)
			up[j] = c.u[j]
			fd := (lp - lm) / (2 * h)
			if d := math.Abs(fd - grad[j]); !(d <= 1e-5*math.Max(1, math.Abs(fd))) {
				f.errorf("N=%d D=%d subset=%d: grad[%d] = %.10g, finite difference %.10g", c.n, c.d, len(c.subset), j, grad[j], fd)
			}
		}
	}
	return f.err()
}

func checkMVN(b linalg.Backend) error {
	var f failures
	ref := linalg.Default()
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range Sizes {
		for _, d := range []int{1, 3, 18} {
			w := make([]float64, n*d)
			for i := range w {
				w[i] = 2 + rng.NormFloat64()
			}
			mv, err := b.NewMVN(w, n, d)
			if err != nil {
				f.errorf("N=%d D=%d: new mvn: %v", n, d, err)
				continue
			}
			if mv.N() != n || mv.D() != d {
				f.errorf("N=%d D=%d: handle reports N=%d D=%d", n, d, mv.N(), mv.D())
			}
			rm, _ := ref.NewMVN(w, n, d)
			subsets := [][]int{nil, rng.Perm(n)[:(n+1)/2]}
			if n >= 3 {
				subsets = append(subsets, []int{n - 1, 0, n - 1}) // repeats are allowed
			}
			for _, s := range subsets {
				for _, B := range []int{1, 3, 17} {
					t := make([]float64, B*d)
					for i := range t {
						t[i] = 2 + rng.NormFloat64()
					}
					out := make([]float64, B)
					resid := make([]float64, B*d)
					if err := mv.SumSq(s, t, B, out, resid); err != nil {
						f.errorf("N=%d D=%d B=%d subset=%v: sumsq: %v", n, d, B, len(s), err)
						continue
					}
					idx := Indices(s, n)
					for bb := 0; bb < B; bb++ {
						var want, scale float64
						for _, i := range idx {
							for j := 0; j < d; j++ {
								diff := w[i*d+j] - t[bb*d+j]
								want += diff * diff
								scale += w[i*d+j]*w[i*d+j] + t[bb*d+j]*t[bb*d+j]
							}
						}
						bound := 16 * float64(len(idx)+d) * eps * scale
						if dd := math.Abs(out[bb] - want); !(dd <= bound) {
							f.errorf("N=%d D=%d B=%d subset=%d: out[%d] = %.17g, loop %.17g: differ by %.3g, tolerance %.3g", n, d, B, len(s), bb, out[bb], want, dd, bound)
						}
						for j := 0; j < d; j++ {
							var r, sc float64
							for _, i := range idx {
								r += w[i*d+j] - t[bb*d+j]
								sc += math.Abs(w[i*d+j]) + math.Abs(t[bb*d+j])
							}
							if dd := math.Abs(resid[bb*d+j] - r); !(dd <= 16*float64(len(idx)+1)*eps*sc) {
								f.errorf("N=%d D=%d B=%d subset=%d: resid[%d,%d] = %.17g, loop %.17g", n, d, B, len(s), bb, j, resid[bb*d+j], r)
							}
						}
					}
					rout := make([]float64, B)
					_ = rm.SumSq(s, t, B, rout, nil)
					for bb := range rout {
						if dd := math.Abs(out[bb] - rout[bb]); !(dd <= 1e-12*math.Max(1, rout[bb])*float64(len(idx)+d)) {
							f.errorf("N=%d D=%d B=%d: out[%d] = %.17g, gonum %.17g", n, d, B, bb, out[bb], rout[bb])
						}
					}
				}
			}
		}
	}
	return f.err()
}

// checkGPPrefixes checks model.PrefixLiker where the backend's GP handles
// implement it: the full value and gradient are exactly LogLik's, each
// prefix value agrees with LogLik on the prefix itself, and prefix lengths
// out of range are errors.
func checkGPPrefixes(b linalg.Backend) error {
	var f failures
	for _, c := range gpCases(7) {
		g, err := b.NewGP(c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("N=%d D=%d: new gp: %v", c.n, c.d, err)
			continue
		}
		pg, ok := g.(model.PrefixLiker)
		if !ok {
			_ = g.Close()
			return nil
		}
		g.SetJitter(c.jitter)
		m := c.size()
		ks := []int{m, (m + 1) / 2, 1, max(1, m/3)}
		pre := make([]float64, len(ks))
		grad, pgrad := make([]float64, c.d+2), make([]float64, c.d+2)
		ll, err := g.LogLik(c.subset, c.u, grad)
		if err != nil {
			f.errorf("N=%d D=%d: loglik: %v", c.n, c.d, err)
			continue
		}
		pll, pok, err := pg.LogLikPrefixes(c.subset, c.u, pgrad, ks, pre)
		if err != nil {
			f.errorf("N=%d D=%d: loglik with prefixes: %v", c.n, c.d, err)
			continue
		}
		if !pok {
			continue // this handle gives no prefixes here: nothing to check
		}
		if pll != ll {
			f.errorf("N=%d D=%d subset=%d: loglik with prefixes %.17g, without %.17g", c.n, c.d, len(c.subset), pll, ll)
		}
		for j := range grad {
			if pgrad[j] != grad[j] {
				f.errorf("N=%d D=%d subset=%d: gradient[%d] with prefixes %.17g, without %.17g", c.n, c.d, len(c.subset), j, pgrad[j], grad[j])
			}
		}
		idx := c.indices()
		for j, k := range ks {
			want, err := g.LogLik(idx[:k], c.u, nil)
			if err != nil {
				f.errorf("N=%d D=%d: loglik of prefix %d: %v", c.n, c.d, k, err)
				continue
			}
			tl := tol(k, c.kappa()) * math.Max(float64(k), math.Abs(want))
			if d := math.Abs(pre[j] - want); !(d <= tl) {
				f.errorf("N=%d D=%d subset=%d: prefix %d: %.17g, loglik of the prefix %.17g: differ by %.3g, tolerance %.3g", c.n, c.d, len(c.subset), k, pre[j], want, d, tl)
			}
		}
		for _, k := range []int{0, m + 1} {
			if _, _, err := pg.LogLikPrefixes(c.subset, c.u, nil, []int{k}, pre[:1]); err == nil {
				f.errorf("N=%d D=%d: prefix of %d observations of %d accepted", c.n, c.d, k, m)
			}
		}
		_ = g.Close()
	}
	return f.err()
}

// checkGPResume checks model.GradResumer where the backend's GP handles
// implement it: after an evaluation without gradient, the resumed value
// and gradient on the same subset are exactly LogLik's with gradient, and
// on a prefix of it agree with LogLik on the prefix to rounding; the
// factor serves once; a different point, a subset that is not a prefix, a
// longer one, or any call that rebuilds the kernel (an evaluation with
// gradient, Kernel, SetJitter) in between makes it refuse, changing
// nothing.
func checkGPResume(b linalg.Backend) error {
	var f failures
	for _, c := range gpCases(9) {
		g, err := b.NewGP(c.x, c.n, c.d, c.y)
		if err != nil {
			f.errorf("N=%d D=%d: new gp: %v", c.n, c.d, err)
			continue
		}
		rg, ok := g.(model.GradResumer)
		if !ok {
			_ = g.Close()
			return nil
		}
		g.SetJitter(c.jitter)
		m := c.size()
		idx := c.indices()
		name := fmt.Sprintf("N=%d D=%d subset=%d", c.n, c.d, len(c.subset))
		grad, rgrad := make([]float64, c.d+2), make([]float64, c.d+2)
		value := func(sub []int) bool {
			if _, err := g.LogLik(sub, c.u, nil); err != nil {
				f.errorf("%s: loglik: %v", name, err)
				return false
			}
			return true
		}
		ll, err := g.LogLik(c.subset, c.u, grad)
		if err != nil {
			f.errorf("%s: loglik: %v", name, err)
			continue
		}
		if !value(c.subset) {
			continue
		}
		rll, ok, err := rg.LogLikResume(c.subset, c.u, rgrad)
		switch {
		case !ok || err != nil:
			f.errorf("%s: resume on the same subset: ok = %v, err = %v", name, ok, err)
		case rll != ll || !slices.Equal(rgrad, grad):
			f.errorf("%s: resumed loglik %.17g, gradient %v; LogLik %.17g, %v", name, rll, rgrad, ll, grad)
		}
		if _, ok, _ := rg.LogLikResume(c.subset, c.u, rgrad); ok {
			f.errorf("%s: the factor served twice", name)
		}
		// Prefixes, each after a new evaluation on the whole subset, the
		// refusals first (they must leave the factor usable).
		other := slices.Clone(c.u)
		other[0] += 1e-9
		for _, k := range []int{m, (m + 1) / 2, 1, max(1, m-1)} {
			if !value(c.subset) {
				break
			}
			if _, ok, _ := rg.LogLikResume(idx[:k], other, rgrad); ok {
				f.errorf("%s: resumed at another point", name)
			}
			if k >= 2 {
				swapped := slices.Clone(idx[:k])
				swapped[0], swapped[1] = swapped[1], swapped[0]
				if _, ok, _ := rg.LogLikResume(swapped, c.u, rgrad); ok {
					f.errorf("%s: resumed on a permuted prefix of %d", name, k)
				}
			}
			if m < c.n {
				if _, ok, _ := rg.LogLikResume(nil, c.u, rgrad); ok {
					f.errorf("%s: resumed on all %d observations from a subset of %d", name, c.n, m)
				}
			}
			rll, ok, err := rg.LogLikResume(idx[:k], c.u, rgrad)
			if !ok || err != nil {
				f.errorf("%s: resume on the prefix of %d: ok = %v, err = %v", name, k, ok, err)
				continue
			}
			want, err := g.LogLik(idx[:k], c.u, grad)
			if err != nil {
				f.errorf("%s: loglik of the prefix of %d: %v", name, k, err)
				continue
			}
			sub := c
			sub.subset = idx[:k]
			kap := sub.kappa()
			if d := math.Abs(rll - want); !(d <= tol(k, kap)*math.Max(float64(k), math.Abs(want))) {
				f.errorf("%s: prefix of %d: resumed loglik %.17g, LogLik %.17g", name, k, rll, want)
			}
			var gmax float64
			for _, v := range grad {
				gmax = math.Max(gmax, math.Abs(v))
			}
			for j := range grad {
				if d := math.Abs(rgrad[j] - grad[j]); !(d <= tol(k, kap)*math.Max(float64(k), gmax)) {
					f.errorf("%s: prefix of %d: resumed grad[%d] = %.17g, LogLik %.17g", name, k, j, rgrad[j], grad[j])
				}
			}
		}
		// Calls that rebuild the kernel use the factor up.
		kbuf := make([]float64, m*m)
		for _, between := range []struct {
			what string
			call func()
		}{
			{"an evaluation with gradient", func() { _, _ = g.LogLik(c.subset, c.u, grad) }},
			{"Kernel", func() { _ = g.Kernel(kbuf, c.subset, c.u) }},
			{"SetJitter", func() { g.SetJitter(c.jitter) }},
		} {
			if !value(c.subset) {
				break
			}
			between.call()
			if _, ok, _ := rg.LogLikResume(c.subset, c.u, rgrad); ok {
				f.errorf("%s: resumed after %s", name, between.what)
			}
		}
		if value(c.subset) {
			if _, _, err := rg.LogLikResume(c.subset, c.u, rgrad[:1]); err == nil {
				f.errorf("%s: resume with a gradient of length 1 accepted", name)
			}
		}
		_ = g.Close()
	}
	return f.err()
}

// checkMVNPrefixes checks linalg.PrefixMVN where the backend's MVN handles
// implement it: out and resid exactly SumSq's, each prefix sum equal to
// SumSq on the prefix to rounding when the handle reports it gave them,
// which it must for all observations in the original order and, after
// Reorder(perm), for prefixes of perm; out-of-range lengths are errors.
func checkMVNPrefixes(b linalg.Backend) error {
	var f failures
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range Sizes {
		const d = 5
		w := make([]float64, n*d)
		for i := range w {
			w[i] = 2 + rng.NormFloat64()
		}
		mv, err := b.NewMVN(w, n, d)
		if err != nil {
			f.errorf("N=%d: new mvn: %v", n, err)
			continue
		}
		pm, ok := mv.(linalg.PrefixMVN)
		if !ok {
			_ = mv.Close()
			return nil
		}
		t := make([]float64, d)
		for i := range t {
			t[i] = 2 + rng.NormFloat64()
		}
		perm := rng.Perm(n)
		check := func(s []int, must bool) {
			m := len(s)
			if s == nil {
				m = n
			}
			ks := []int{m, max(1, m/2), max(1, m/2), 1}
			pre := make([]float64, len(ks))
			out, resid := make([]float64, 1), make([]float64, d)
			wout, wresid := make([]float64, 1), make([]float64, d)
			gave, err := pm.SumSqPrefixes(s, t, out, resid, ks, pre)
			if err2 := mv.SumSq(s, t, 1, wout, wresid); err != nil || err2 != nil {
				f.errorf("N=%d subset of %d: %v, %v", n, m, err, err2)
				return
			}
			if out[0] != wout[0] || !slices.Equal(resid, wresid) {
				f.errorf("N=%d subset of %d: out %v resid %v with prefixes, %v %v without", n, m, out, resid, wout, wresid)
			}
			if must && !gave {
				f.errorf("N=%d subset of %d: no prefixes given for a contiguous subset", n, m)
			}
			if !gave {
				return
			}
			idx := Indices(s, n)
			for j, k := range ks {
				if err := mv.SumSq(idx[:k], t, 1, wout, nil); err != nil {
					f.errorf("N=%d: prefix %d: %v", n, k, err)
					continue
				}
				if dd := math.Abs(pre[j] - wout[0]); !(dd <= 1e-12*float64(k)*wout[0]) {
					f.errorf("N=%d subset of %d: prefix %d: %.17g, SumSq of the prefix %.17g", n, m, k, pre[j], wout[0])
				}
			}
		}
		check(nil, true)
		check(perm, false)
		if r, ok := mv.(model.Reorderer); ok {
			if err := r.Reorder(perm); err != nil {
				f.errorf("N=%d: reorder: %v", n, err)
			}
			check(perm, true)
			check(perm[:(n+1)/2], true)
			check(nil, false)
		}
		for _, k := range []int{0, n + 1} {
			if _, err := pm.SumSqPrefixes(nil, t, make([]float64, 1), nil, []int{k}, make([]float64, 1)); err == nil {
				f.errorf("N=%d: prefix of %d observations accepted", n, k)
			}
		}
		_ = mv.Close()
	}
	return f.err()
}
