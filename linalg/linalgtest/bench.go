package linalgtest

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/subtemper/subtemper/internal/cputime"
	"github.com/subtemper/subtemper/linalg"
)

// BenchSizes are the orders the benchmarks run at by default.
var BenchSizes = []int{256, 512, 1024, 2048, 4096}

// BenchGPDim is the input dimension of the GP step benchmark.
const BenchGPDim = 18

// Each Bench function runs one sub-benchmark "N=<n>" per size on backend
// be and reports GFLOP/s with the conventional flop count of the
// operation, and cpu-ns/op, the process's CPU time per operation (all
// threads: above ns/op when a BLAS runs threads of its own). Call it from
// b.Run("backend="+be.Name(), ...) to get names of the form
// Cholesky/backend=<name>/N=<n>, which benchstat compares across backends
// (benchstat -col /backend). Matrix set-up is outside the timer.

// Clock is a benchmark's timer together with a clock of the process's CPU
// time, stopped and started with it, so that what the timer leaves out
// the CPU time leaves out too.
type Clock struct {
	b       *testing.B
	cpu     time.Duration // CPU time while running, up to the last Stop
	since   time.Duration // the process's CPU time at the last Start
	running bool
	ok      bool // the process's CPU time can be read
}

// ResetClock resets b's timer (b.ResetTimer) and starts the CPU clock
// from zero.
func ResetClock(b *testing.B) *Clock {
	b.ResetTimer()
	c := &Clock{b: b, ok: true}
	c.Start()
	return c
}

// Stop stops b's timer and the CPU clock.
func (c *Clock) Stop() {
	c.b.StopTimer()
	if !c.running {
		return
	}
	now, ok := cputime.Process()
	c.ok = c.ok && ok
	c.cpu += now - c.since
	c.running = false
}

// Start starts b's timer and the CPU clock again.
func (c *Clock) Start() {
	now, ok := cputime.Process()
	c.ok = c.ok && ok
	c.since, c.running = now, true
	c.b.StartTimer()
}

// ReportCPU stops the clocks and reports cpu-ns/op (where the process's
// CPU time can be read: Linux).
func (c *Clock) ReportCPU() {
	c.Stop()
	if c.ok && c.b.N > 0 {
		c.b.ReportMetric(float64(c.cpu.Nanoseconds())/float64(c.b.N), "cpu-ns/op")
	}
}

// gflops stops the clocks, so that the deferred Close of the benchmark's
// handles stays out of ns/op too (on the GPU destroying the library
// handles takes longer than a small operation), and reports the rate and
// the CPU time per operation.
func (c *Clock) gflops(flops float64) {
	c.ReportCPU()
	if s := c.b.Elapsed().Seconds(); s > 0 {
		c.b.ReportMetric(flops*float64(c.b.N)/s/1e9, "GFLOP/s")
	}
}

// eachSize runs run as a sub-benchmark N=n for each of sizes, with a the
// random SPD matrix of that size (BenchSPD(n, 1)), made once.
func eachSize(b *testing.B, sizes []int, run func(b *testing.B, n int, a []float64)) {
	for _, n := range sizes {
		var a []float64
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			if a == nil {
				a = BenchSPD(n, 1)
			}
			run(b, n, a)
		})
	}
}

func newWorkspace(b *testing.B, be linalg.Backend, n int) linalg.Matrix {
	m, err := be.NewMatrix(n)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchCholesky times Matrix.Cholesky (n³/3 flops); the upload of the
// matrix before each call is not timed.
func BenchCholesky(b *testing.B, be linalg.Backend, sizes []int) {
	benchUntimedPrep(b, be, sizes, func(n int) float64 { return math.Pow(float64(n), 3) / 3 },
		func(m linalg.Matrix, n int, a []float64) error { return m.Set(n, a) },
		linalg.Matrix.Cholesky)
}

// benchUntimedPrep runs, at each size, prep (untimed) then op (timed) on a
// workspace holding a random SPD matrix, and reports GFLOP/s.
func benchUntimedPrep(b *testing.B, be linalg.Backend, sizes []int, flops func(n int) float64,
	prep func(m linalg.Matrix, n int, a []float64) error, op func(m linalg.Matrix) error) {
	eachSize(b, sizes, func(b *testing.B, n int, a []float64) {
		m := newWorkspace(b, be, n)
		defer m.Close()
		clk := ResetClock(b)
		for i := 0; i < b.N; i++ {
			clk.Stop()
			if err := prep(m, n, a); err != nil {
				b.Fatal(err)
			}
			clk.Start()
			if err := op(m); err != nil {
				b.Fatal(err)
			}
		}
		clk.gflops(flops(n))
	})
}

// BenchSolve times Matrix.Solve with a held factor (2n² flops).
func BenchSolve(b *testing.B, be linalg.Backend, sizes []int) {
	eachSize(b, sizes, func(b *testing.B, n int, a []float64) {
		m := newWorkspace(b, be, n)
		defer m.Close()
		if err := m.Set(n, a); err != nil {
			b.Fatal(err)
		}
		if err := m.Cholesky(); err != nil {
			b.Fatal(err)
		}
		x := make([]float64, n)
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = 1
		}
		clk := ResetClock(b)
		for i := 0; i < b.N; i++ {
			if err := m.Solve(rhs, x); err != nil {
				b.Fatal(err)
			}
		}
		clk.gflops(2 * float64(n) * float64(n))
	})
}

