package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/internal/allocs"
	"github.com/subtemper/subtemper/model"
)

// naiveGPLogLik computes log N(y_S | 0, K) with a plain dense loop and
// gonum/mat, independently of the backend's Gram-matrix kernel build.
func naiveGPLogLik(x []float64, n, d int, y []float64, subset []int, u []float64) float64 {
	if subset == nil {
		subset = make([]int, n)
		for i := range subset {
			subset[i] = i
		}
	}
	m := len(subset)
	k := mat.NewSymDense(m, nil)
	sf2, sn2 := math.Exp(2*u[d]), math.Exp(2*u[d+1])
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for c := 0; c < d; c++ {
				diff := (x[subset[i]*d+c] - x[subset[j]*d+c]) / math.Exp(u[c])
				s += diff * diff
			}
			v := sf2 * math.Exp(-0.5*s)
			if i == j {
				v += sn2
			}
			k.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		return math.NaN()
	}
	ys := mat.NewVecDense(m, nil)
	for i, idx := range subset {
		ys.SetVec(i, y[idx])
	}
	var al mat.VecDense
	if err := ch.SolveVecTo(&al, ys); err != nil {
		return math.NaN()
	}
	return -0.5*mat.Dot(ys, &al) - 0.5*ch.LogDet() - 0.5*float64(m)*math.Log(2*math.Pi)
}

func TestCPUGPAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n, d int
		ell  float64
	}{{7, 3, 1}, {40, 5, 0.3}, {30, 2, 3}} {
		x := make([]float64, tc.n*tc.d)
		y := make([]float64, tc.n)
		for i := range x {
			x[i] = rng.NormFloat64() + 5
		}
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		g, err := Default().NewGP(x, tc.n, tc.d, y)
		if err != nil {
			t.Fatal(err)
		}
		u := make([]float64, tc.d+2)
		for j := 0; j < tc.d; j++ {
			u[j] = math.Log(tc.ell) + 0.3*rng.NormFloat64()
		}
		u[tc.d], u[tc.d+1] = 0.2, math.Log(0.3)
		subset := []int{0, 2, 3, 5}
		for _, s := range [][]int{nil, subset} {
			grad := make([]float64, tc.d+2)
			ll, err := g.LogLik(s, u, grad)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveGPLogLik(x, tc.n, tc.d, y, s, u)
			if math.Abs(ll-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("n=%d subset=%v: loglik %v, naive %v", tc.n, s, ll, want)
			}
			for j := range u {
				h := 1e-5
				up := append([]float64(nil), u...)
				up[j] += h
				lp := naiveGPLogLik(x, tc.n, tc.d, y, s, up)
				up[j] -= 2 * h
				lm := naiveGPLogLik(x, tc.n, tc.d, y, s, up)
				fd := (lp - lm) / (2 * h)
				if math.Abs(fd-grad[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("n=%d subset=%v: grad[%d] = %v, finite difference %v", tc.n, s, j, grad[j], fd)
				}
			}
		}
	}
}

