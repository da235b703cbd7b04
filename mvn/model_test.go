package mvn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/internal/allocs"
	"github.com/subtemper/subtemper/internal/gradcheck"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

// randSigma returns a random SPD matrix with condition number ~ cond.
func randSigma(rng *rand.Rand, d int, cond float64) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	s := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		ev := math.Pow(cond, float64(k)/float64(max(d-1, 1)))
		for i := 0; i < d; i++ {
			for j := 0; j <= i; j++ {
				s.SetSym(i, j, s.At(i, j)+ev*q.At(i, k)*q.At(j, k))
			}
		}
	}
	return s
}

func TestLogLikAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		d    int
		cond float64
	}{{"ar1", 4, 0}, {"random", 6, 10}, {"ill-conditioned", 5, 1e8}, {"d=1", 1, 0}} {
		var sigma *mat.SymDense
		if c.cond == 0 {
			sigma, _ = ARSigma(c.d, 1.3, 0.5)
		} else {
			sigma = randSigma(rng, c.d, c.cond)
		}
		data, _, _, err := Synthetic(37, c.d, 3, SynthOptions{Sigma: sigma, Sigma0: 2})
		if err != nil {
			t.Fatal(err)
		}
		ref := newDenseNormal(t, sigma)
		subset := []int{5, 0, 36, 11, 11, 20}
		const bn = 3
		thetas := make([]float64, bn*c.d)
		for i := range thetas {
			thetas[i] = 2 * rng.NormFloat64()
		}
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, be linalg.Backend) {
				m, err := New(be, data, sigma, Options{Sigma0: 2})
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				for _, s := range [][]int{nil, subset} {
					idx := linalgtest.Indices(s, data.N)
					out := make([]float64, bn)
					grads := make([]float64, bn*c.d)
					if err := m.LogLikBatch(s, thetas, out, grads); err != nil {
						t.Fatal(err)
					}
					for b := 0; b < bn; b++ {
						th := thetas[b*c.d : b*c.d+c.d]
						want := 0.0
						diff := make([]float64, c.d)
						for _, i := range idx {
							for j := range diff {
								diff[j] = data.X[i*c.d+j] - th[j]
							}
							want += ref.LogProb(diff)
						}
						if e := math.Abs(out[b]-want) / math.Max(1, math.Abs(want)); e > 1e-10*math.Max(1, c.cond/1e2) {
							t.Errorf("%s, subset %d, θ_%d: %.15g, dense %.15g (rel err %.2g)", c.name, len(idx), b, out[b], want, e)
						}
						g := make([]float64, c.d)
						single, err := m.LogLik(s, th, g)
						if err != nil || math.Abs(single-out[b]) > 1e-12*math.Abs(want) {
							t.Errorf("%s: single %v (%v), batch %v", c.name, single, err, out[b])
						}
						for j := range g {
							if math.Abs(g[j]-grads[b*c.d+j]) > 1e-12*math.Max(1, math.Abs(g[j])) {
								t.Errorf("%s: single gradient %v, batch %v", c.name, g, grads[b*c.d:b*c.d+c.d])
								break
							}
						}
					}
				}
			})
		})
	}
}

func TestGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		for trial := 0; trial < 5; trial++ {
			d := 1 + rng.IntN(8)
			sigma := randSigma(rng, d, 1+50*rng.Float64())
			data, _, _, err := Synthetic(20+rng.IntN(30), d, uint64(trial), SynthOptions{Sigma: sigma})
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(be, data, sigma, Options{Sigma0: 0.5 + rng.Float64()})
			if err != nil {
				t.Fatal(err)
			}
			u := make([]float64, d)
			for j := range u {
				u[j] = rng.NormFloat64()
			}
			var subset []int
			if trial%2 == 1 {
				subset = rng.Perm(data.N)[:data.N/3]
			}
			grad := make([]float64, d)
			if _, err := m.LogLik(subset, u, grad); err != nil {
				t.Fatal(err)
			}
			fd := gradcheck.FD(func(v []float64) float64 {
				ll, err := m.LogLik(subset, v, nil)
				if err != nil {
					t.Fatal(err)
				}
				return ll
			}, u, 1e-5)
			gradcheck.Check(t, "log-lik", grad, fd, 1e-6)
			m.LogPrior(u, grad)
			gradcheck.Check(t, "log prior", grad, gradcheck.FD(func(v []float64) float64 { return m.LogPrior(v, nil) }, u, 1e-5), 1e-6)
			// The prior against gonum's normal density.
			want := 0.0
			for _, v := range u {
				want += -0.5*v*v/(m.Sigma0()*m.Sigma0()) - 0.5*math.Log(2*math.Pi*m.Sigma0()*m.Sigma0())
			}
			ref := newDenseNormal(t, diagSym(d, m.Sigma0()*m.Sigma0()))
			if got := m.LogPrior(u, nil); math.Abs(got-want) > 1e-12*math.Abs(want) || math.Abs(got-ref.LogProb(u)) > 1e-12*math.Abs(want) {
				t.Errorf("log prior %v, want %v", got, want)
			}
			m.Close()
		}
	})
}

func diagSym(d int, v float64) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		s.SetSym(i, i, v)
	}
	return s
}

