//go:build cuda

package cuda

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
)

// TestGPPrefixLarge checks the prefix log-likelihoods and a resume on a
// prefix against the gonum backend at a size past the conformance suite's
// (several tiles and reduction blocks), on a random subset.
func TestGPPrefixLarge(t *testing.T) {
	be := cudaBackend(t)
	const n, d = 1500, 18
	x, y, u := gpData(n, d, 3)
	sub := rand.New(rand.NewPCG(7, 7)).Perm(n)[:1200]
	g, err := be.NewGP(x, n, d, y)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	r, err := linalg.Default().NewGP(x, n, d, y)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ks := []int{1200, 700, 33, 1}
	pre := make([]float64, len(ks))
	if _, ok, err := g.(model.PrefixLiker).LogLikPrefixes(sub, u, nil, ks, pre); !ok || err != nil {
		t.Fatalf("prefixes: ok = %v, err = %v", ok, err)
	}
	for j, k := range ks {
		want, err := r.LogLik(sub[:k], u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dd := math.Abs(pre[j] - want); dd > 1e-8*math.Max(1, math.Abs(want)) {
			t.Errorf("prefix %d: %.12g, gonum %.12g (diff %.3g)", k, pre[j], want, dd)
		}
	}
	grad, want := make([]float64, d+2), make([]float64, d+2)
	wll, err := r.LogLik(sub[:700], u, want)
	if err != nil {
		t.Fatal(err)
	}
	ll, ok, err := g.(model.GradResumer).LogLikResume(sub[:700], u, grad)
	if !ok || err != nil {
		t.Fatalf("resume on a prefix of 700: ok = %v, err = %v", ok, err)
	}
	if dd := math.Abs(ll - wll); dd > 1e-8*math.Max(1, math.Abs(wll)) {
		t.Errorf("resumed loglik %.12g, gonum %.12g", ll, wll)
	}
	var scale float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for j := range grad {
		if dd := math.Abs(grad[j] - want[j]); dd > 1e-7*math.Max(1, scale) {
			t.Errorf("resumed grad[%d] = %v, gonum %v", j, grad[j], want[j])
		}
	}
	// The handle works on after the buffers were swapped.
	full, err := g.LogLik(nil, u, grad)
	rfull, _ := r.LogLik(nil, u, want)
	if err != nil || math.Abs(full-rfull) > 1e-8*math.Abs(rfull) {
		t.Errorf("after the resume, loglik %v (%v), gonum %v", full, err, rfull)
	}
}

// TestOutOfMemory: a GP whose kernel matrix cannot fit the device is
// refused before anything large is allocated, with what it needs and what
// is free, wrapping model.ErrOutOfMemory.
func TestOutOfMemory(t *testing.T) {
	be := cudaBackend(t)
	const n = 1 << 18 // 8n² = 512 GiB
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = float64(i) / n
	}
	_, err := be.NewGP(x, n, 1, y)
	if !errors.Is(err, model.ErrOutOfMemory) {
		t.Fatalf("NewGP of %d points: %v; want an error wrapping model.ErrOutOfMemory", n, err)
	}
	for _, s := range []string{"512.0 GiB", "free"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	t.Log(err)
}

var (
	concSizes   = flag.String("cuda.conc.sizes", "2048,8192", "BenchmarkGPConcurrent: comma-separated orders N")
	concHandles = flag.String("cuda.conc.handles", "1,2,4", "BenchmarkGPConcurrent: comma-separated numbers of handles H")
	concGrad    = flag.Bool("cuda.conc.grad", true, "BenchmarkGPConcurrent: evaluate the gradient too (false: the log-likelihood alone, as an independence sampler's transition does)")
)

// BenchmarkGPConcurrent times rounds of one GP.LogLik (with gradient unless
// -cuda.conc.grad=false) on each of H handles, run from H goroutines at
// once (each handle has its own stream), against one handle: s/eval is the
// wall time of a round divided by H, so it falls with H as far as the
// handles' work overlaps on the device, and equals the single handle's
// where the evaluations serialise; s/round is the wall time of a round,
// what one iteration of H chains costs per log density each.
func BenchmarkGPConcurrent(b *testing.B) {
	be := cudaBackend(b)
	ns, hs := benchInts(b, "-cuda.conc.sizes", *concSizes), benchInts(b, "-cuda.conc.handles", *concHandles)
	for _, n := range ns {
		for _, h := range hs {
			b.Run(fmt.Sprintf("backend=cuda/N=%d/handles=%d/grad=%t", n, h, *concGrad), func(b *testing.B) {
				const d = 8
				x, y, u := gpData(n, d, 5)
				grad := func() []float64 { // nil: the log-likelihood alone
					if *concGrad {
						return make([]float64, d+2)
					}
					return nil
				}
				gs := make([]linalg.GP, h)
				for i := range gs {
					var err error
					if gs[i], err = be.NewGP(x, n, d, y); err != nil {
						b.Fatal(err)
					}
					defer gs[i].Close()
					if _, err := gs[i].LogLik(nil, u, grad()); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					var wg sync.WaitGroup
					for _, g := range gs {
						wg.Go(func() {
							if _, err := g.LogLik(nil, u, grad()); err != nil {
								b.Error(err)
							}
						})
					}
					wg.Wait()
				}
				round := time.Since(start).Seconds() / float64(b.N)
				b.ReportMetric(round/float64(h), "s/eval")
				b.ReportMetric(round, "s/round")
			})
		}
	}
}

// benchInts parses a benchmark flag's comma-separated positive integers.
func benchInts(b *testing.B, name, list string) []int {
	var v []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("%s: %q", name, f)
		}
		v = append(v, n)
	}
	return v
}

var largeSizes = flag.String("cuda.sizes", "32768", "BenchmarkGPStepLarge: comma-separated orders N")

// BenchmarkGPStepLarge times one GP.LogLik with gradient on all N
// observations at D = 8 for the orders of -cuda.sizes (past benchSizes:
// the largest fits), and reports the device memory the handle needs
// (GPMemory, GiB) beside the time.
func BenchmarkGPStepLarge(b *testing.B) {
	be := cudaBackend(b)
	for _, n := range benchInts(b, "-cuda.sizes", *largeSizes) {
		b.Run(fmt.Sprintf("backend=cuda/D=8/N=%d", n), func(b *testing.B) {
			const d = 8
			x, y, u := gpData(n, d, 9)
			g, err := be.NewGP(x, n, d, y)
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			grad := make([]float64, d+2)
			if _, err := g.LogLik(nil, u, grad); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := g.LogLik(nil, u, grad); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(GPMemory(n, d))/(1<<30), "GiB")
		})
	}
}
