//go:build openblas

package openblas

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	glapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

func backend(t testing.TB) linalg.Backend {
	b, err := linalg.Get(Name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCholesky(t *testing.T)  { linalgtest.CholeskyTest(t, backend(t)) }
func TestLogDet(t *testing.T)    { linalgtest.LogDetTest(t, backend(t)) }
func TestSolve(t *testing.T)     { linalgtest.SolveTest(t, backend(t)) }
func TestInverse(t *testing.T)   { linalgtest.InverseTest(t, backend(t)) }
func TestMul(t *testing.T)       { linalgtest.MulTest(t, backend(t)) }
func TestGPKernel(t *testing.T)  { linalgtest.GPKernelTest(t, backend(t)) }
func TestGPLogLik(t *testing.T)  { linalgtest.GPLogLikTest(t, backend(t)) }
func TestGPPrefix(t *testing.T)  { linalgtest.GPPrefixTest(t, backend(t)) }
func TestGPResume(t *testing.T)  { linalgtest.GPResumeTest(t, backend(t)) }
func TestMVN(t *testing.T)       { linalgtest.MVNTest(t, backend(t)) }
func TestMVNPrefix(t *testing.T) { linalgtest.MVNPrefixTest(t, backend(t)) }
func TestNotPD(t *testing.T)     { linalgtest.NotPDTest(t, backend(t)) }
func TestState(t *testing.T)     { linalgtest.StateTest(t, backend(t)) }
func TestAllocs(t *testing.T)    { linalgtest.AllocTest(t, backend(t), 128) }

// TestKernelReference and TestMatern run at every level of the C loops
// the CPU has.
func TestKernelReference(t *testing.T) {
	forEachPath(t, func(t *testing.T) { linalgtest.KernelReferenceTest(t, backend(t)) })
}
func TestMatern(t *testing.T) {
	forEachPath(t, func(t *testing.T) { linalgtest.MaternTest(t, backend(t)) })
}
func TestAllocsLarge(t *testing.T) {
	linalgtest.AllocTest(t, backend(t), 512)
}

// TestGPSplitInvariant: a handle made at GOMAXPROCS 1 (no workers: the
// gradient parts run in order) and one made at GOMAXPROCS 2 (the parts go to
// a worker) give bit-identical log-likelihoods and gradients, above and
// below the size from which the work is split.
func TestGPSplitInvariant(t *testing.T) {
	const n, d = 600, 5
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := linalgtest.NormalData(rng, n, d)
	u := []float64{0.1, -0.2, 0.3, 0.2, 0, 0.4, math.Log(0.3)}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var hs [2]linalg.GP
	for k, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		h, err := backend(t).NewGP(x, n, d, y)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		hs[k] = h
	}
	for _, m := range []int{100, 255, 256, 599} {
		sub := rng.Perm(n)[:m]
		var ll [2]float64
		var grad [2][]float64
		for k, h := range hs {
			grad[k] = make([]float64, d+2)
			var err error
			if ll[k], err = h.LogLik(sub, u, grad[k]); err != nil {
				t.Fatal(err)
			}
		}
		if ll[0] != ll[1] {
			t.Errorf("m=%d: log-likelihood %v without workers, %v with", m, ll[0], ll[1])
		}
		for j := range grad[0] {
			if grad[0][j] != grad[1][j] {
				t.Errorf("m=%d: gradient[%d] %v without workers, %v with", m, j, grad[0][j], grad[1][j])
			}
		}
	}
}

// BenchmarkDpotrfDirect calls OpenBLAS's dpotrf_ through the cgo shim
// alone, on the matrix BenchmarkCholesky/openblas factors, so the ratio of
// the two rates is the cost of the backend's Go wrapper.
func BenchmarkDpotrfDirect(b *testing.B) {
	benchDirect(b, 1.0/3, func(n int, w []float64) (string, int) { return "dpotrf_", dpotrf('U', n, w, n) })
}

// BenchmarkPotrfPotriDirect times dpotrf_ followed by dpotri_ through the
// cgo shim (the copy of the input excluded): the bare O(n³) core of a GP
// log-likelihood and gradient, n³ flops in all, to set beside
// BenchmarkLogLikGrad/openblas in package gp.
func BenchmarkPotrfPotriDirect(b *testing.B) {
	benchDirect(b, 1, func(n int, w []float64) (string, int) {
		if info := dpotrf('U', n, w, n); info != 0 {
			return "dpotrf_", info
		}
		return "dpotri_", dpotri('U', n, w, n)
	})
}

// benchDirect times f on a fresh copy of the benchmark SPD matrix of each
// size (the copy untimed) and reports c·n³ flops per call as GFLOP/s; f
// returns the routine it called last and its info.
func benchDirect(b *testing.B, c float64, f func(n int, w []float64) (string, int)) {
	for _, n := range linalgtest.BenchSizes {
		var a []float64
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			if a == nil {
				a = linalgtest.BenchSPD(n, 1)
			}
			w := make([]float64, n*n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				copy(w, a)
				b.StartTimer()
				if name, info := f(n, w); info != 0 {
					b.Fatalf("%s: info = %d", name, info)
				}
			}
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(c*math.Pow(float64(n), 3)*float64(b.N)/s/1e9, "GFLOP/s")
			}
		})
	}
}

