package mvn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/internal/allocs"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
	"github.com/subtemper/subtemper/tempering"
)

var _ tempering.PrefixLiker = (*Model)(nil)

// TestLogLikPrefixes: LogLikPrefixes gives LogLik's value and gradient
// exactly and each prefix's log-likelihood to rounding, for the subsets
// held contiguously before and after Reorder, without allocating; it
// refuses prefix lengths out of range.
func TestLogLikPrefixes(t *testing.T) {
	data, sigma, _, err := Synthetic(50, 4, 3, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, sigma, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		u := []float64{0.3, -0.1, 0.2, 0.5}
		perm := rng.Perm(50)
		for _, reorder := range []bool{false, true} {
			if reorder {
				if err := m.Reorder(perm); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range [][]int{nil, perm, perm[:30]} {
				size := len(s)
				if s == nil {
					size = 50
				}
				ks := []int{size / 2, size, size / 5, size / 2}
				pre := make([]float64, len(ks))
				g1, g2 := make([]float64, 4), make([]float64, 4)
				ll, ok, err := m.LogLikPrefixes(s, u, g1, ks, pre)
				if err != nil {
					t.Fatal(err)
				}
				// Prefixes come from handles that implement PrefixMVN, for
				// subsets held in consecutive rows: all observations before
				// Reorder(perm), prefixes of perm after it.
				_, can := m.h.(linalg.PrefixMVN)
				if want := can && reorder == (s != nil); ok != want {
					t.Fatalf("subset of %d, reordered %v: ok = %v, want %v", size, reorder, ok, want)
				}
				want, err := m.LogLik(s, u, g2)
				if err != nil || ll != want || !slices.Equal(g1, g2) {
					t.Errorf("subset of %d: %v %v with prefixes, %v %v (%v) without", size, ll, g1, want, g2, err)
				}
				if !ok {
					continue
				}
				idx := linalgtest.Indices(s, 50)
				for j, k := range ks {
					want, err := m.LogLik(idx[:k], u, nil)
					if err != nil || math.Abs(pre[j]-want) > 1e-12*math.Abs(want) {
						t.Errorf("subset of %d: prefix %d: %v, LogLik of the prefix %v (%v)", size, k, pre[j], want, err)
					}
				}
				if a := allocs.PerRun(10, func() { m.LogLikPrefixes(s, u, g1, ks, pre) }); a != 0 {
					t.Errorf("%v allocations per evaluation", a)
				}
			}
		}
		for _, ks := range [][]int{{0}, {51}, {1, 2}} {
			if ll, _, err := m.LogLikPrefixes(nil, u, nil, ks, make([]float64, 1)); err == nil || !math.IsInf(ll, -1) {
				t.Errorf("prefix lengths %v: %v, %v", ks, ll, err)
			}
		}
	})
}