// TestPosterior checks the analytic tempered posterior against its
// defining properties, with the model's own density: the gradient of
// β·log-lik + log-prior vanishes at the mean, and its Hessian (by finite
// differences of the gradient) is minus the precision Cov⁻¹.
func TestPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d = 4
	data, sigma, _, err := Synthetic(50, d, 8, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(nil, data, sigma, Options{Sigma0: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		subset []int
		beta   float64
	}{{nil, 1}, {rng.Perm(50)[:7], 1}, {nil, 0.125}, {rng.Perm(50)[:3], 0.3}, {nil, 0}} {
		post, err := m.Posterior(c.subset, c.beta)
		if err != nil {
			t.Fatal(err)
		}
		grad := func(u []float64) []float64 {
			g, gp := make([]float64, d), make([]float64, d)
			if _, err := m.LogLik(c.subset, u, g); err != nil {
				t.Fatal(err)
			}
			m.LogPrior(u, gp)
			for j := range g {
				g[j] = c.beta*g[j] + gp[j]
			}
			return g
		}
		for j, v := range grad(post.Mean) {
			if math.Abs(v) > 1e-9 {
				t.Errorf("β = %v, subset %d: gradient %v at the posterior mean (component %d)", c.beta, len(c.subset), v, j)
			}
		}
		var prec mat.Dense
		if err := prec.Inverse(post.Cov); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < d; j++ {
			up := append([]float64(nil), post.Mean...)
			up[j] += 1
			g := grad(up) // linear in u: exact difference
			for i := 0; i < d; i++ {
				if math.Abs(-g[i]-prec.At(i, j)) > 1e-8*math.Max(1, math.Abs(prec.At(i, j))) {
					t.Errorf("β = %v: Hessian[%d,%d] = %v, precision %v", c.beta, i, j, -g[i], prec.At(i, j))
				}
			}
		}
		if c.beta == 1 && c.subset == nil && math.Abs(prec.At(0, 1)) < 1 {
			t.Errorf("posterior precision is nearly axis-aligned: %v", prec.At(0, 1))
		}
	}
	if _, err := m.Posterior(nil, -1); err == nil {
		t.Error("negative β accepted")
	}
	if _, err := m.Posterior([]int{50}, 1); err == nil {
		t.Error("bad subset accepted")
	}
}

func TestErrorsAndAllocs(t *testing.T) {
	data, sigma, _, err := Synthetic(40, 5, 1, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, sigma, Options{})
		if err != nil {
			t.Fatal(err)
		}
		u := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
		grad := make([]float64, 5)
		for _, bad := range [][]float64{{1, 2}, {0, 0, math.NaN(), 0, 0}, {0, 0, math.Inf(1), 0, 0}} {
			if ll, err := m.LogLik(nil, bad, grad); err == nil || !math.IsInf(ll, -1) {
				t.Errorf("LogLik(%v) = %v, %v", bad, ll, err)
			}
		}
		if ll, err := m.LogLik([]int{0, 40}, u, grad); err == nil || !math.IsInf(ll, -1) {
			t.Errorf("bad subset: %v, %v", ll, err)
		}
		if v := m.LogPrior([]float64{math.NaN(), 0, 0, 0, 0}, grad); !math.IsInf(v, -1) {
			t.Errorf("prior of NaN: %v", v)
		}
		// No allocation per evaluation after the first at a given batch size.
		subset := []int{3, 1, 4, 1, 5, 9, 2, 6}
		thetas := make([]float64, 4*5)
		out, grads := make([]float64, 4), make([]float64, 4*5)
		for _, s := range [][]int{nil, subset} {
			if _, err := m.LogLik(s, u, grad); err != nil {
				t.Fatal(err)
			}
			if err := m.LogLikBatch(s, thetas, out, grads); err != nil {
				t.Fatal(err)
			}
			if a := allocs.PerRun(20, func() {
				m.LogLik(s, u, grad)
				m.LogLikBatch(s, thetas, out, grads)
				m.LogPrior(u, grad)
			}); a != 0 {
				t.Errorf("%v allocations per evaluation", a)
			}
		}
		c, err := m.Clone()
		if err != nil {
			t.Fatal(err)
		}
		a, _ := m.LogLik(subset, u, nil)
		m.Close()
		if b, err := c.LogLik(subset, u, nil); err != nil || a != b {
			t.Errorf("clone: %v (%v), original %v", b, err, a)
		}
		if _, err := m.LogLik(nil, u, nil); err == nil {
			t.Error("closed model evaluates")
		}
	})
	if _, err := New(nil, data, mat.NewSymDense(4, nil), Options{}); err == nil {
		t.Error("Σ of the wrong size accepted")
	}
	if _, err := New(nil, data, mat.NewSymDense(5, nil), Options{}); err == nil {
		t.Error("zero Σ accepted")
	}
	if _, err := New(nil, data, sigma, Options{Sigma0: -1}); err == nil {
		t.Error("negative σ0 accepted")
	}
}

// denseNormal is an independent reference for log N(x | 0, Σ): a gonum/mat
// Cholesky solve on the explicit matrix.
type denseNormal struct {
	ch mat.Cholesky
	d  int
}

func newDenseNormal(t *testing.T, sigma *mat.SymDense) *denseNormal {
	n := &denseNormal{d: sigma.SymmetricDim()}
	if !n.ch.Factorize(sigma) {
		t.Fatal("reference Cholesky failed")
	}
	return n
}

func (n *denseNormal) LogProb(x []float64) float64 {
	var s mat.VecDense
	xv := mat.NewVecDense(n.d, append([]float64(nil), x...))
	if err := n.ch.SolveVecTo(&s, xv); err != nil {
		return math.NaN()
	}
	return -0.5*mat.Dot(xv, &s) - 0.5*n.ch.LogDet() - 0.5*float64(n.d)*math.Log(2*math.Pi)
}
