package gp

import (
	"math"
	"strconv"
	"sync"
	"testing"

	"github.com/subtemper/subtemper/internal/fit"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

var benchNs = []int{128, 256, 512, 1024, 2048, 4096}

const benchD = 18

var (
	benchOnce sync.Once
	benchData *Data
	benchErr  error
)

// benchDataset is the paper's synthetic data at D = 18 and the largest N,
// drawn once; smaller sizes are its prefixes (the data of the same seed).
func benchDataset(b *testing.B) *Data {
	benchOnce.Do(func() {
		benchData, _, benchErr = Synthetic(benchNs[len(benchNs)-1], benchD, 1, Prior{})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchData
}

// BenchmarkLogLikGrad times Model.LogLik with the gradient on all N
// observations at the prior mean, D = 18, on every compiled-in backend, and
// logs the exponent α of t ∝ N^α fitted to the sizes run (all of them, and
// N ≥ 1024), which should approach 3.
func BenchmarkLogLikGrad(b *testing.B) { benchLogLik(b, true) }

// BenchmarkLogLik is BenchmarkLogLikGrad without the gradient: the cost of
// the evaluations a swap or a tempered transition's acceptance makes
// (kernel, Cholesky, solve; no inverse).
func BenchmarkLogLik(b *testing.B) { benchLogLik(b, false) }

func benchLogLik(b *testing.B, withGrad bool) {
	data := benchDataset(b)
	for _, be := range linalg.Backends() {
		b.Run("backend="+be.Name(), func(b *testing.B) {
			if err := unavailable(be); err != nil {
				b.Skip(err)
			}
			var ns []int
			var secs []float64
			for _, n := range benchNs {
				d, err := data.Prefix(n)
				if err != nil {
					b.Fatal(err)
				}
				var sec float64
				ok := b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
					m, err := New(be, d, Options{})
					if err != nil {
						b.Fatal(err)
					}
					defer m.Close()
					u := m.StartPoints()[0]
					var grad []float64
					if withGrad {
						grad = make([]float64, m.Dim())
					}
					if _, err := m.LogLik(nil, u, grad); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					clk := linalgtest.ResetClock(b)
					for b.Loop() {
						if _, err := m.LogLik(nil, u, grad); err != nil {
							b.Fatal(err)
						}
					}
					clk.ReportCPU()
					sec = b.Elapsed().Seconds() / float64(b.N)
				})
				if ok && sec > 0 {
					ns = append(ns, n)
					secs = append(secs, sec)
				}
			}
			logAlpha(b, ns, secs, 1024)
		})
	}
}

// BenchmarkCholeskyInverse times the bare dense core of an evaluation on
// every backend — Cholesky and inverse from the factor of an N×N SPD kernel
// matrix — for the ratio LogLikGrad / CholeskyInverse.
func BenchmarkCholeskyInverse(b *testing.B) {
	data := benchDataset(b)
	for _, be := range linalg.Backends() {
		b.Run("backend="+be.Name(), func(b *testing.B) {
			if err := unavailable(be); err != nil {
				b.Skip(err)
			}
			for _, n := range benchNs {
				b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
					d, err := data.Prefix(n)
					if err != nil {
						b.Fatal(err)
					}
					h, err := be.NewGP(d.X, d.N, d.D, d.Y)
					if err != nil {
						b.Fatal(err)
					}
					defer h.Close()
					k := make([]float64, n*n)
					if err := h.Kernel(k, nil, Prior{}.StartPoints(benchD)[0]); err != nil {
						b.Fatal(err)
					}
					a, err := be.NewMatrix(n)
					if err != nil {
						b.Fatal(err)
					}
					defer a.Close()
					clk := linalgtest.ResetClock(b)
					for b.Loop() {
						if err := a.Set(n, k); err != nil {
							b.Fatal(err)
						}
						if err := a.Cholesky(); err != nil {
							b.Fatal(err)
						}
						if err := a.Inverse(); err != nil {
							b.Fatal(err)
						}
					}
					clk.ReportCPU()
				})
			}
		})
	}
}

// logAlpha fits t ∝ N^α to the sizes run, and to those ≥ large, and
// reports them as the metrics "alpha" and "alpha_large" of a sub-benchmark
// named "fit" (printed with the timings, also without -v), and in the log.
func logAlpha(b *testing.B, ns []int, secs []float64, large int) {
	if len(ns) < 2 {
		return
	}
	a, c := fit.FitExponent(ns, secs)
	b.Logf("α = %.2f (t ≈ %.3g·N^α s, N = %d…%d)", a, c, ns[0], ns[len(ns)-1])
	al := math.NaN()
	for i, n := range ns {
		if n >= large && len(ns)-i >= 2 {
			var c float64
			al, c = fit.FitExponent(ns[i:], secs[i:])
			b.Logf("α = %.2f (t ≈ %.3g·N^α s, N = %d…%d)", al, c, n, ns[len(ns)-1])
			break
		}
	}
	b.Run("fit", func(b *testing.B) {
		b.ReportMetric(a, "alpha")
		if !math.IsNaN(al) {
			b.ReportMetric(al, "alpha_large")
		}
		b.ReportMetric(0, "ns/op")
	})
}