// TestRowPoolSplitInvariant: the O(m²) row tasks split over the handle's
// workers give bit-identical results to the serial loop, and agree with
// the naive computation.
func TestRowPoolSplitInvariant(t *testing.T) {
	const n, d = 400, 3
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range x {
		x[i] = 2 * rng.NormFloat64()
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	h, err := Default().NewGP(x, n, d, y)
	if err != nil {
		t.Fatal(err)
	}
	g := h.(*cpuGP)
	if g.pool == nil {
		g.pool = newRowPool(3) // GOMAXPROCS 1: make one to test the split
	}
	u := []float64{0.1, -0.2, 0.3, 0.2, math.Log(0.3)}
	sub := make([]int, 300)
	for i := range sub {
		sub[i] = (7 * i) % n
	}
	for _, s := range [][]int{nil, sub} {
		gpar := make([]float64, d+2)
		llPar, err := g.LogLik(s, u, gpar)
		if err != nil {
			t.Fatal(err)
		}
		pool := g.pool
		g.pool = nil
		gser := make([]float64, d+2)
		llSer, err := g.LogLik(s, u, gser)
		g.pool = pool
		if err != nil {
			t.Fatal(err)
		}
		if llPar != llSer {
			t.Errorf("log-likelihood: parallel %v, serial %v", llPar, llSer)
		}
		for j := range gpar {
			if gpar[j] != gser[j] {
				t.Errorf("gradient[%d]: parallel %v, serial %v", j, gpar[j], gser[j])
			}
		}
		if want := naiveGPLogLik(x, n, d, y, s, u); math.Abs(llPar-want) > 1e-8*math.Abs(want) {
			t.Errorf("log-likelihood %v, naive %v", llPar, want)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMVNReorder: after Reorder, every kind of subset gives what a fresh
// handle gives (up to summation order), runs of the order take the
// contiguous path, bad permutations are refused, and the steady state does
// not allocate.
func TestMVNReorder(t *testing.T) {
	const n, d = 50, 4
	rng := rand.New(rand.NewPCG(9, 9))
	w := make([]float64, n*d)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	ref, err := Default().NewMVN(w, n, d)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Default().NewMVN(w, n, d)
	if err != nil {
		t.Fatal(err)
	}
	perm := rng.Perm(n)
	if err := h.(model.Reorderer).Reorder(perm); err != nil {
		t.Fatal(err)
	}
	tp := []float64{0.3, -0.2, 0.1, 0.5, 1, 2, 3, 4}
	subsets := [][]int{nil, perm[:10], perm[:n], {3, 3, 7}, {0, 1, 2}, perm[5:20]}
	for _, s := range subsets {
		for _, B := range []int{1, 2} {
			o1, o2 := make([]float64, B), make([]float64, B)
			r1, r2 := make([]float64, B*d), make([]float64, B*d)
			if err := ref.SumSq(s, tp, B, o1, r1); err != nil {
				t.Fatal(err)
			}
			if err := h.SumSq(s, tp, B, o2, r2); err != nil {
				t.Fatal(err)
			}
			for b := range B {
				if math.Abs(o1[b]-o2[b]) > 1e-12*math.Abs(o1[b]) {
					t.Errorf("subset %v B=%d: sum %v after reorder, %v before", s, B, o2[b], o1[b])
				}
			}
			for j := range r1 {
				if math.Abs(r1[j]-r2[j]) > 1e-12*(1+math.Abs(r1[j])) {
					t.Errorf("subset %v B=%d: resid[%d] %v after reorder, %v before", s, B, j, r2[j], r1[j])
				}
			}
		}
	}
	for _, c := range []struct {
		s     []int
		start int
		ok    bool
	}{
		{perm[:17], 0, true}, {perm[5:20], 5, true}, {[]int{perm[1]}, 1, true}, {perm[n-3:], n - 3, true},
		{[]int{perm[1], perm[0]}, 0, false}, {[]int{perm[0], perm[2]}, 0, false}, {[]int{perm[n-1], perm[0]}, 0, false},
	} {
		if start, ok := h.(*cpuMVN).run(c.s); ok != c.ok || (ok && start != c.start) {
			t.Errorf("run(%v) = %d, %v, want %d, %v", c.s, start, ok, c.start, c.ok)
		}
	}
	bad := append([]int(nil), perm...)
	bad[3] = bad[4]
	if err := h.(model.Reorderer).Reorder(bad); err == nil {
		t.Error("a permutation with a repeat was accepted")
	}
	if err := h.(model.Reorderer).Reorder(perm[:n-1]); err == nil {
		t.Error("a short permutation was accepted")
	}
	out, res := make([]float64, 1), make([]float64, d)
	allocs := allocs.PerRun(20, func() {
		h.(model.Reorderer).Reorder(perm)
		h.SumSq(perm[:20], tp[:d], 1, out, res)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per reorder + evaluation", allocs)
	}
}

// TestRegistry: gonum is always registered and the default; Backends and
// Names list the same backends in the same order; duplicates and unknown
// names are errors.
func TestRegistry(t *testing.T) {
	if Default() == nil || Default().Name() != DefaultName {
		t.Fatalf("default backend %v, want %q", Default(), DefaultName)
	}
	names := Names()
	bs := Backends()
	if len(bs) != len(names) {
		t.Fatalf("%d backends, %d names", len(bs), len(names))
	}
	for i, b := range bs {
		if b.Name() != names[i] {
			t.Errorf("Backends()[%d] is %q, Names()[%d] is %q", i, b.Name(), i, names[i])
		}
	}
	if err := Register(Default()); err == nil {
		t.Error("registering gonum twice: no error")
	}
	if _, err := Get("no-such-backend"); err == nil {
		t.Error("Get of an unknown backend: no error")
	}
}
