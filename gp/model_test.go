package gp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/internal/allocs"
	"github.com/subtemper/subtemper/internal/gradcheck"
	"github.com/subtemper/subtemper/linalg"
)

func TestLogLikAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 40, 3
	data := randData(rng, n, d, 1)
	// Inputs on a line, some close together, for an ill-conditioned kernel.
	line := randData(rng, n, d, 1)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			line.X[i*d+c] = float64(i) * 0.01 * float64(c+1)
		}
	}
	lu := func(ell, sf, sn float64) []float64 {
		u := make([]float64, d+2)
		for c := 0; c < d; c++ {
			u[c] = math.Log(ell * float64(c+1))
		}
		u[d], u[d+1] = math.Log(sf), math.Log(sn)
		return u
	}
	subset := []int{3, 17, 5, 0, 39, 22, 8, 11, 30, 31, 2}
	cases := []struct {
		name   string
		data   *Data
		subset []int
		u      []float64
		tol    float64 // relative tolerance on the log-likelihood
		gtol   float64 // relative tolerance on the gradient (to its norm)
	}{
		{"typical", data, nil, lu(1, 1.5, 0.3), 1e-12, 1e-10},
		{"subset", data, subset, lu(0.7, 2, 0.5), 1e-12, 1e-10},
		{"short0.01", data, nil, lu(0.01, 1, 0.1), 1e-12, 1e-10},
		{"long100", data, nil, lu(100, 1, 0.1), 1e-10, 1e-8},
		{"noise1e-4", data, nil, lu(1, 1, 1e-4), 1e-9, 1e-7},
		{"ill-conditioned", line, nil, lu(10, 2, 1e-4), 1e-6, 1e-4},
	}
	if c := mat.Cond(denseKernel(line, nil, lu(10, 2, 1e-4)), 2); c < 1e9 {
		t.Fatalf("ill-conditioned case has condition number %.3g", c)
	} else {
		t.Logf("ill-conditioned case: condition number %.3g", c)
	}
	for _, c := range cases {
		want, wgrad, ok := denseLogLik(c.data, c.subset, c.u)
		if !ok {
			t.Fatalf("%s: reference Cholesky failed", c.name)
		}
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, be linalg.Backend) {
				m, err := New(be, c.data, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				grad := make([]float64, d+2)
				got, err := m.LogLik(c.subset, c.u, grad)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if e := relErr(got, want); testing.Verbose() {
					t.Logf("%s: rel err %.2g", c.name, e)
				}
				if e := relErr(got, want); e > c.tol {
					t.Errorf("%s: log-lik %.15g, dense %.15g (rel err %.2g > %.2g)", c.name, got, want, e, c.tol)
				}
				var norm float64
				for _, v := range wgrad {
					norm = math.Max(norm, math.Abs(v))
				}
				for k := range grad {
					if e := math.Abs(grad[k]-wgrad[k]) / math.Max(1, norm); e > c.gtol {
						t.Errorf("%s: grad[%d] = %.12g, dense %.12g (err %.2g > %.2g)", c.name, k, grad[k], wgrad[k], e, c.gtol)
					}
				}
				// Without the gradient: the same value.
				got2, err := m.LogLik(c.subset, c.u, nil)
				if err != nil || got2 != got {
					t.Errorf("%s: without gradient %v, %v; with %v", c.name, got2, err, got)
				}
			})
		})
	}
}

func TestGradientFiniteDifferences(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		rng := rand.New(rand.NewPCG(3, 4))
		for trial := 0; trial < 5; trial++ {
			d := 1 + rng.IntN(5)
			n := 10 + rng.IntN(40)
			data := randData(rng, n, d, 1+rng.Float64())
			m, err := New(be, data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A random point: u from the prior, noise kept moderate.
			u := make([]float64, d+2)
			for k := range u {
				u[k] = 0.5*rng.NormFloat64() + 0.2
			}
			var subset []int
			if trial%2 == 1 {
				subset = rng.Perm(n)[:n/2]
			}
			grad := make([]float64, d+2)
			if _, err := m.LogLik(subset, u, grad); err != nil {
				t.Fatal(err)
			}
			fd := gradcheck.FD(func(v []float64) float64 {
				ll, err := m.LogLik(subset, v, nil)
				if err != nil {
					t.Fatal(err)
				}
				return ll
			}, u, 1e-5)
			gradcheck.Check(t, fmt.Sprintf("loglik trial %d", trial), grad, fd, 1e-6)
			m.Close()
		}
	})
}

