package temperingtest_test

import (
	"math/rand/v2"
	"slices"

	"github.com/subtemper/subtemper/tempering"
)

// toy is a test-only target, a straight-line regression
// y_n ~ N(a + b·t_n, 1), (a, b) ~ N(0, 10² I), that implements every
// optional interface correctly unless flaw names a defect to plant.
type toy struct {
	flaw   string
	ys, ts []float64 // observations in layout order
	at     []int     // at[i]: layout position of observation i

	// The last evaluation, for LogLikResume.
	lastSub  []int
	lastU    []float64
	lastGrad bool
	valid    bool
	cacheU   []float64 // flaw "cache-by-u": the point of cacheLL
	cacheLL  float64
}

func newToy(n int, flaw string) *toy {
	rng := rand.New(rand.NewPCG(5, 5))
	m := &toy{flaw: flaw}
	for i := range n {
		t := float64(i)/float64(n) - 0.5
		m.ts = append(m.ts, t)
		m.ys = append(m.ys, 1+2*t+rng.NormFloat64())
		m.at = append(m.at, i)
	}
	return m
}

func (m *toy) Dim() int    { return 2 }
func (m *toy) NumObs() int { return len(m.ys) }

func (m *toy) LogPrior(u, grad []float64) float64 {
	if grad != nil {
		grad[0], grad[1] = -u[0]/100, -u[1]/100
		if m.flaw == "grad-prior" {
			grad[1] = u[1] / 100
		}
	}
	return -(u[0]*u[0] + u[1]*u[1]) / 200
}

// term adds observation i's log-likelihood and gradient at u.
func (m *toy) term(i int, u []float64, ll *float64, g *[2]float64) {
	j := m.at[i]
	if m.flaw == "reorder-breaks" {
		j = i // forgets the layout
	}
	r := m.ys[j] - u[0] - u[1]*m.ts[j]
	*ll -= r * r / 2
	g[0] += r
	g[1] += r * m.ts[j]
}

func (m *toy) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, _, err := m.LogLikPrefixes(subset, u, grad, nil, nil)
	return ll, err
}

func (m *toy) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	if m.flaw == "panic" {
		panic("toy: planted panic")
	}
	if m.flaw == "cache-by-u" && slices.Equal(u, m.cacheU) {
		return m.cacheLL, false, nil
	}
	n := len(subset)
	if subset == nil {
		n = len(m.ys)
		if m.flaw == "nil-drops-last" {
			n--
		}
	}
	var ll float64
	var g [2]float64
	for k := range n {
		i := k
		if subset != nil {
			i = subset[k]
		}
		m.term(i, u, &ll, &g)
		if m.flaw == "order-matters" && k == 0 {
			ll *= 1.001 // the first observation listed weighs more
		}
		at := k + 1
		if m.flaw == "prefix-off-by-one" {
			at = k + 2
		}
		for j, kj := range ks {
			if kj == at {
				pre[j] = ll
			}
		}
	}
	if grad != nil && m.flaw == "grad-ignores-subset" && subset != nil {
		m.LogLikPrefixes(nil, u, grad, nil, nil)
		return ll, true, nil
	}
	if grad != nil {
		grad[0], grad[1] = g[0], g[1]
		if m.flaw == "grad-lik" {
			grad[1] *= 1.01
		}
	}
	m.lastSub, m.lastU, m.lastGrad, m.valid = subset, slices.Clone(u), grad != nil, true
	m.cacheU, m.cacheLL = slices.Clone(u), ll
	return ll, true, nil
}

// LogLikResume resumes after an evaluation without gradient at the same
// point on a subset of which subset is a prefix (flaw "resume-any-point":
// at any point).
func (m *toy) LogLikResume(subset []int, u, grad []float64) (float64, bool, error) {
	if !m.valid || m.lastGrad || len(subset) > len(m.lastSub) ||
		(subset == nil) != (m.lastSub == nil) || !slices.Equal(subset, m.lastSub[:len(subset)]) {
		return 0, false, nil
	}
	at := u
	if m.flaw == "resume-any-point" {
		at = m.lastU
	} else if !slices.Equal(u, m.lastU) {
		return 0, false, nil
	}
	ll, err := m.LogLik(subset, at, grad)
	return ll, err == nil, err
}

// Reorder lays the observations out in the order perm, in new slices
// (flaw "shared-layout": in place, in the slices its clones share).
func (m *toy) Reorder(perm []int) error {
	ys, ts := make([]float64, len(perm)), make([]float64, len(perm))
	if m.flaw == "shared-layout" {
		ys, ts = m.ys, m.ts
	}
	oldY, oldT := slices.Clone(m.ys), slices.Clone(m.ts)
	for j, i := range perm {
		ys[j], ts[j] = oldY[m.at[i]], oldT[m.at[i]]
	}
	at := make([]int, len(perm))
	for j, i := range perm {
		at[i] = j
	}
	m.ys, m.ts, m.at = ys, ts, at
	return nil
}

func (m *toy) Clone() (tempering.Target, error) {
	return &toy{flaw: m.flaw, ys: m.ys, ts: m.ts, at: m.at}, nil
}

var (
	_ tempering.PrefixLiker = (*toy)(nil)
	_ tempering.GradResumer = (*toy)(nil)
	_ tempering.Reorderer   = (*toy)(nil)
)