// BenchInverse times Matrix.Inverse from a held factor (potri: 2n³/3
// flops); the upload and factorisation before each call are not timed.
func BenchInverse(b *testing.B, be linalg.Backend, sizes []int) {
	benchUntimedPrep(b, be, sizes, func(n int) float64 { return 2 * math.Pow(float64(n), 3) / 3 },
		func(m linalg.Matrix, n int, a []float64) error {
			if err := m.Set(n, a); err != nil {
				return err
			}
			return m.Cholesky()
		},
		linalg.Matrix.Inverse)
}

// BenchGEMM times Matrix.Mul of two n×n matrices (2n³ flops).
func BenchGEMM(b *testing.B, be linalg.Backend, sizes []int) {
	eachSize(b, sizes, func(b *testing.B, n int, a []float64) {
		x, y, c := newWorkspace(b, be, n), newWorkspace(b, be, n), newWorkspace(b, be, n)
		defer x.Close()
		defer y.Close()
		defer c.Close()
		if err := x.Set(n, a); err != nil {
			b.Fatal(err)
		}
		if err := y.Set(n, a); err != nil {
			b.Fatal(err)
		}
		clk := ResetClock(b)
		for i := 0; i < b.N; i++ {
			if err := c.Mul(x, y); err != nil {
				b.Fatal(err)
			}
		}
		clk.gflops(2 * math.Pow(float64(n), 3))
	})
}

// BenchGPStep times one GP.LogLik with gradient on all n observations at
// D = BenchGPDim: kernel build, Cholesky, solve, inverse and the gradient
// reduction. The GFLOP/s reported counts only the Cholesky and the
// inverse (n³/3 + 2n³/3 = n³), so comparing it with their own rates shows
// what the rest costs.
func BenchGPStep(b *testing.B, be linalg.Backend, sizes []int) {
	for _, n := range sizes {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) { BenchGPStepAt(b, be, n) })
	}
}

// BenchGPStepAt is one size of BenchGPStep, timed in b itself.
func BenchGPStepAt(b *testing.B, be linalg.Backend, n int) {
	BenchGPStepKernelAt(b, be, linalg.KernelSE, n)
}

// NormalData returns n standard normal inputs of dimension d (row-major)
// and n standard normal targets, the inputs drawn first.
func NormalData(rng *rand.Rand, n, d int) (x, y []float64) {
	x = make([]float64, n*d)
	y = make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	return x, y
}

// BenchGPStepKernelAt is BenchGPStepAt for the kernel family k (through
// linalg.NewGPKernel).
func BenchGPStepKernelAt(b *testing.B, be linalg.Backend, k linalg.Kernel, n int) {
	const d = BenchGPDim
	x, y := NormalData(rand.New(rand.NewPCG(1, 1)), n, d)
	g, err := linalg.NewGPKernel(be, k, x, n, d, y)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	u := make([]float64, d+2)
	for j := 0; j < d; j++ {
		u[j] = math.Log(float64(d)) / 2
	}
	u[d+1] = math.Log(0.1)
	grad := make([]float64, d+2)
	clk := ResetClock(b)
	for i := 0; i < b.N; i++ {
		if _, err := g.LogLik(nil, u, grad); err != nil {
			b.Fatal(err)
		}
	}
	clk.gflops(math.Pow(float64(n), 3))
}
