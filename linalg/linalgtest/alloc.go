package linalgtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// AllocTest checks that the hot routines of b do not allocate in the steady
// state, at order n: Matrix.Set+Cholesky, LogDet, Solve, Inverse, Mul,
// GP.LogLik with gradient (all observations and a subset; for every
// kernel family when b is a linalg.KernelBackend) and MVN.SumSq
// with residuals. It uses testing.AllocsPerRun, which runs with
// GOMAXPROCS = 1.
//
// A backend may allocate above some size for reasons outside its control:
// gonum's native Dgemm starts goroutines once a product has at least
// four 64×64 blocks in the output (blas/gonum: blockSize, minParBlock), and
// gonum's Dpotrf and Dpotri reach it through their blocked paths, so the
// "gonum" backend is checked below that size; the caller chooses n.
func AllocTest(t *testing.T, b linalg.Backend, n int) {
	t.Helper()
	if testing.Short() && n > 128 {
		t.Skip("short mode")
	}
	run(t, b, func(b linalg.Backend) error { return checkAllocs(b, n) })
}

func checkAllocs(b linalg.Backend, n int) error {
	var f failures
	a := BenchSPD(n, 1)
	m, err := b.NewMatrix(n)
	if err != nil {
		return err
	}
	m2, _ := b.NewMatrix(n)
	m3, _ := b.NewMatrix(n)
	_ = m2.Set(n, a)
	_ = m3.Set(n, a)
	rhs := make([]float64, n)
	x := make([]float64, n)
	for i := range rhs {
		rhs[i] = float64(i%7) - 3
	}
	var sink float64
	measure := func(name string, fn func() error) {
		if err := fn(); err != nil { // warm up, and make sure it works
			f.errorf("N=%d %s: %v", n, name, err)
			return
		}
		var ferr error
		allocs := testing.AllocsPerRun(5, func() {
			if err := fn(); err != nil {
				ferr = err
			}
		})
		if ferr != nil {
			f.errorf("N=%d %s: %v", n, name, ferr)
		}
		if allocs != 0 {
			f.errorf("N=%d %s: %v allocations per call, want 0", n, name, allocs)
		}
	}
	measure("Set+Cholesky", func() error {
		if err := m.Set(n, a); err != nil {
			return err
		}
		return m.Cholesky()
	})
	measure("LogDet", func() error {
		v, err := m.LogDet()
		sink += v
		return err
	})
	measure("Solve", func() error { return m.Solve(rhs, x) })
	measure("Set+Cholesky+Inverse", func() error {
		if err := m.Set(n, a); err != nil {
			return err
		}
		if err := m.Cholesky(); err != nil {
			return err
		}
		return m.Inverse()
	})
	measure("Mul", func() error { return m.Mul(m2, m3) })

	const d = 18
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	xs := make([]float64, n*d)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	for i := range ys {
		ys[i] = rng.NormFloat64()
	}
	u := make([]float64, d+2)
	for j := 0; j < d; j++ {
		u[j] = math.Log(float64(d)) / 2
	}
	u[d+1] = math.Log(0.1)
	g, err := b.NewGP(xs, n, d, ys)
	if err != nil {
		return err
	}
	grad := make([]float64, d+2)
	sub := rng.Perm(n)[:(n+1)/2]
	measure("GP.LogLik+grad", func() error {
		v, err := g.LogLik(nil, u, grad)
		sink += v
		return err
	})
	measure("GP.LogLik+grad on a subset", func() error {
		v, err := g.LogLik(sub, u, grad)
		sink += v
		return err
	})
	measure("GP.LogLik", func() error {
		v, err := g.LogLik(sub, u, nil)
		sink += v
		return err
	})
	if _, ok := b.(linalg.KernelBackend); ok {
		for _, k := range maternFamilies {
			gk, err := linalg.NewGPKernel(b, k, xs, n, d, ys)
			if err != nil {
				return err
			}
			gk.SetJitter(1e-6)
			measure(k.String()+" GP.LogLik+grad", func() error {
				v, err := gk.LogLik(nil, u, grad)
				sink += v
				return err
			})
			measure(k.String()+" GP.LogLik+grad on a subset", func() error {
				v, err := gk.LogLik(sub, u, grad)
				sink += v
				return err
			})
		}
	}
	const B = 16
	mv, err := b.NewMVN(xs, n, d)
	if err != nil {
		return err
	}
	tt := xs[:B*d]
	if n < B {
		tt = make([]float64, B*d)
	}
	out, resid := make([]float64, B), make([]float64, B*d)
	measure("MVN.SumSq", func() error { return mv.SumSq(nil, tt, B, out, resid) })
	measure("MVN.SumSq on a subset", func() error { return mv.SumSq(sub, tt, B, out, resid) })
	if math.IsNaN(sink) {
		f.errorf("NaN result")
	}
	return f.err()
}
