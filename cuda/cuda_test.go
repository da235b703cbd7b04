//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

// cudaBackend returns the registered "cuda" backend, skipping the test when no
// CUDA device is present (and only then: any other failure to set up a
// present device fails the test).
func cudaBackend(tb testing.TB) linalg.Backend {
	tb.Helper()
	if err := Available(); err != nil {
		if errors.Is(err, ErrNoDevice) {
			tb.Skipf("no CUDA device: %v", err)
		}
		tb.Fatalf("CUDA device present but unusable: %v", err)
	}
	b, err := linalg.Get("cuda")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestDevice(t *testing.T) {
	cudaBackend(t)
	name, err := DeviceName()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device: %s", name)
}

func TestCholesky(t *testing.T)  { linalgtest.CholeskyTest(t, cudaBackend(t)) }
func TestLogDet(t *testing.T)    { linalgtest.LogDetTest(t, cudaBackend(t)) }
func TestSolve(t *testing.T)     { linalgtest.SolveTest(t, cudaBackend(t)) }
func TestInverse(t *testing.T)   { linalgtest.InverseTest(t, cudaBackend(t)) }
func TestMul(t *testing.T)       { linalgtest.MulTest(t, cudaBackend(t)) }
func TestGPKernel(t *testing.T)  { linalgtest.GPKernelTest(t, cudaBackend(t)) }
func TestGPLogLik(t *testing.T)  { linalgtest.GPLogLikTest(t, cudaBackend(t)) }
func TestGPPrefix(t *testing.T)  { linalgtest.GPPrefixTest(t, cudaBackend(t)) }
func TestGPResume(t *testing.T)  { linalgtest.GPResumeTest(t, cudaBackend(t)) }
func TestMVN(t *testing.T)       { linalgtest.MVNTest(t, cudaBackend(t)) }
func TestMVNPrefix(t *testing.T) { linalgtest.MVNPrefixTest(t, cudaBackend(t)) }
func TestNotPD(t *testing.T)     { linalgtest.NotPDTest(t, cudaBackend(t)) }
func TestState(t *testing.T)     { linalgtest.StateTest(t, cudaBackend(t)) }
func TestAllocs(t *testing.T)    { linalgtest.AllocTest(t, cudaBackend(t), 512) }

// TestNoDeviceError runs where the package is built with the tag but no
// device is present (the other tests skip there): the backend is still
// registered, and its constructors say that there is no device.
func TestNoDeviceError(t *testing.T) {
	err := Available()
	if err == nil {
		t.Skip("a CUDA device is present")
	}
	if !errors.Is(err, ErrNoDevice) {
		t.Skipf("device present but unusable (reported by the other tests): %v", err)
	}
	b, err := linalg.Get("cuda")
	if err != nil {
		t.Fatalf("backend not registered: %v", err)
	}
	if _, err := b.NewGP([]float64{0, 1}, 2, 1, []float64{0, 1}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("NewGP without a device gave %v, want an error wrapping ErrNoDevice", err)
	}
	if _, err := b.NewMatrix(4); !errors.Is(err, ErrNoDevice) {
		t.Errorf("NewMatrix without a device gave %v, want an error wrapping ErrNoDevice", err)
	}
	if _, err := b.NewMVN([]float64{0, 1}, 2, 1); !errors.Is(err, ErrNoDevice) {
		t.Errorf("NewMVN without a device gave %v, want an error wrapping ErrNoDevice", err)
	}
}

// gpData is a GP problem of n points in d dimensions drawn as the paper's
// synthetic data (inputs N(0, ℓ²), targets roughly unit scale), with a
// common offset on the inputs to exercise the centring.
func gpData(n, d int, seed uint64) (x, y, u []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x = make([]float64, n*d)
	for i := range x {
		x[i] = 3 + 2*rng.NormFloat64()
	}
	y = make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	u = make([]float64, d+2)
	for j := 0; j < d; j++ {
		u[j] = math.Log(1 + float64(d)*rng.Float64())
	}
	u[d] = 0.3
	u[d+1] = math.Log(0.3)
	return x, y, u
}

// TestGPLarge compares the log-likelihood and gradient with the gonum
// backend at sizes past the conformance suite's (several tiles, several
// reduction blocks, D > the shared-memory chunk of 32), on all points and
// on a random subset.
func TestGPLarge(t *testing.T) {
	be := cudaBackend(t)
	ref := linalg.Default()
	for _, c := range []struct{ n, d int }{{1500, 18}, {700, 40}, {33, 1}} {
		x, y, u := gpData(c.n, c.d, uint64(c.n))
		rng := rand.New(rand.NewPCG(uint64(c.d), 5))
		sub := rng.Perm(c.n)[:c.n*2/3]
		for _, subset := range [][]int{nil, sub} {
			name := fmt.Sprintf("n=%d,d=%d,subset=%v", c.n, c.d, subset != nil)
			g, err := be.NewGP(x, c.n, c.d, y)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ref.NewGP(x, c.n, c.d, y)
			if err != nil {
				t.Fatal(err)
			}
			gg, rg := make([]float64, c.d+2), make([]float64, c.d+2)
			ll, err := g.LogLik(subset, u, gg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rl, err := r.LogLik(subset, u, rg)
			if err != nil {
				t.Fatalf("%s: reference: %v", name, err)
			}
			if d := math.Abs(ll - rl); d > 1e-8*math.Max(1, math.Abs(rl)) {
				t.Errorf("%s: loglik %v, gonum %v (diff %g)", name, ll, rl, d)
			}
			var scale float64
			for _, v := range rg {
				scale = math.Max(scale, math.Abs(v))
			}
			for j := range gg {
				if d := math.Abs(gg[j] - rg[j]); d > 1e-7*math.Max(1, scale) {
					t.Errorf("%s: grad[%d] = %v, gonum %v (diff %g)", name, j, gg[j], rg[j], d)
				}
			}
			// A second evaluation is bitwise the same: no atomics, fixed
			// reduction order.
			g2 := make([]float64, c.d+2)
			ll2, err := g.LogLik(subset, u, g2)
			if err != nil {
				t.Fatal(err)
			}
			if ll2 != ll {
				t.Errorf("%s: loglik not reproducible: %v then %v", name, ll, ll2)
			}
			for j := range g2 {
				if g2[j] != gg[j] {
					t.Errorf("%s: grad[%d] not reproducible: %v then %v", name, j, gg[j], g2[j])
				}
			}
			// Without a gradient the value is the same.
			ll3, err := g.LogLik(subset, u, nil)
			if err != nil || ll3 != ll {
				t.Errorf("%s: loglik without gradient %v (%v), with %v", name, ll3, err, ll)
			}
			g.Close()
			r.Close()
		}
	}
}

// TestInverseLarge checks the dense Cholesky, Get of the factor and the
// recursive inverse (several levels of trtri/lauum, orders that are not
// multiples of the leaf) against the gonum backend.
func TestInverseLarge(t *testing.T) {
	be := cudaBackend(t)
	ref := linalg.Default()
	for _, n := range []int{1100, 2049} {
		a := linalgtest.BenchSPD(n, uint64(n))
		// factorInverse returns the factor and the inverse of a on b.
		factorInverse := func(b linalg.Backend) [2][]float64 {
			m, err := b.NewMatrix(n)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			out := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			if err := firstErr(m.Set(n, a), m.Cholesky(), m.Get(out[0]), m.Inverse(), m.Get(out[1])); err != nil {
				t.Fatalf("%s N=%d: %v", b.Name(), n, err)
			}
			return out
		}
		got, want := factorInverse(be), factorInverse(ref)
		for p, what := range []string{"factor", "inverse"} {
			var worst, scale float64
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if p == 0 && j > i {
						continue // the strict upper triangle of the factor is unspecified
					}
					worst = math.Max(worst, math.Abs(got[p][i*n+j]-want[p][i*n+j]))
					scale = math.Max(scale, math.Abs(want[p][i*n+j]))
				}
			}
			if !(worst <= 1e-12*scale) {
				t.Errorf("N=%d: %s differs from gonum's by %.3g (max entry %.3g)", n, what, worst, scale)
			}
		}
	}
}

