package linalgtest

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/subtemper/subtemper/linalg"
)

// notPDMatrices returns symmetric matrices that are not positive
// definite in floating point.
func notPDMatrices() []struct {
	name string
	n    int
	a    []float64
} {
	rng := rand.New(rand.NewPCG(8, 8))
	indef := func(n int) []float64 { // random symmetric, diagonal of mixed sign
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				a[i*n+j], a[j*n+i] = v, v
			}
		}
		return a
	}
	ones := func(n int) []float64 { // rank one: the second pivot is exactly 0
		a := make([]float64, n*n)
		for i := range a {
			a[i] = 1
		}
		return a
	}
	negLast := func(n int) []float64 { // SPD but for the last pivot
		a := testMatrices()[3].a // N = 64, κ = 100
		if n != 64 {
			panic("negLast: n must be 64")
		}
		a = append([]float64(nil), a...)
		a[n*n-1] = -1
		return a
	}
	nan := func(n int) []float64 {
		a := append([]float64(nil), testMatrices()[2].a...) // N = 7
		a[4*n+2] = math.NaN()
		return a
	}
	inf := func(n int) []float64 {
		a := append([]float64(nil), testMatrices()[2].a...)
		a[3*n+3] = math.Inf(1)
		return a
	}
	return []struct {
		name string
		n    int
		a    []float64
	}{
		{"zero 1×1", 1, []float64{0}},
		{"negative 1×1", 1, []float64{-2}},
		{"[[1 2] [2 1]]", 2, []float64{1, 2, 2, 1}},
		{"ones 7×7", 7, ones(7)},
		{"ones 129×129", 129, ones(129)},
		{"indefinite 64×64", 64, indef(64)},
		{"indefinite 500×500", 500, indef(500)},
		{"last pivot negative 64×64", 64, negLast(64)},
		{"NaN below the diagonal 7×7", 7, nan(7)},
		{"+Inf on the diagonal 7×7", 7, inf(7)},
	}
}

// dupGP returns GP data whose kernel is exactly singular when σn² is
// negligible: integer inputs, symmetric about 0 so that centring is exact,
// length scales 1 and σf = 1, so every squared distance is an exact
// integer and duplicated points give exactly equal kernel rows; the first
// two points coincide, so the second Cholesky pivot is exactly 1 − 1·1.
func dupGP(n, d int) (x, y, u []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	x = make([]float64, n*d)
	half := n / 2
	for i := 0; i < half; i++ {
		for j := 0; j < d; j++ {
			v := float64(rng.IntN(5) - 2)
			x[i*d+j], x[(n-1-i)*d+j] = v, -v
		}
	}
	copy(x[d:2*d], x[:d])          // point 1 duplicates point 0 ...
	copy(x[(n-2)*d:], x[(n-1)*d:]) // ... and n−2 duplicates n−1, keeping the mean 0
	y = make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	u = make([]float64, d+2)
	u[d+1] = -40 // σn² = e⁻⁸⁰: below the rounding of σf² = 1
	return x, y, u
}

