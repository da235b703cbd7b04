package temperingtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/tempering"
)

// Normal is a multivariate normal distribution N(Mean, Cov), sampled
// exactly: the known posterior of an Exact target. Embedding a *Normal
// in a Target gives it Draw and Moments.
type Normal struct {
	mean, cov []float64
	chol      []float64 // lower Cholesky factor of cov, row-major
}

// NewNormal returns N(mean, cov), cov row-major len(mean)×len(mean),
// symmetric positive definite. It copies both.
func NewNormal(mean, cov []float64) (*Normal, error) {
	d := len(mean)
	if d == 0 || len(cov) != d*d {
		return nil, fmt.Errorf("temperingtest: normal needs a mean and a %d×%d covariance, got %d and %d entries", d, d, d, len(cov))
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(d, slices.Clone(cov))) {
		return nil, errors.New("temperingtest: the covariance is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	n := &Normal{mean: slices.Clone(mean), cov: slices.Clone(cov), chol: make([]float64, d*d)}
	for i := range d {
		for j := 0; j <= i; j++ {
			n.chol[i*d+j] = l.At(i, j)
		}
	}
	return n, nil
}

// Draw writes a draw from N(Mean, Cov) into u (len Dim), using rng.
func (n *Normal) Draw(rng *rand.Rand, u []float64) {
	d := len(n.mean)
	z := make([]float64, d)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	for i := range d {
		u[i] = n.mean[i]
		for j := 0; j <= i; j++ {
			u[i] += n.chol[i*d+j] * z[j]
		}
	}
}

// Moments returns copies of the mean and of the covariance (row-major).
func (n *Normal) Moments() (mean, cov []float64) { return slices.Clone(n.mean), slices.Clone(n.cov) }

// Gaussian is an Exact target, the kit's known posterior for kernel
// checks (like Pigeons.jl's toy_mvn_target, but with data, so that every
// driver can run on it): the mean θ ∈ R^D of N observations
//
//	x_n ~ N(θ, Σ), Σ_ij = 0.5^|i−j|,  θ ~ N(0, I),
//
// whose posterior is N(P⁻¹·Σ⁻¹·Σ_n x_n, P⁻¹) with P = I + N·Σ⁻¹ (a
// correlated posterior, of scale about N^{-1/2}). It embeds its posterior
// as a *Normal. The sampling space is θ itself.
type Gaussian struct {
	*Normal
	x       [][]float64 // observations, shared read-only by clones
	prec    []float64   // Σ⁻¹, row-major
	logNorm float64     // −½·log det(2πΣ)
	r, pr   []float64   // workspaces: x_n − θ and Σ⁻¹(x_n − θ)
}

var (
	_ Exact            = (*Gaussian)(nil)
	_ Momenter         = (*Gaussian)(nil)
	_ tempering.Target = (*Gaussian)(nil)
)

// NewGaussian returns the Gaussian target with n ≥ 1 observations in
// dimension dim ≥ 1, drawn from N(θ0, Σ) with θ0 = (1, −0.5, 1, −0.5, …)
// by a random stream seeded with seed.
func NewGaussian(n, dim int, seed uint64) (*Gaussian, error) {
	if n < 1 || dim < 1 {
		return nil, fmt.Errorf("temperingtest: Gaussian needs n ≥ 1 and dim ≥ 1, got %d and %d", n, dim)
	}
	sigma := make([]float64, dim*dim)
	theta0 := make([]float64, dim)
	for i := range dim {
		theta0[i] = 1 - 1.5*float64(i%2)
		for j := range dim {
			sigma[i*dim+j] = math.Pow(0.5, math.Abs(float64(i-j)))
		}
	}
	obs, err := NewNormal(theta0, sigma)
	if err != nil {
		return nil, err
	}
	g := &Gaussian{prec: make([]float64, dim*dim), r: make([]float64, dim), pr: make([]float64, dim)}
	rng := rand.New(rand.NewPCG(seed, 0x6a55))
	sum := mat.NewVecDense(dim, nil)
	for range n {
		x := make([]float64, dim)
		obs.Draw(rng, x)
		g.x = append(g.x, x)
		sum.AddVec(sum, mat.NewVecDense(dim, x))
	}
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(dim, sigma)) // positive definite: NewNormal factorised it
	g.logNorm = -0.5 * (float64(dim)*math.Log(2*math.Pi) + ch.LogDet())
	sinv := mat.NewSymDense(dim, nil)
	if err := ch.InverseTo(sinv); err != nil {
		return nil, err
	}
	for i := range dim {
		for j := range dim {
			g.prec[i*dim+j] = sinv.At(i, j)
		}
	}
	p := mat.NewSymDense(dim, nil)
	p.ScaleSym(float64(n), sinv)
	for i := range dim {
		p.SetSym(i, i, p.At(i, i)+1)
	}
	var pc mat.Cholesky
	cov := mat.NewSymDense(dim, nil)
	if !pc.Factorize(p) || pc.InverseTo(cov) != nil {
		return nil, errors.New("temperingtest: Gaussian: the posterior precision is singular")
	}
	var rhs, mean mat.VecDense
	rhs.MulVec(sinv, sum)
	mean.MulVec(cov, &rhs)
	covData := make([]float64, dim*dim)
	for i := range dim {
		for j := range dim {
			covData[i*dim+j] = cov.At(i, j)
		}
	}
	if g.Normal, err = NewNormal(mean.RawVector().Data, covData); err != nil {
		return nil, err
	}
	return g, nil
}

// Dim returns D.
func (g *Gaussian) Dim() int { return len(g.r) }

// NumObs returns N.
func (g *Gaussian) NumObs() int { return len(g.x) }

// LogPrior returns log N(u | 0, I), with its gradient −u if grad is
// non-nil.
func (g *Gaussian) LogPrior(u, grad []float64) float64 {
	lp := -0.5 * float64(len(u)) * math.Log(2*math.Pi)
	for i, v := range u {
		lp -= 0.5 * v * v
		if grad != nil {
			grad[i] = -v
		}
	}
	return lp
}

// LogLik returns Σ_{n∈subset} log N(x_n | u, Σ) (subset nil: all), with its
// gradient Σ_n Σ⁻¹(x_n − u) if grad is non-nil.
func (g *Gaussian) LogLik(subset []int, u, grad []float64) (float64, error) {
	for i := range grad {
		grad[i] = 0
	}
	k := len(subset)
	if subset == nil {
		k = len(g.x)
	}
	ll := float64(k) * g.logNorm
	d := len(u)
	for s := range k {
		n := s
		if subset != nil {
			n = subset[s]
		}
		for i := range d {
			g.r[i] = g.x[n][i] - u[i]
		}
		for i := range d {
			g.pr[i] = 0
			for j := range d {
				g.pr[i] += g.prec[i*d+j] * g.r[j]
			}
			ll -= 0.5 * g.r[i] * g.pr[i]
		}
		for i := range grad {
			grad[i] += g.pr[i]
		}
	}
	return ll, nil
}

// Clone returns a Gaussian over the same observations with its own
// workspaces.
func (g *Gaussian) Clone() (tempering.Target, error) {
	c := *g
	c.r, c.pr = make([]float64, len(g.r)), make([]float64, len(g.pr))
	return &c, nil
}