// BenchmarkGPStepKernel times a GP log-likelihood with gradient for each
// kernel family on this backend (D = linalgtest.BenchGPDim), the
// families alternating at each size so that all see the same machine.
func BenchmarkGPStepKernel(b *testing.B) {
	c := backend(b)
	for _, n := range []int{512, 1024} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			for _, k := range linalg.Kernels() {
				b.Run("kernel="+k.String(), func(b *testing.B) { linalgtest.BenchGPStepKernelAt(b, c, k, n) })
			}
		})
	}
}

// BenchmarkGPStepRowKernels times a GP log-likelihood with gradient on
// this backend ("kernels=c") and on the same BLAS and LAPACK with the
// generic Go elementwise passes and Dsymm ("kernels=go"), alternating at
// each size so that both see the same machine.
func BenchmarkGPStepRowKernels(b *testing.B) {
	c := backend(b)
	gov := linalg.NewCPU(Name+"-go", netlib.Implementation{}, LAPACK{})
	for _, n := range []int{512, 1024, 2048} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			b.Run("kernels=go", func(b *testing.B) { linalgtest.BenchGPStepAt(b, gov, n) })
			b.Run("kernels=c", func(b *testing.B) { linalgtest.BenchGPStepAt(b, c, n) })
		})
	}
}

// TestRecursiveMatchesLAPACK compares the recursive Cholesky factor,
// inverse and inverse of the factor (the backend's lower-triangle path)
// with OpenBLAS's own dpotrf_, dpotri_ and dtrtri_ on the same matrices, at orders around the leaf size and the
// splits, on a well- and an ill-conditioned matrix; and checks that both
// report the same first failing minor on a matrix that is not positive
// definite.
func TestRecursiveMatchesLAPACK(t *testing.T) {
	for _, n := range []int{1, 2, 7, 31, 32, 33, 64, 65, 100, 257, 600} {
		for _, ill := range []bool{false, true} {
			a := linalgtest.BenchSPD(n, uint64(n))
			if ill {
				// shrink all but the first direction: condition ~1e10
				for i := range a {
					a[i] *= 1e-10
				}
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						a[i*n+j] += 1
					}
				}
			}
			ref := slices.Clone(a)
			got := slices.Clone(a)
			// step runs OpenBLAS's routine on ref and the recursive one on
			// got and compares their lower triangles.
			step := func(what string, lapack, recursive func() int, tol float64) {
				if li, ri := lapack(), recursive(); li != 0 || ri != 0 {
					t.Fatalf("n=%d ill=%v: %s: info %d from OpenBLAS, %d recursive", n, ill, what, li, ri)
				}
				if e := maxRelLower(n, got, ref); e > tol {
					t.Errorf("n=%d ill=%v: %s differ by %.3g relative to their largest entry", n, ill, what, e)
				}
			}
			// Both factors of the ill-conditioned matrix carry rounding of
			// about eps·√cond in its small directions, both inverses the
			// condition number's worth.
			ftol, itol := 1e-13, 1e-12
			if ill {
				ftol, itol = 1e-10, 1e-4
			}
			step("Cholesky factors", func() int { return dpotrf('U', n, ref, n) }, func() int { return rpotrf(n, got, n) }, ftol)
			rf, gf := slices.Clone(ref), slices.Clone(got)
			step("inverses", func() int { return dpotri('U', n, ref, n) }, func() int { return rpotri(n, got, n) }, itol)
			ref, got = rf, gf
			step("inverses of the factors", func() int { return dtrtri('U', 'N', n, ref, n) }, func() int { return rtrtri(n, got, n) }, itol)
		}
	}
	for _, n := range []int{5, 40, 300} {
		for _, p := range []int{0, n / 2, n - 1} {
			a := linalgtest.BenchSPD(n, 3)
			a[p*n+p] = -1 // the leading minor of order p+1 is the first that is not PD
			ref, got := slices.Clone(a), slices.Clone(a)
			ri, gi := dpotrf('U', n, ref, n), rpotrf(n, got, n)
			if gi != ri || gi != p+1 {
				t.Errorf("n=%d, bad pivot %d: recursive potrf info %d, dpotrf_ %d, want %d", n, p, gi, ri, p+1)
			}
		}
		a := linalgtest.BenchSPD(n, 3)
		a[n/2*n] = math.NaN() // below the diagonal: reaches a pivot through the updates
		if info := rpotrf(n, a, n); info == 0 {
			t.Errorf("n=%d: recursive potrf accepted a NaN", n)
		}
	}
}

