package mvn

import (
	"strconv"
	"testing"

	"github.com/subtemper/subtemper/internal/fit"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

// benchB is the batch size of BenchmarkLogLikBatch: the B parameter
// vectors share one GEMM over the observations.
const benchB = 8

// BenchmarkLogLikBatch times Model.LogLikBatch with gradients for a batch of
// 8 parameter vectors on all N observations, D = 50, on every compiled-in
// backend, and logs the exponent α of t ∝ N^α fitted to the sizes run,
// which should be ≈ 1.
func BenchmarkLogLikBatch(b *testing.B) {
	const d = 50
	ns := []int{64, 128, 256, 512, 1024, 2048, 4096, 8192}
	data, sigma, theta, err := Synthetic(ns[len(ns)-1], d, 1, SynthOptions{})
	if err != nil {
		b.Fatal(err)
	}
	thetas := make([]float64, benchB*d)
	for i := range thetas {
		thetas[i] = theta[i%d] + 0.01*float64(i/d)
	}
	for _, be := range linalg.Backends() {
		b.Run("backend="+be.Name(), func(b *testing.B) {
			var ran []int
			var secs []float64
			for _, n := range ns {
				var sec float64
				ok := b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
					sub, err := data.Prefix(n)
					if err != nil {
						b.Fatal(err)
					}
					m, err := New(be, sub, sigma, Options{})
					if err != nil {
						b.Fatal(err)
					}
					defer m.Close()
					out, grads := make([]float64, benchB), make([]float64, benchB*d)
					if err := m.LogLikBatch(nil, thetas, out, grads); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					clk := linalgtest.ResetClock(b)
					for b.Loop() {
						if err := m.LogLikBatch(nil, thetas, out, grads); err != nil {
							b.Fatal(err)
						}
					}
					clk.ReportCPU()
					sec = b.Elapsed().Seconds() / float64(b.N)
				})
				if ok && sec > 0 {
					ran = append(ran, n)
					secs = append(secs, sec)
				}
			}
			reportAlpha(b, ran, secs)
		})
	}
}

// reportAlpha fits t ∝ N^α to the sizes run and reports it as the metric
// "alpha" of a sub-benchmark named "fit" (printed with the timings, also
// without -v), and in the log.
func reportAlpha(b *testing.B, ns []int, secs []float64) {
	if len(ns) < 2 {
		return
	}
	a, c := fit.FitExponent(ns, secs)
	b.Run("fit", func(b *testing.B) {
		b.ReportMetric(a, "alpha")
		b.ReportMetric(0, "ns/op")
	})
	b.Logf("α = %.2f (t ≈ %.3g·N^α s, N = %d…%d)", a, c, ns[0], ns[len(ns)-1])
}
