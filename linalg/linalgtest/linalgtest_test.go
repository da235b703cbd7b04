package linalgtest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// The suite must pass the reference backend and fail backends that are
// wrong by a little. Each wrong backend below wraps gonum's and spoils one
// routine; the check for that routine must report an error (the checks
// return errors, so asserting on them does not fail this test).

type wrongBackend struct {
	linalg.Backend
	flaw string
}

func (w wrongBackend) Name() string { return "wrong-" + w.flaw }

func (w wrongBackend) NewMatrix(n int) (linalg.Matrix, error) {
	m, err := w.Backend.NewMatrix(n)
	return wrongMatrix{m, w.flaw}, err
}

func (w wrongBackend) NewGP(x []float64, n, d int, y []float64) (linalg.GP, error) {
	g, err := w.Backend.NewGP(x, n, d, y)
	return &wrongGP{GP: g, flaw: w.flaw}, err
}

func (w wrongBackend) NewMVN(x []float64, n, d int) (linalg.MVN, error) {
	m, err := w.Backend.NewMVN(x, n, d)
	return wrongMVN{m, w.flaw}, err
}

type wrongMatrix struct {
	linalg.Matrix
	flaw string
}

func (m wrongMatrix) LogDet() (float64, error) {
	v, err := m.Matrix.LogDet()
	if m.flaw == "logdet" {
		v += 1e-6 * math.Abs(v)
	}
	return v, err
}

func (m wrongMatrix) Set(n int, a []float64) error {
	if m.flaw == "reads-upper" && len(a) >= n*n { // factors the matrix of the upper triangle
		b := append([]float64(nil), a[:n*n]...)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				b[i*n+j] = b[j*n+i]
			}
		}
		a = b
	}
	return m.Matrix.Set(n, a)
}

func (m wrongMatrix) Cholesky() error {
	err := m.Matrix.Cholesky()
	if m.flaw == "swallow-notpd" {
		return nil
	}
	return err
}

func (m wrongMatrix) Get(dst []float64) error {
	err := m.Matrix.Get(dst)
	n := m.N()
	switch m.flaw {
	case "factor": // one subdiagonal entry of L off by 1e-7 relative
		if n > 1 {
			dst[n] *= 1 + 1e-7
		}
	case "inverse-asym": // the upper triangle slightly off
		if n > 1 {
			dst[1] *= 1 + 1e-13
		}
	}
	return err
}

func (m wrongMatrix) Solve(b, x []float64) error {
	err := m.Matrix.Solve(b, x)
	if m.flaw == "solve" && m.N() > 1 {
		x[m.N()-1] *= 1 + 1e-7
	}
	return err
}

func (m wrongMatrix) Mul(a, b linalg.Matrix) error {
	wa, ok1 := a.(wrongMatrix)
	wb, ok2 := b.(wrongMatrix)
	if !ok1 || !ok2 {
		return errors.New("mul: operands from another backend")
	}
	err := m.Matrix.Mul(wa.Matrix, wb.Matrix)
	if m.flaw == "mul" {
		// a rounding-sized error in one entry, scaled up a little
		n := m.N()
		buf := make([]float64, n*n)
		_ = m.Matrix.Get(buf)
		buf[n*n-1] += 1e-11 * math.Max(1, math.Abs(buf[n*n-1]))
		_ = m.Matrix.Set(n, buf)
	}
	return err
}

type wrongGP struct {
	linalg.GP
	flaw  string
	calls int
	last  float64
}

func (g *wrongGP) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, err := g.GP.LogLik(subset, u, grad)
	g.calls++
	switch g.flaw {
	case "grad-drop": // drops −σn²·tr(K⁻¹) from ∂/∂log σn, keeping σn²·|α|²
		if grad != nil && err == nil {
			d := len(u) - 2
			grad[d+1] += math.Exp(2*u[d+1]) * g.traceInv(subset, u)
		}
	case "grad-noise": // ∂/∂log σn off by 1e-6 relative
		if grad != nil && err == nil {
			grad[len(u)-1] *= 1 + 1e-6
		}
	case "grad-length": // one length-scale component off by 1e-6 relative
		if grad != nil && err == nil {
			grad[0] *= 1 + 1e-6
		}
	case "loglik":
		ll += 1e-7 * math.Abs(ll)
	case "stale": // leaks state: the second call with a gradient returns the first's value
		if g.calls == 1 {
			g.last = ll
		} else if grad != nil && err == nil {
			ll = g.last
		}
	case "nan-on-failure":
		if err != nil {
			return math.NaN(), nil
		}
	}
	return ll, err
}

// traceInv is tr(K⁻¹) for the kernel the wrapped handle builds.
func (g *wrongGP) traceInv(subset []int, u []float64) float64 {
	m := g.N()
	if subset != nil {
		m = len(subset)
	}
	k := make([]float64, m*m)
	_ = g.GP.Kernel(k, subset, u)
	a, _ := linalg.Default().NewMatrix(m)
	_ = a.Set(m, k)
	_ = a.Cholesky()
	_ = a.Inverse()
	_ = a.Get(k)
	var tr float64
	for i := 0; i < m; i++ {
		tr += k[i*m+i]
	}
	return tr
}

func (g *wrongGP) Kernel(dst []float64, subset []int, u []float64) error {
	err := g.GP.Kernel(dst, subset, u)
	if g.flaw == "kernel" && len(dst) > 1 {
		dst[1] *= 1 + 1e-10
	}
	return err
}

type wrongMVN struct {
	linalg.MVN
	flaw string
}

func (m wrongMVN) SumSq(subset []int, t []float64, B int, out, resid []float64) error {
	err := m.MVN.SumSq(subset, t, B, out, resid)
	switch m.flaw {
	case "mvn":
		out[B-1] *= 1 + 1e-9
	case "mvn-resid":
		if resid != nil {
			resid[0] += 1e-9 * math.Max(1, math.Abs(resid[0]))
		}
	}
	return err
}

func TestSuitePassesReference(t *testing.T) {
	All(t, linalg.Default())
	// The wrapper with no flaw must pass too, so that the failures below
	// come from the flaws and not from the wrapping.
	All(t, wrongBackend{linalg.Default(), "none"})
}

func TestSuiteCatchesWrongBackends(t *testing.T) {
	for _, tc := range []struct {
		flaw  string
		check func(linalg.Backend) error
	}{
		{"logdet", checkLogDet},
		{"factor", checkCholesky},
		{"reads-upper", checkCholesky},
		{"solve", checkSolve},
		{"inverse-asym", checkInverse},
		{"mul", checkMul},
		{"kernel", checkGPKernel},
		{"loglik", checkGPLogLik},
		{"grad-drop", checkGPLogLik},
		{"grad-noise", checkGPLogLik},
		{"grad-length", checkGPLogLik},
		{"mvn", checkMVN},
		{"mvn-resid", checkMVN},
		{"swallow-notpd", checkNotPD},
		{"nan-on-failure", checkNotPD},
		{"stale", checkState},
	} {
		err := safely(tc.check, wrongBackend{linalg.Default(), tc.flaw})
		if err == nil {
			t.Errorf("flaw %q: the check passed a wrong backend", tc.flaw)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "panicked") {
			t.Errorf("flaw %q: caught by a panic, not by a check: %v", tc.flaw, err)
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		t.Logf("flaw %q caught: %s", tc.flaw, msg)
	}
}

func TestSuiteCatchesPanics(t *testing.T) {
	err := safely(func(linalg.Backend) error { panic("boom") }, linalg.Default())
	if err == nil {
		t.Fatal("a panicking check was reported as passing")
	}
}
