package linalgtest

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/subtemper/subtemper/linalg"
)

func checkCholesky(b linalg.Backend) error {
	var f failures
	ref := linalg.Default()
	for _, s := range testMatrices() {
		n := s.n
		m, err := factor(b, n, s.a)
		if err != nil {
			f.errorf("N=%d κ=%g: cholesky: %v", n, s.kappa, err)
			continue
		}
		if m.N() != n || m.Cap() != n {
			f.errorf("N=%d: after cholesky N() = %d, Cap() = %d", n, m.N(), m.Cap())
		}
		got := make([]float64, n*n)
		if err := m.Get(got); err != nil {
			f.errorf("N=%d: get: %v", n, err)
			continue
		}
		l := lower(n, got)
		// Only the lower triangle is read: NaN above the diagonal gives
		// the same factor, bit for bit.
		poisoned := append([]float64(nil), s.a[:n*n]...)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				poisoned[i*n+j] = math.NaN()
			}
		}
		if pm, err := factor(b, n, poisoned); err != nil {
			f.errorf("N=%d κ=%g: cholesky with NaN above the diagonal: %v", n, s.kappa, err)
		} else {
			pg := make([]float64, n*n)
			if err := pm.Get(pg); err != nil {
				f.errorf("N=%d: get: %v", n, err)
			} else if e := relMax(lower(n, pg), l); !(e == 0) {
				f.errorf("N=%d κ=%g: cholesky reads the upper triangle: with NaN there L differs by %.3g relative", n, s.kappa, e)
			}
			pm.Close()
		}
		// Componentwise residual of L·Lᵀ against A (independent of κ).
		var worst float64
		for i := 0; i < n; i++ {
			if !(l[i*n+i] > 0) {
				f.errorf("N=%d κ=%g: L[%d,%d] = %v, want > 0", n, s.kappa, i, i, l[i*n+i])
			}
			for j := 0; j <= i; j++ {
				var v float64
				for k := 0; k <= j; k++ {
					v += l[i*n+k] * l[j*n+k]
				}
				bound := 4 * float64(n+1) * eps * math.Sqrt(s.a[i*n+i]*s.a[j*n+j])
				if r := math.Abs(v-s.a[i*n+j]) / bound; !(r <= 1) {
					worst = math.Max(worst, r)
					if math.IsNaN(r) {
						worst = math.Inf(1)
					}
				}
			}
		}
		if worst > 0 {
			f.errorf("N=%d κ=%g: |L·Lᵀ − A| exceeds 4(n+1)ε√(a_ii a_jj) by a factor %.3g", n, s.kappa, worst)
		}
		// Against the gonum backend.
		rm, err := factor(ref, n, s.a)
		if err != nil {
			f.errorf("N=%d: reference cholesky: %v", n, err)
			continue
		}
		want := make([]float64, n*n)
		_ = rm.Get(want)
		if e := relMax(l, lower(n, want)); !(e <= tol(n, s.kappa)) {
			f.errorf("N=%d κ=%g: L differs from gonum's by %.3g relative, tolerance %.3g", n, s.kappa, e, tol(n, s.kappa))
		}
	}
	return f.err()
}

func checkLogDet(b linalg.Backend) error {
	return eachFactored(b, func(f *failures, s spd, m, rm linalg.Matrix) {
		n := s.n
		ld, err := m.LogDet()
		if err != nil {
			f.errorf("N=%d: logdet: %v", n, err)
			return
		}
		want, _ := rm.LogDet()
		t := tolLD(n, s.kappa)
		if d := math.Abs(ld - want); !(d <= t) {
			f.errorf("N=%d κ=%g: logdet %.17g, gonum %.17g: differ by %.3g, tolerance %.3g", n, s.kappa, ld, want, d, t)
		}
		if d := math.Abs(ld - s.logdt); !(d <= t) {
			f.errorf("N=%d κ=%g: logdet %.17g, Σ log λ = %.17g: differ by %.3g, tolerance %.3g", n, s.kappa, ld, s.logdt, d, t)
		}
	})
}

func checkSolve(b linalg.Backend) error {
	rng := rand.New(rand.NewPCG(2, 2))
	return eachFactored(b, func(f *failures, s spd, m, rm linalg.Matrix) {
		n := s.n
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = rng.NormFloat64()
		}
		orig := append([]float64(nil), rhs...)
		x := make([]float64, n)
		if err := m.Solve(rhs, x); err != nil {
			f.errorf("N=%d: solve: %v", n, err)
			return
		}
		if relMax(rhs, orig) != 0 {
			f.errorf("N=%d: solve modified b", n)
		}
		want := make([]float64, n)
		_ = rm.Solve(rhs, want)
		if e := relMax(x, want); !(e <= tol(n, s.kappa)) {
			f.errorf("N=%d κ=%g: x differs from gonum's by %.3g relative, tolerance %.3g", n, s.kappa, e, tol(n, s.kappa))
		}
		// Exact solution from the known inverse.
		exact := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				exact[i] += s.inv[i*n+j] * rhs[j]
			}
		}
		if e := relMax(x, exact); !(e <= tol(n, s.kappa)) {
			f.errorf("N=%d κ=%g: x differs from Q·Λ⁻¹·Qᵀ·b by %.3g relative, tolerance %.3g", n, s.kappa, e, tol(n, s.kappa))
		}
		// Norm-wise backward error ‖b − A·x‖∞ / (‖A‖∞‖x‖∞ + ‖b‖∞).
		var rmax, anorm, xnorm, bnorm float64
		for i := 0; i < n; i++ {
			r := rhs[i]
			var arow float64
			for j := 0; j < n; j++ {
				r -= s.a[i*n+j] * x[j]
				arow += math.Abs(s.a[i*n+j])
			}
			rmax = math.Max(rmax, math.Abs(r))
			anorm = math.Max(anorm, arow)
			xnorm = math.Max(xnorm, math.Abs(x[i]))
			bnorm = math.Max(bnorm, math.Abs(rhs[i]))
		}
		if be := rmax / (anorm*xnorm + bnorm); !(be <= 16*float64(n+1)*eps) {
			f.errorf("N=%d κ=%g: backward error %.3g exceeds 16(n+1)ε", n, s.kappa, be)
		}
		// In place: x and b the same slice.
		v := append([]float64(nil), rhs...)
		if err := m.Solve(v, v); err != nil {
			f.errorf("N=%d: solve in place: %v", n, err)
		} else if e := relMax(v, x); !(e <= tol(n, 1)) {
			f.errorf("N=%d: in-place solve differs from out-of-place by %.3g relative", n, e)
		}
	})
}

