//go:build openblas

package openblas

import (
	"math"
	"strconv"
	"testing"

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

func TestCholesky(t *testing.T) { linalgtest.CholeskyTest(t, backend(t)) }
func TestLogDet(t *testing.T)   { linalgtest.LogDetTest(t, backend(t)) }
func TestSolve(t *testing.T)    { linalgtest.SolveTest(t, backend(t)) }
func TestInverse(t *testing.T)  { linalgtest.InverseTest(t, backend(t)) }
func TestMul(t *testing.T)      { linalgtest.MulTest(t, backend(t)) }
func TestGPKernel(t *testing.T) { linalgtest.GPKernelTest(t, backend(t)) }
func TestGPLogLik(t *testing.T) { linalgtest.GPLogLikTest(t, backend(t)) }
func TestMVN(t *testing.T)      { linalgtest.MVNTest(t, backend(t)) }
func TestNotPD(t *testing.T)    { linalgtest.NotPDTest(t, backend(t)) }
func TestState(t *testing.T)    { linalgtest.StateTest(t, backend(t)) }
func TestAllocs(t *testing.T)   { linalgtest.AllocTest(t, backend(t), 128) }
func TestAllocsLarge(t *testing.T) {
	linalgtest.AllocTest(t, backend(t), 512)
}

// BenchmarkDpotrfDirect calls OpenBLAS's dpotrf_ through the cgo shim
// alone, on the matrix BenchmarkCholesky/openblas factors, so the ratio of
// the two rates is the cost of the backend's Go wrapper.
func BenchmarkDpotrfDirect(b *testing.B) {
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
				if info := dpotrf('U', n, w, n); info != 0 {
					b.Fatalf("dpotrf_: info = %d", info)
				}
			}
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(math.Pow(float64(n), 3)/3*float64(b.N)/s/1e9, "GFLOP/s")
			}
		})
	}
}
