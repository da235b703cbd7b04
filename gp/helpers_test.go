package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	_ "github.com/subtemper/subtemper/cuda" // registers "cuda" under -tags cuda
	"github.com/subtemper/subtemper/linalg"
	_ "github.com/subtemper/subtemper/linalg/openblas" // registers "openblas" under -tags openblas
)

// forEachBackend runs f as a subtest on every compiled-in backend, skipping
// one that reports itself unavailable (cuda without a device).
func forEachBackend(t *testing.T, f func(t *testing.T, be linalg.Backend)) {
	t.Helper()
	for _, be := range linalg.Backends() {
		t.Run(be.Name(), func(t *testing.T) {
			if err := unavailable(be); err != nil {
				t.Skip(err)
			}
			f(t, be)
		})
	}
}

// unavailable returns the error of a backend that cannot be used here.
func unavailable(be linalg.Backend) error {
	if a, ok := be.(linalg.Availabler); ok {
		return a.Available()
	}
	return nil
}

// forEachModel runs f on a model of data on each compiled-in backend,
// closed afterwards.
func forEachModel(t *testing.T, data *Data, f func(t *testing.T, m *Model)) {
	t.Helper()
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		f(t, m)
	})
}

// randData returns n random inputs (d columns, N(0, s²)) and targets N(0,1).
func randData(rng *rand.Rand, n, d int, s float64) *Data {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s * rng.NormFloat64()
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	return &Data{N: n, D: d, X: x, Y: y}
}

// denseKernel builds K_SS + σn²I directly from differences of inputs.
func denseKernel(data *Data, subset []int, u []float64) *mat.SymDense {
	if subset == nil {
		subset = make([]int, data.N)
		for i := range subset {
			subset[i] = i
		}
	}
	d, m := data.D, len(subset)
	sf2, sn2 := math.Exp(2*u[d]), math.Exp(2*u[d+1])
	k := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for c := 0; c < d; c++ {
				t := (data.X[subset[i]*d+c] - data.X[subset[j]*d+c]) / math.Exp(u[c])
				s += t * t
			}
			v := sf2 * math.Exp(-0.5*s)
			if i == j {
				v += sn2
			}
			k.SetSym(i, j, v)
		}
	}
	return k
}

// denseLogLik is an independent plain computation of the log marginal
// likelihood and its gradient with respect to u = log θ:
//
//	∂/∂u_k = ½ tr((ααᵀ − K⁻¹) ∂K/∂u_k),
//	∂K_ij/∂log ℓ_c = Kf_ij (x_ic − x_jc)²/ℓ_c², ∂K/∂log σf = 2Kf, ∂K/∂log σn = 2σn² I.
//
// ok is false when gonum's Cholesky fails.
func denseLogLik(data *Data, subset []int, u []float64) (ll float64, grad []float64, ok bool) {
	if subset == nil {
		subset = make([]int, data.N)
		for i := range subset {
			subset[i] = i
		}
	}
	k := denseKernel(data, subset, u)
	m, d := len(subset), data.D
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		return 0, nil, false
	}
	y := mat.NewVecDense(m, nil)
	for i, idx := range subset {
		y.SetVec(i, data.Y[idx])
	}
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, y); err != nil {
		return 0, nil, false
	}
	ll = -0.5*mat.Dot(y, &alpha) - 0.5*ch.LogDet() - 0.5*float64(m)*math.Log(2*math.Pi)
	var kinv mat.SymDense
	if err := ch.InverseTo(&kinv); err != nil {
		return 0, nil, false
	}
	sn2 := math.Exp(2 * u[d+1])
	grad = make([]float64, d+2)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			w := alpha.AtVec(i)*alpha.AtVec(j) - kinv.At(i, j)
			kf := k.At(i, j)
			if i == j {
				kf -= sn2
				grad[d+1] += 0.5 * w * 2 * sn2
			}
			for c := 0; c < d; c++ {
				dx := (data.X[subset[i]*d+c] - data.X[subset[j]*d+c]) / math.Exp(u[c])
				grad[c] += 0.5 * w * kf * dx * dx
			}
			grad[d] += 0.5 * w * 2 * kf
		}
	}
	return ll, grad, true
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// meanSD returns the mean and the sample standard deviation (n−1) of v,
// computed as Standardize does; sd is +Inf when it overflows.
func meanSD(v []float64) (mean, sd float64) {
	m, s, e := scaledMeanSD(v)
	return math.Ldexp(m, e), math.Ldexp(s, e)
}
