package gp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

var _ tempering.PrefixLiker = (*Model)(nil)

// TestLogLikPrefixes: on the CPU backends LogLikPrefixes gives LogLik's
// value and gradient exactly and each prefix's log-likelihood to
// rounding, without allocating; it refuses prefix lengths out of range.
func TestLogLikPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d = 60, 3
	data := randData(rng, n, d, 1)
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
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
			_, prefix := m.h.(linalg.PrefixGP)
			if ok != prefix {
				t.Fatalf("ok = %v on a backend whose handle implements PrefixGP: %v", ok, prefix)
			}
			want, err := m.LogLik(s, u, g2)
			if err != nil || ll != want || !slices.Equal(g1, g2) {
				t.Errorf("subset of %d: %v %v with prefixes, %v %v (%v) without", size, ll, g1, want, g2, err)
			}
			if !ok {
				continue
			}
			idx := s
			if s == nil {
				idx = make([]int, n)
				for i := range idx {
					idx[i] = i
				}
			}
			for j, k := range ks {
				want, err := m.LogLik(idx[:k], u, nil)
				if err != nil || math.Abs(pre[j]-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("subset of %d: prefix %d: %v, LogLik of the prefix %v (%v)", size, k, pre[j], want, err)
				}
			}
			if n < 64 { // below the sizes at which gonum's BLAS spawns goroutines
				if a := testing.AllocsPerRun(10, func() { m.LogLikPrefixes(s, u, g1, ks, pre) }); a != 0 {
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