func checkNotPD(b linalg.Backend) error {
	var f failures
	for _, c := range notPDMatrices() {
		m, err := b.NewMatrix(c.n)
		if err != nil {
			f.errorf("%s: new matrix: %v", c.name, err)
			continue
		}
		if err := m.Set(c.n, c.a); err != nil {
			f.errorf("%s: set: %v", c.name, err)
			continue
		}
		err = m.Cholesky()
		if !errors.Is(err, linalg.ErrNotPositiveDefinite) {
			f.errorf("%s: cholesky gave %v, want an error wrapping ErrNotPositiveDefinite", c.name, err)
		}
		// No factor is held: the routines that need one refuse.
		if ld, err := m.LogDet(); err == nil {
			f.errorf("%s: logdet after a failed cholesky gave %v and no error", c.name, ld)
		}
		x := make([]float64, c.n)
		if err := m.Solve(make([]float64, c.n), x); err == nil {
			f.errorf("%s: solve after a failed cholesky gave no error", c.name)
		}
		if err := m.Inverse(); err == nil {
			f.errorf("%s: inverse after a failed cholesky gave no error", c.name)
		}
		// The workspace recovers: an SPD matrix of the same order factors.
		for _, s := range testMatrices() {
			if s.n != c.n {
				continue
			}
			if err := m.Set(c.n, s.a); err != nil {
				f.errorf("%s: set after failure: %v", c.name, err)
			} else if err := m.Cholesky(); err != nil {
				f.errorf("%s: cholesky of an SPD matrix after a failure: %v", c.name, err)
			} else if ld, err := m.LogDet(); err != nil || !(math.Abs(ld-s.logdt) <= tolLD(s.n, s.kappa)) {
				f.errorf("%s: logdet after recovery %v (%v), want %v", c.name, ld, err, s.logdt)
			}
			break
		}
	}
	// GP kernels with duplicated inputs and no noise to speak of.
	for _, nd := range [][2]int{{2, 1}, {7, 3}, {64, 18}, {129, 2}} {
		n, d := nd[0], nd[1]
		x, y, u := dupGP(n, d)
		g, err := b.NewGP(x, n, d, y)
		if err != nil {
			f.errorf("dup GP N=%d: new gp: %v", n, err)
			continue
		}
		grad := make([]float64, d+2)
		subsets := [][]int{nil, {n - 1, n - 1}}
		if n >= 3 {
			subsets = append(subsets, []int{0, n / 2, 0})
		}
		for _, s := range subsets {
			for _, gr := range [][]float64{nil, grad} {
				ll, err := g.LogLik(s, u, gr)
				if !errors.Is(err, linalg.ErrNotPositiveDefinite) {
					f.errorf("dup GP N=%d subset=%v grad=%t: loglik %v, error %v; want an error wrapping ErrNotPositiveDefinite", n, s, gr != nil, ll, err)
				}
				if math.IsNaN(ll) {
					f.errorf("dup GP N=%d subset=%v: loglik is NaN", n, s)
				}
			}
		}
		// The same handle recovers with noise switched on.
		u[d+1] = math.Log(0.5)
		ll, err := g.LogLik(nil, u, grad)
		if err != nil || math.IsNaN(ll) || anyNaN(grad) {
			f.errorf("dup GP N=%d: loglik with σn = 0.5 after a failure: %v, %v, grad %v", n, ll, err, grad)
		}
		// And with jitter instead of noise.
		u[d+1] = -40
		g.SetJitter(1e-2)
		if ll, err := g.LogLik(nil, u, grad); err != nil || math.IsNaN(ll) {
			f.errorf("dup GP N=%d: loglik with jitter 1e-2: %v, %v", n, ll, err)
		}
	}
	return f.err()
}

