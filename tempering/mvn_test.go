package tempering

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// mvnTarget is the MVN-mean model used to test exactness: x_n ~ N(θ, Σ)
// with a correlated Σ, θ ~ N(0, σ0² I). The log-likelihood is evaluated
// per observation over the subset, as the real mvn model does.
type mvnTarget struct {
	x       [][]float64 // N × D observations
	prec    []float64   // Σ⁻¹, D × D row-major
	logNorm float64     // −½ log det(2πΣ)
	s0      float64     // prior standard deviation
	d, t    []float64   // workspaces
}

// newMVNTarget returns a target with n observations drawn from N(θ, Σ) for
// the fixed θ and Σ below, with prior scale s0.
func newMVNTarget(n int, s0 float64, seed uint64) *mvnTarget {
	theta := []float64{1, -0.5, 0.3}
	sigma := mat.NewSymDense(3, []float64{
		1.0, 0.6, 0.3,
		0.6, 1.0, 0.5,
		0.3, 0.5, 1.0,
	})
	var chol mat.Cholesky
	if !chol.Factorize(sigma) {
		panic("Σ not PD")
	}
	var L mat.TriDense
	chol.LTo(&L)
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		panic(err)
	}
	D := len(theta)
	tg := &mvnTarget{s0: s0, d: make([]float64, D), t: make([]float64, D), prec: make([]float64, D*D)}
	for i := range D {
		for j := range D {
			tg.prec[i*D+j] = inv.At(i, j)
		}
	}
	tg.logNorm = -0.5 * (float64(D)*math.Log(2*math.Pi) + chol.LogDet())
	rng := rand.New(rand.NewPCG(seed, 99))
	z := make([]float64, D)
	for range n {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		x := make([]float64, D)
		for i := range D {
			x[i] = theta[i]
			for j := 0; j <= i; j++ {
				x[i] += L.At(i, j) * z[j]
			}
		}
		tg.x = append(tg.x, x)
	}
	return tg
}

func (m *mvnTarget) Dim() int    { return len(m.d) }
func (m *mvnTarget) NumObs() int { return len(m.x) }

func (m *mvnTarget) LogPrior(u, grad []float64) float64 {
	v := 1 / (m.s0 * m.s0)
	lp := -0.5 * float64(len(u)) * math.Log(2*math.Pi*m.s0*m.s0)
	for i, x := range u {
		lp -= 0.5 * v * x * x
		if grad != nil {
			grad[i] = -v * x
		}
	}
	return lp
}

func (m *mvnTarget) obs(n int, u, grad []float64) float64 {
	D := len(u)
	for i := range D {
		m.d[i] = m.x[n][i] - u[i]
	}
	q := 0.0
	for i := range D {
		s := 0.0
		for j := range D {
			s += m.prec[i*D+j] * m.d[j]
		}
		m.t[i] = s
		q += s * m.d[i]
	}
	if grad != nil {
		for i := range D {
			grad[i] += m.t[i]
		}
	}
	return m.logNorm - 0.5*q
}

func (m *mvnTarget) LogLik(subset []int, u, grad []float64) (float64, error) {
	for i := range grad {
		grad[i] = 0
	}
	ll := 0.0
	if subset == nil {
		for n := range m.x {
			ll += m.obs(n, u, grad)
		}
		return ll, nil
	}
	for _, n := range subset {
		ll += m.obs(n, u, grad)
	}
	return ll, nil
}

func (m *mvnTarget) Clone() (Target, error) {
	c := *m
	c.d = make([]float64, len(m.d))
	c.t = make([]float64, len(m.t))
	return &c, nil
}

// posterior returns the analytic mean and covariance (row-major) of
// p(θ | X_S)^β-tempered posterior: precision I/σ0² + β·|S|·Σ⁻¹, mean
// cov·β·Σ⁻¹·Σ_{n∈S} x_n. subset nil means all observations.
func (m *mvnTarget) posterior(subset []int, beta float64) (mean, cov []float64) {
	D := m.Dim()
	if subset == nil {
		subset = make([]int, len(m.x))
		for i := range subset {
			subset[i] = i
		}
	}
	P := mat.NewDense(D, D, nil)
	sum := make([]float64, D)
	for _, n := range subset {
		for i := range D {
			sum[i] += m.x[n][i]
		}
	}
	for i := range D {
		for j := range D {
			P.Set(i, j, beta*float64(len(subset))*m.prec[i*D+j])
		}
		P.Set(i, i, P.At(i, i)+1/(m.s0*m.s0))
	}
	var C mat.Dense
	if err := C.Inverse(P); err != nil {
		panic(err)
	}
	b := make([]float64, D)
	for i := range D {
		for j := range D {
			b[i] += beta * m.prec[i*D+j] * sum[j]
		}
	}
	mean = make([]float64, D)
	cov = make([]float64, D*D)
	for i := range D {
		for j := range D {
			mean[i] += C.At(i, j) * b[j]
			cov[i*D+j] = C.At(i, j)
		}
	}
	return mean, cov
}