// TestConcurrentHandles runs GP evaluations on one handle per goroutine
// and checks each against its own sequential result.
func TestConcurrentHandles(t *testing.T) {
	be := cudaBackend(t)
	const n, d, workers = 600, 6, 4
	x, y, u := gpData(n, d, 11)
	want := make([]float64, workers)
	for w := range want {
		g, err := be.NewGP(x, n, d, y)
		if err != nil {
			t.Fatal(err)
		}
		uw := append([]float64(nil), u...)
		uw[d] += 0.1 * float64(w)
		if want[w], err = g.LogLik(nil, uw, make([]float64, d+2)); err != nil {
			t.Fatal(err)
		}
		g.Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g, err := be.NewGP(x, n, d, y)
			if err != nil {
				errs[w] = err
				return
			}
			defer g.Close()
			uw := append([]float64(nil), u...)
			uw[d] += 0.1 * float64(w)
			grad := make([]float64, d+2)
			for it := 0; it < 20; it++ {
				ll, err := g.LogLik(nil, uw, grad)
				if err != nil {
					errs[w] = err
					return
				}
				if ll != want[w] {
					errs[w] = fmt.Errorf("worker %d iteration %d: %v, want %v", w, it, ll, want[w])
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestClosed checks that a closed handle refuses work with an error.
func TestClosed(t *testing.T) {
	be := cudaBackend(t)
	x, y, u := gpData(10, 2, 1)
	g, err := be.NewGP(x, 10, 2, y)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.LogLik(nil, u, nil); err == nil {
		t.Error("LogLik on a closed GP gave no error")
	}
	m, err := be.NewMatrix(3)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := m.Set(1, []float64{1}); err == nil {
		t.Error("Set on a closed matrix gave no error")
	}
}

// TestSyncSetting checks that SUBTEMPER_CUDA_SYNC names the driver's
// scheduling flags, defaults to blocking and refuses anything else.
func TestSyncSetting(t *testing.T) {
	for _, c := range []struct {
		env  string
		want uint
		ok   bool
	}{
		{"", 4, true}, {"blocking", 4, true}, {"spin", 1, true},
		{"yield", 2, true}, {"auto", 0, true}, {"Blocking", 0, false}, {"sleep", 0, false},
	} {
		t.Setenv("SUBTEMPER_CUDA_SYNC", c.env)
		got, err := schedFlags()
		if (err == nil) != c.ok || (c.ok && uint(got) != c.want) {
			t.Errorf("SUBTEMPER_CUDA_SYNC=%q: got %d, %v; want %d, ok %v", c.env, got, err, c.want, c.ok)
		}
	}
}

// benchSizes are the orders of the CUDA benchmarks: the common sizes and
// the two the GPU is judged at.
var benchSizes = append(append([]int(nil), linalgtest.BenchSizes...), 8192, 16384)

func BenchmarkCholesky(b *testing.B) {
	be := cudaBackend(b)
	b.Run("backend=cuda", func(b *testing.B) { linalgtest.BenchCholesky(b, be, benchSizes) })
}

func BenchmarkSolve(b *testing.B) {
	be := cudaBackend(b)
	b.Run("backend=cuda", func(b *testing.B) { linalgtest.BenchSolve(b, be, benchSizes) })
}

func BenchmarkInverse(b *testing.B) {
	be := cudaBackend(b)
	b.Run("backend=cuda", func(b *testing.B) { linalgtest.BenchInverse(b, be, benchSizes) })
}

func BenchmarkGEMM(b *testing.B) {
	be := cudaBackend(b)
	b.Run("backend=cuda", func(b *testing.B) { linalgtest.BenchGEMM(b, be, benchSizes) })
}

func BenchmarkGPStep(b *testing.B) {
	be := cudaBackend(b)
	b.Run("backend=cuda", func(b *testing.B) { linalgtest.BenchGPStep(b, be, benchSizes) })
}
