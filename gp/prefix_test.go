package gp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/internal/allocs"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
	"github.com/subtemper/subtemper/model"
)

// TestLogLikPrefixes: on the CPU backends LogLikPrefixes gives LogLik's
// value and gradient exactly and each prefix's log-likelihood to
// rounding, without allocating; it refuses prefix lengths out of range.
func TestLogLikPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d = 60, 3
	data := randData(rng, n, d, 1)
	forEachModel(t, data, func(t *testing.T, m *Model) {
		u := m.StartPoints()[0]
		perm := rng.Perm(n)
		for _, s := range [][]int{nil, perm, perm[:40]} {
			size := len(s)
			if s == nil {
				size = n
			}
			ks := []int{size / 2, size / 4, size}
			pre := make([]float64, len(ks))
			g1, g2 := make([]float64, d+2), make([]float64, d+2)
			ll, ok, err := m.LogLikPrefixes(s, u, g1, ks, pre)
			if err != nil {
				t.Fatal(err)
			}
			_, prefix := m.h.(model.PrefixLiker)
			if ok != prefix {
				t.Fatalf("ok = %v on a backend whose handle implements model.PrefixLiker: %v", ok, prefix)
			}
			want, err := m.LogLik(s, u, g2)
			if err != nil || ll != want || !slices.Equal(g1, g2) {
				t.Errorf("subset of %d: %v %v with prefixes, %v %v (%v) without", size, ll, g1, want, g2, err)
			}
			if !ok {
				continue
			}
			idx := linalgtest.Indices(s, n)
			for j, k := range ks {
				want, err := m.LogLik(idx[:k], u, nil)
				if err != nil || math.Abs(pre[j]-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("subset of %d: prefix %d: %v, LogLik of the prefix %v (%v)", size, k, pre[j], want, err)
				}
			}
			if n < 64 { // below the sizes at which gonum's BLAS spawns goroutines
				if a := allocs.PerRun(10, func() { m.LogLikPrefixes(s, u, g1, ks, pre) }); a != 0 {
					t.Errorf("%v allocations per evaluation", a)
				}
			}
		}
		for _, ks := range [][]int{{0}, {n + 1}, {1, 2}} {
			if ll, _, err := m.LogLikPrefixes(nil, u, nil, ks, make([]float64, 1)); err == nil || !math.IsInf(ll, -1) {
				t.Errorf("prefix lengths %v: %v, %v", ks, ll, err)
			}
		}
	})
}

// TestLogLikResume: on the CPU backends LogLikResume after an evaluation
// without gradient gives LogLik's value and gradient, exactly on the same
// subset and to rounding on a prefix, without allocating; it declines
// (ok = false, no error) where the handle cannot resume, for malformed
// arguments, and a second time; an evaluation that fails leaves nothing to
// resume.
func TestLogLikResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, d = 60, 3
	data := randData(rng, n, d, 1)
	forEachModel(t, data, func(t *testing.T, m *Model) {
		_, can := m.h.(model.GradResumer)
		u := m.StartPoints()[0]
		perm := rng.Perm(n)
		g1, g2 := make([]float64, d+2), make([]float64, d+2)
		for _, s := range [][]int{nil, perm, perm[:40]} {
			want, err := m.LogLik(s, u, g2)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.LogLik(s, u, nil); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := m.LogLikResume(s, u[:1], g1); ok {
				t.Errorf("resumed with a point of length 1")
			}
			ll, ok, err := m.LogLikResume(s, u, g1)
			if ok != can {
				t.Fatalf("ok = %v on a backend whose handle implements model.GradResumer: %v", ok, can)
			}
			if !ok {
				continue
			}
			if err != nil || ll != want || !slices.Equal(g1, g2) {
				t.Errorf("subset of %d: resumed %v %v (%v), LogLik %v %v", len(s), ll, g1, err, want, g2)
			}
			if _, ok, _ := m.LogLikResume(s, u, g1); ok {
				t.Errorf("subset of %d: resumed twice", len(s))
			}
			if s == nil {
				continue
			}
			k := len(s) / 2
			want, _ = m.LogLik(s[:k], u, g2)
			m.LogLik(s, u, nil)
			ll, ok, err = m.LogLikResume(s[:k], u, g1)
			if !ok || err != nil || math.Abs(ll-want) > 1e-10*math.Max(1, math.Abs(want)) {
				t.Errorf("prefix of %d of %d: resumed %v (%v, %v), LogLik %v", k, len(s), ll, ok, err, want)
			}
			for j := range g1 {
				if math.Abs(g1[j]-g2[j]) > 1e-8*math.Max(1, math.Abs(g2[j])) {
					t.Errorf("prefix of %d of %d: resumed grad[%d] = %v, LogLik %v", k, len(s), j, g1[j], g2[j])
				}
			}
			if a := allocs.PerRun(10, func() {
				m.LogLik(s, u, nil)
				m.LogLikResume(s[:k], u, g1)
			}); a != 0 {
				t.Errorf("%v allocations per evaluation and resume", a)
			}
		}
		if !can {
			return
		}
		bad := slices.Clone(u)
		bad[d+1] = 800 // σn² overflows: the evaluation fails
		if _, err := m.LogLik(nil, bad, nil); err == nil {
			t.Fatal("evaluation at σn = exp(800) succeeded")
		}
		if _, ok, _ := m.LogLikResume(nil, bad, g1); ok {
			t.Error("resumed after a failed evaluation")
		}
	})
}

// TestLogLikPrefixesWithoutPrefixGP: a handle without model.PrefixLiker (the
// CUDA backend's, here a CPU handle with the method hidden) gives LogLik's
// value with ok = false, and refuses the prefix lengths that a handle with
// it refuses.
func TestLogLikPrefixesWithoutPrefixGP(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	const n, d = 30, 2
	m, err := New(linalg.Default(), randData(rng, n, d, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.h = struct{ linalg.GP }{m.h} // only the GP methods
	u := m.StartPoints()[0]
	pre := make([]float64, 1)
	ll, ok, err := m.LogLikPrefixes(nil, u, nil, []int{n / 2}, pre)
	want, werr := m.LogLik(nil, u, nil)
	if err != nil || werr != nil || ok || ll != want {
		t.Errorf("LogLikPrefixes %v, %v, %v; LogLik %v, %v", ll, ok, err, want, werr)
	}
	for _, c := range []struct {
		subset []int
		k      int
	}{{nil, 0}, {nil, n + 1}, {[]int{3, 1, 4}, 4}} {
		if ll, ok, err := m.LogLikPrefixes(c.subset, u, nil, []int{c.k}, pre); err == nil || ok || !math.IsInf(ll, -1) {
			t.Errorf("prefix of %d of subset %v: %v, %v, %v; want −Inf and an error", c.k, c.subset, ll, ok, err)
		}
	}
}