// TestDtrtri: LAPACK.Dtrtri agrees with gonum's on both triangles, with
// unit and non-unit diagonals, and reports a zero on the diagonal.
func TestDtrtri(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 5, 40, 130} {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = 0.1 * rng.NormFloat64()
		}
		for i := range n {
			a[i*n+i] = 1 + rng.Float64()
		}
		for _, ul := range []blas.Uplo{blas.Lower, blas.Upper} {
			for _, dg := range []blas.Diag{blas.NonUnit, blas.Unit} {
				got, want := slices.Clone(a), slices.Clone(a)
				if !(LAPACK{}).Dtrtri(ul, dg, n, got, n) || !(glapack.Implementation{}).Dtrtri(ul, dg, n, want, n) {
					t.Fatalf("n=%d %c %c: singular", n, ul, dg)
				}
				for i := range n {
					for j := range n {
						if ul == blas.Lower && j > i || ul == blas.Upper && j < i {
							continue
						}
						if e := math.Abs(got[i*n+j] - want[i*n+j]); e > 1e-13 {
							t.Fatalf("n=%d %c %c: inverse[%d,%d] = %v, gonum %v", n, ul, dg, i, j, got[i*n+j], want[i*n+j])
						}
					}
				}
			}
		}
		z := slices.Clone(a)
		z[n/2*n+n/2] = 0
		for _, ul := range []blas.Uplo{blas.Lower, blas.Upper} {
			if (LAPACK{}).Dtrtri(ul, blas.NonUnit, n, slices.Clone(z), n) {
				t.Errorf("n=%d %c: a zero on the diagonal was inverted", n, ul)
			}
		}
	}
}

// maxRelLower returns max |got−ref| over the lower triangles, relative to
// the largest |ref| there.
func maxRelLower(n int, got, ref []float64) float64 {
	var e, m float64
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			e = math.Max(e, math.Abs(got[i*n+j]-ref[i*n+j]))
			m = math.Max(m, math.Abs(ref[i*n+j]))
		}
	}
	return e / m
}

// BenchmarkPotrfPotriRecursive is BenchmarkPotrfPotriDirect for the
// recursive factorisation and inverse the backend runs: n³ flops in all.
func BenchmarkPotrfPotriRecursive(b *testing.B) {
	benchDirect(b, 1, func(n int, w []float64) (string, int) {
		if info := rpotrf(n, w, n); info != 0 {
			return "rpotrf", info
		}
		return "rpotri", rpotri(n, w, n)
	})
}

// BenchmarkPredictTriangular times the O(N²) step of the GP predictive
// variance at N = 442 for 10 000 test inputs, in blocks of 593: the
// triangular solve L⁻¹K*ᵀ (DTRSM, with K* row-major, and with K*ᵀ
// row-major as Predict holds it and solves it) and the product with the
// inverted factor (DTRMM, in both layouts), which Predict once used.
// Each op is 1.95 GFLOP.
func BenchmarkPredictTriangular(b *testing.B) {
	const n, nt, block = 442, 10000, 593
	bl := netlib.Implementation{}
	l := linalgtest.BenchSPD(n, 1)
	if rpotrf(n, l, n) != 0 {
		b.Fatal("not positive definite")
	}
	inv := slices.Clone(l)
	if rtrtri(n, inv, n) != 0 {
		b.Fatal("singular factor")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	k := make([]float64, nt*n)
	for i := range k {
		k[i] = rng.Float64()
	}
	w := make([]float64, nt*n)
	for _, c := range []struct {
		name string
		f    func(x []float64, m int)
	}{
		{"trsm", func(x []float64, m int) {
			bl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, n, 1, l, n, x, n)
		}},
		{"trmm", func(x []float64, m int) {
			bl.Dtrmm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, m, n, 1, inv, n, x, n)
		}},
		{"trsm-left", func(x []float64, m int) {
			bl.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, m, 1, l, n, x, m)
		}},
		{"trmm-left", func(x []float64, m int) {
			bl.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, m, 1, inv, n, x, m)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				copy(w, k)
				b.StartTimer()
				for lo := 0; lo < nt; lo += block {
					m := min(block, nt-lo)
					c.f(w[lo*n:(lo+m)*n], m)
				}
			}
			b.ReportMetric(float64(n)*float64(n)*float64(nt)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