func checkState(b linalg.Backend) error {
	var f failures
	mats := testMatrices()
	// One workspace of capacity 500 used for every test matrix in turn,
	// largest first, must give what a fresh exact-size workspace gives.
	m, err := b.NewMatrix(500)
	if err != nil {
		return err
	}
	order := []int{6, 0, 5, 3, 2, 1, 7, 4, 3}
	for _, k := range order {
		s := mats[k]
		n := s.n
		if err := m.Set(n, s.a); err != nil {
			f.errorf("N=%d: set into capacity 500: %v", n, err)
			continue
		}
		if m.N() != n || m.Cap() != 500 {
			f.errorf("N=%d: N() = %d, Cap() = %d", n, m.N(), m.Cap())
		}
		if err := m.Cholesky(); err != nil {
			f.errorf("N=%d: cholesky in a shared workspace: %v", n, err)
			continue
		}
		ld, _ := m.LogDet()
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = float64(i%5) - 2
		}
		x := make([]float64, n)
		_ = m.Solve(rhs, x)
		if err := m.Solve(rhs, x[:n-1]); err == nil {
			f.errorf("N=%d: solve into a short x gave no error", n)
		}
		if err := m.Inverse(); err != nil {
			f.errorf("N=%d: inverse in a shared workspace: %v", n, err)
			continue
		}
		if _, err := m.LogDet(); !errors.Is(err, linalg.ErrNotFactored) {
			f.errorf("N=%d: logdet after inverse gave %v, want ErrNotFactored", n, err)
		}
		inv := make([]float64, n*n)
		_ = m.Get(inv)

		fresh, err := factor(b, n, s.a)
		if err != nil {
			f.errorf("N=%d: fresh: %v", n, err)
			continue
		}
		fld, _ := fresh.LogDet()
		fx := make([]float64, n)
		_ = fresh.Solve(rhs, fx)
		_ = fresh.Inverse()
		finv := make([]float64, n*n)
		_ = fresh.Get(finv)
		if math.Abs(ld-fld) > tolLD(n, s.kappa) || relMax(x, fx) > tol(n, s.kappa) || relMax(inv, finv) > tol(n, s.kappa) {
			f.errorf("N=%d κ=%g: shared workspace gives logdet %v, fresh %v; x differ %.3g, inverse differ %.3g", n, s.kappa, ld, fld, relMax(x, fx), relMax(inv, finv))
		}
	}
	// Misuse gives errors.
	if err := m.Set(501, make([]float64, 501*501)); err == nil {
		f.errorf("set of order 501 into capacity 500 gave no error")
	}
	if err := m.Set(3, make([]float64, 8)); err == nil {
		f.errorf("set of 8 values as a 3×3 matrix gave no error")
	}
	if err := m.Set(0, nil); err == nil {
		f.errorf("set of order 0 gave no error")
	}
	if _, err := b.NewMatrix(0); err == nil {
		f.errorf("workspace of order 0 gave no error")
	}
	fresh, _ := b.NewMatrix(3)
	if _, err := fresh.LogDet(); !errors.Is(err, linalg.ErrNotFactored) {
		f.errorf("logdet of a fresh workspace gave %v, want ErrNotFactored", err)
	}
	if err := m.Close(); err != nil {
		f.errorf("close: %v", err)
	}

	// One GP handle, subsets of varying size, jitter on and off, a failure
	// in between, against fresh handles.
	cs := gpCases(10)
	var c gpCase
	for _, cc := range cs {
		if cc.n == 129 && cc.d == 18 && cc.subset == nil {
			c = cc
		}
	}
	g, err := b.NewGP(c.x, c.n, c.d, c.y)
	if err != nil {
		return errors.Join(f.err(), err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	type call struct {
		subset []int
		jitter float64
		u      []float64
	}
	var calls []call
	for _, k := range []int{129, 7, 64, 1, 2, 100, 7} {
		var s []int
		if k < c.n {
			s = rng.Perm(c.n)[:k]
		}
		u := append([]float64(nil), c.u...)
		for j := range u {
			u[j] += 0.2 * rng.NormFloat64()
		}
		calls = append(calls, call{s, float64(k%2) * 1e-4, u})
	}
	bad := append([]float64(nil), c.u...)
	bad[c.d] = math.NaN()
	for i, cl := range calls {
		g.SetJitter(cl.jitter)
		grad := make([]float64, c.d+2)
		ll, err := g.LogLik(cl.subset, cl.u, grad)
		if err != nil {
			f.errorf("GP call %d: %v", i, err)
			continue
		}
		// A rejected call in between must not disturb the next one.
		if _, err := g.LogLik(cl.subset, bad, grad); err == nil {
			f.errorf("GP call %d: NaN hyperparameter gave no error", i)
		}
		if _, err := g.LogLik([]int{0, c.n}, cl.u, nil); err == nil {
			f.errorf("GP call %d: subset index %d out of range gave no error", i, c.n)
		}
		fg, _ := b.NewGP(c.x, c.n, c.d, c.y)
		fg.SetJitter(cl.jitter)
		fgrad := make([]float64, c.d+2)
		fll, err := fg.LogLik(cl.subset, cl.u, fgrad)
		if err != nil {
			f.errorf("GP call %d fresh: %v", i, err)
			continue
		}
		_ = fg.Close()
		m := len(cl.subset)
		if m == 0 {
			m = c.n
		}
		if math.Abs(ll-fll) > tol(m, 1)*math.Max(1, math.Abs(fll)) || relMax(grad, fgrad) > tol(m, 1) {
			f.errorf("GP call %d (m=%d): reused handle gives %v %v, fresh %v %v", i, m, ll, grad, fll, fgrad)
		}
		kr := make([]float64, m*m)
		kf := make([]float64, m*m)
		_ = g.Kernel(kr, cl.subset, cl.u)
		fg2, _ := b.NewGP(c.x, c.n, c.d, c.y)
		fg2.SetJitter(cl.jitter)
		_ = fg2.Kernel(kf, cl.subset, cl.u)
		if relMax(kr, kf) > tol(m, 1) {
			f.errorf("GP call %d (m=%d): kernel of the reused handle differs from a fresh one's by %.3g", i, m, relMax(kr, kf))
		}
	}
	if _, err := g.LogLik(nil, c.u[:c.d], nil); err == nil {
		f.errorf("GP: %d hyperparameters for D = %d gave no error", c.d, c.d)
	}
	if _, err := g.LogLik(nil, c.u, make([]float64, 2)); err == nil {
		f.errorf("GP: gradient of length 2 gave no error")
	}
	if _, err := b.NewGP([]float64{1, math.NaN()}, 2, 1, []float64{0, 0}); err == nil {
		f.errorf("GP: NaN input accepted")
	}

	// One MVN handle, batches and subsets of varying size, against fresh.
	rngw := rand.New(rand.NewPCG(12, 12))
	n, d := 64, 5
	w := make([]float64, n*d)
	for i := range w {
		w[i] = rngw.NormFloat64()
	}
	mv, err := b.NewMVN(w, n, d)
	if err != nil {
		return errors.Join(f.err(), err)
	}
	for i, B := range []int{17, 1, 40, 3, 17} {
		var s []int
		if i%2 == 1 {
			s = rngw.Perm(n)[:1+i*7]
		}
		t := make([]float64, B*d)
		for j := range t {
			t[j] = rngw.NormFloat64()
		}
		out, resid := make([]float64, B), make([]float64, B*d)
		if err := mv.SumSq(s, t, B, out, resid); err != nil {
			f.errorf("MVN call %d: %v", i, err)
			continue
		}
		fm, _ := b.NewMVN(w, n, d)
		fout, fresid := make([]float64, B), make([]float64, B*d)
		_ = fm.SumSq(s, t, B, fout, fresid)
		if relMax(out, fout) > tol(n, 1) || relMax(resid, fresid) > tol(n, 1) {
			f.errorf("MVN call %d (B=%d, subset %d): reused handle differs from fresh", i, B, len(s))
		}
	}
	if err := mv.SumSq(make([]int, n+1), make([]float64, d), 1, make([]float64, 1), nil); err == nil {
		f.errorf("MVN: subset longer than N gave no error")
	}
	if _, err := g.LogLik(make([]int, c.n+1), c.u, nil); err == nil {
		f.errorf("GP: subset longer than N gave no error")
	}
	if err := mv.SumSq([]int{}, make([]float64, d), 1, make([]float64, 1), nil); err == nil {
		f.errorf("MVN: empty subset gave no error")
	}
	if err := mv.SumSq(nil, make([]float64, d), 2, make([]float64, 2), nil); err == nil {
		f.errorf("MVN: t shorter than B·D gave no error")
	}
	return f.err()
}