func checkInverse(b linalg.Backend) error {
	return eachFactored(b, func(f *failures, s spd, m, rm linalg.Matrix) {
		n := s.n
		if err := m.Inverse(); err != nil {
			f.errorf("N=%d: inverse: %v", n, err)
			return
		}
		got := make([]float64, n*n)
		_ = m.Get(got)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				if got[i*n+j] != got[j*n+i] {
					f.errorf("N=%d: inverse not symmetric at (%d,%d): %v vs %v", n, i, j, got[i*n+j], got[j*n+i])
					i = n
					break
				}
			}
		}
		_ = rm.Inverse()
		want := make([]float64, n*n)
		_ = rm.Get(want)
		if e := relMax(got, want); !(e <= tol(n, s.kappa)) {
			f.errorf("N=%d κ=%g: inverse differs from gonum's by %.3g relative, tolerance %.3g", n, s.kappa, e, tol(n, s.kappa))
		}
		if e := relMax(got, s.inv); !(e <= tol(n, s.kappa)) {
			f.errorf("N=%d κ=%g: inverse differs from Q·Λ⁻¹·Qᵀ by %.3g relative, tolerance %.3g", n, s.kappa, e, tol(n, s.kappa))
		}
	})
}

func checkMul(b linalg.Backend) error {
	var f failures
	ref := linalg.Default()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range Sizes {
		a := make([]float64, n*n)
		c := make([]float64, n*n)
		for i := range a {
			a[i] = rng.NormFloat64()
			c[i] = rng.NormFloat64()
		}
		ma, _ := b.NewMatrix(n)
		mb, _ := b.NewMatrix(n)
		mc, err := b.NewMatrix(n)
		if err != nil {
			f.errorf("N=%d: new matrix: %v", n, err)
			continue
		}
		if err := errors.Join(ma.Set(n, a), mb.Set(n, c)); err != nil {
			f.errorf("N=%d: set: %v", n, err)
			continue
		}
		if err := mc.Mul(ma, mb); err != nil {
			f.errorf("N=%d: mul: %v", n, err)
			continue
		}
		if mc.N() != n {
			f.errorf("N=%d: after mul N() = %d", n, mc.N())
		}
		got := make([]float64, n*n)
		_ = mc.Get(got)
		var worst float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var v, abs float64
				for k := 0; k < n; k++ {
					v += a[i*n+k] * c[k*n+j]
					abs += math.Abs(a[i*n+k] * c[k*n+j])
				}
				if r := math.Abs(got[i*n+j]-v) / (2 * float64(n+1) * eps * abs); !(r <= 1) {
					worst = math.Max(worst, r)
					if math.IsNaN(r) {
						worst = math.Inf(1)
					}
				}
			}
		}
		if worst > 0 {
			f.errorf("N=%d: |C − A·B| exceeds 2(n+1)ε(|A|·|B|) by a factor %.3g", n, worst)
		}
		ra, _ := ref.NewMatrix(n)
		rb, _ := ref.NewMatrix(n)
		rc, _ := ref.NewMatrix(n)
		_ = ra.Set(n, a)
		_ = rb.Set(n, c)
		_ = rc.Mul(ra, rb)
		want := make([]float64, n*n)
		_ = rc.Get(want)
		if e := relMax(got, want); !(e <= tol(n, float64(n))) {
			f.errorf("N=%d: product differs from gonum's by %.3g relative", n, e)
		}
		// Operands must not be inputs of the receiver, nor foreign.
		if err := ma.Mul(ma, mb); err == nil {
			f.errorf("N=%d: mul with the receiver as operand gave no error", n)
		}
		if b.Name() != ref.Name() {
			if err := mc.Mul(ra, mb); err == nil {
				f.errorf("N=%d: mul with an operand of backend %s gave no error", n, ref.Name())
			}
		}
	}
	return f.err()
}

// eachFactored runs check on each test matrix s factored with b (m) and
// with the gonum backend, the reference (rm), and returns the failures it
// and the factorisations record.
func eachFactored(b linalg.Backend, check func(f *failures, s spd, m, rm linalg.Matrix)) error {
	var f failures
	for _, s := range testMatrices() {
		m, err := factor(b, s.n, s.a)
		if err != nil {
			f.errorf("N=%d: cholesky: %v", s.n, err)
			continue
		}
		rm, err := factor(linalg.Default(), s.n, s.a)
		if err != nil {
			f.errorf("N=%d: reference cholesky: %v", s.n, err)
			continue
		}
		check(&f, s, m, rm)
	}
	return f.err()
}