func TestNotPositiveDefinite(t *testing.T) {
	// Duplicate inputs, a long length scale and negligible noise: the kernel
	// matrix is σf²·11ᵀ + 1e-26·I, singular in floating point.
	data := &Data{N: 4, D: 1, X: []float64{1, 1, 1, 1}, Y: []float64{0.1, -0.2, 0.3, 0.05}}
	u := []float64{0, 0, -30}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		grad := []float64{7, 7, 7}
		ll, err := m.LogLik(nil, u, grad)
		if err == nil || !errors.Is(err, ErrNotPositiveDefinite) {
			t.Fatalf("got %v, %v; want an error wrapping ErrNotPositiveDefinite", ll, err)
		}
		if !math.IsInf(ll, -1) {
			t.Errorf("log-lik %v on failure, want -Inf", ll)
		}
		for _, v := range grad {
			if v != 0 {
				t.Errorf("gradient %v on failure, want zeros", grad)
			}
		}
		t.Logf("error: %v", err)
		// An explicit jitter makes it positive definite, and is reported.
		mj, err := New(be, data, Options{Jitter: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		if mj.Jitter() != 1e-6 || m.Jitter() != 0 {
			t.Errorf("Jitter() = %v, %v", mj.Jitter(), m.Jitter())
		}
		ll, err = mj.LogLik(nil, u, grad)
		if err != nil || math.IsNaN(ll) || math.IsInf(ll, 0) {
			t.Errorf("with jitter: %v, %v", ll, err)
		}
		// Malformed arguments are errors too, never NaN.
		if ll, err := m.LogLik(nil, []float64{0, 0}, nil); err == nil || !math.IsInf(ll, -1) {
			t.Errorf("short u: %v, %v", ll, err)
		}
		if ll, err := m.LogLik(nil, []float64{0, math.NaN(), 0}, nil); err == nil || !math.IsInf(ll, -1) {
			t.Errorf("NaN u: %v, %v", ll, err)
		}
		if ll, err := m.LogLik([]int{0, 9}, []float64{0, 0, 0}, nil); err == nil || !math.IsInf(ll, -1) {
			t.Errorf("bad subset: %v, %v", ll, err)
		}
	})
	if _, err := New(nil, data, Options{Jitter: -1}); err == nil {
		t.Error("negative jitter accepted")
	}
}

func TestNoAllocs(t *testing.T) {
	// N = 48 stays below the sizes at which gonum's BLAS spawns goroutines
	// (which allocate); the backend's own buffers are sized at creation.
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 48, 4
	data := randData(rng, n, d, 1)
	forEachModel(t, data, func(t *testing.T, m *Model) {
		u := m.StartPoints()[0]
		grad := make([]float64, d+2)
		subset := rng.Perm(n)[:30]
		for _, s := range [][]int{nil, subset} {
			if _, err := m.LogLik(s, u, grad); err != nil {
				t.Fatal(err)
			}
			allocs := allocs.PerRun(20, func() {
				if _, err := m.LogLik(s, u, grad); err != nil {
					t.Fatal(err)
				}
				m.LogPrior(u, grad)
			})
			if allocs != 0 {
				t.Errorf("subset of %d: %v allocations per evaluation, want 0", len(s), allocs)
			}
		}
	})
}

func TestClone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := randData(rng, 30, 2, 1)
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, Options{Jitter: 1e-9, Prior: Prior{SignalShape: 3}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := m.Copy()
		if err != nil {
			t.Fatal(err)
		}
		if c.Jitter() != m.Jitter() || c.Prior() != m.Prior() || c.Dim() != 4 || c.NumObs() != 30 || c.Backend() != be.Name() {
			t.Errorf("clone differs: %+v vs %+v", c, m)
		}
		u := []float64{0.1, -0.2, 0.3, -1}
		g1, g2 := make([]float64, 4), make([]float64, 4)
		a, err1 := m.LogLik(nil, u, g1)
		// Interleave an evaluation on another subset in the clone.
		if _, err := c.LogLik([]int{1, 2, 3}, u, g2); err != nil {
			t.Fatal(err)
		}
		b, err2 := c.LogLik(nil, u, g2)
		if err1 != nil || err2 != nil || a != b || fmt.Sprint(g1) != fmt.Sprint(g2) {
			t.Errorf("clone: %v %v (%v, %v); %v %v", a, g1, err1, err2, b, g2)
		}
		m.Close()
		if _, err := c.LogLik(nil, u, nil); err != nil {
			t.Errorf("clone unusable after the original is closed: %v", err)
		}
		if _, err := m.LogLik(nil, u, nil); err == nil {
			t.Error("closed model evaluates")
		}
	})
}

// TestMemory checks that a model and an evaluation allocate at most
// 3·N² float64 plus O(N·D) in all (the backend's workspaces are 2·N²).
func TestMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, d = 300, 5
	data := randData(rng, n, d, 1)
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		u := Prior{}.StartPoints(d)[0]
		grad := make([]float64, d+2)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.LogLik(nil, u, grad); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got := float64(after.TotalAlloc - before.TotalAlloc)
		limit := 8 * (3*n*n + 20*n*d + 1000.0)
		t.Logf("allocated %.0f bytes = %.2f·N² float64", got, got/(8*n*n))
		if got > limit {
			t.Errorf("allocated %.0f bytes for N = %d, more than 3·N² float64 + O(N·D) = %.0f", got, n, limit)
		}
		m.Close()
	})
}

// TestTargetsOverflow: targets so large that yᵀK⁻¹y overflows give an error
// that says so (and suggests standardizing), not one claiming the kernel
// matrix is not positive definite.
func TestTargetsOverflow(t *testing.T) {
	data := &Data{N: 3, D: 1, X: []float64{1, 2, 3}, Y: []float64{1e300, 2e300, -1e300}}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		if be.Name() == "cuda" {
			t.Skip("the CUDA backend reports it as a failed evaluation of its own")
		}
		m, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, grad := range [][]float64{nil, make([]float64, 3)} {
			ll, err := m.LogLik(nil, []float64{0, 0, math.Log(0.1)}, grad)
			if err == nil || errors.Is(err, ErrNotPositiveDefinite) || !strings.Contains(err.Error(), "standardize") {
				t.Errorf("grad %v: got %v, %v; want an overflow error suggesting to standardize", grad != nil, ll, err)
			}
			if !math.IsInf(ll, -1) {
				t.Errorf("log-lik %v on failure, want -Inf", ll)
			}
		}
	})
}
