package subtemper

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// evalData is a small regression dataset of 2 inputs.
func evalData() *GPData {
	x := []float64{0.1, 0.9, 0.4, 0.2, 0.8, 0.5, 0.3, 0.7, 0.6, 0.05, 0.95, 0.35}
	y := []float64{0.3, -0.2, 0.9, 0.1, -0.7, 0.4}
	return &GPData{N: 6, D: 2, X: x, Y: y}
}

// seLogML is log N(y | 0, K + σn²I) for the squared-exponential kernel
// k(x, x') = σf² exp(−½ Σ_d (x_d − x'_d)²/ℓ_d²), computed here from its
// definition with a dense Cholesky factorisation.
func seLogML(t *testing.T, d *GPData, theta []float64) float64 {
	t.Helper()
	sf, sn := theta[d.D], theta[d.D+1]
	k := mat.NewSymDense(d.N, nil)
	for i := range d.N {
		for j := i; j < d.N; j++ {
			var r2 float64
			for c := range d.D {
				z := (d.X[i*d.D+c] - d.X[j*d.D+c]) / theta[c]
				r2 += z * z
			}
			v := sf * sf * math.Exp(-r2/2)
			if i == j {
				v += sn * sn
			}
			k.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		t.Fatal("the kernel matrix is not positive definite")
	}
	alpha := mat.NewVecDense(d.N, nil)
	if err := ch.SolveVecTo(alpha, mat.NewVecDense(d.N, d.Y)); err != nil {
		t.Fatal(err)
	}
	return -0.5*mat.Dot(mat.NewVecDense(d.N, d.Y), alpha) - 0.5*ch.LogDet() - float64(d.N)/2*math.Log(2*math.Pi)
}

// TestEvalGP: the log marginal likelihood is the squared-exponential
// GP's from its definition, the gradient its finite differences in
// u = log θ, the log-Jacobian Σ log θ, and LogPrior − LogJacobian the
// paper's prior density of θ (log ℓ_d ~ N(0.5, 1), σf ~ Gamma(4, rate 1),
// σn ~ Gamma(2, rate 2)).
func TestEvalGP(t *testing.T) {
	d := evalData()
	theta := []float64{0.7, 1.3, 0.9, 0.4}
	ev, err := EvalGP(d, theta, GPEvalOptions{Backend: "gonum"})
	if err != nil {
		t.Fatal(err)
	}
	if want := seLogML(t, d, theta); math.Abs(ev.LogMarginalLikelihood-want) > 1e-9*math.Abs(want) {
		t.Errorf("log marginal likelihood %v, want %v", ev.LogMarginalLikelihood, want)
	}
	const h = 1e-5
	for i := range theta {
		up, dn := append([]float64(nil), theta...), append([]float64(nil), theta...)
		up[i], dn[i] = theta[i]*math.Exp(h), theta[i]*math.Exp(-h)
		fd := (seLogML(t, d, up) - seLogML(t, d, dn)) / (2 * h)
		if math.Abs(ev.Gradient[i]-fd) > 1e-6*max(1, math.Abs(fd)) {
			t.Errorf("gradient %d: %v, finite differences %v", i, ev.Gradient[i], fd)
		}
	}
	var jac float64
	for _, v := range theta {
		jac += math.Log(v)
	}
	if math.Abs(ev.LogJacobian-jac) > 1e-12 {
		t.Errorf("log-Jacobian %v, want %v", ev.LogJacobian, jac)
	}
	lp := distuv.Gamma{Alpha: 4, Beta: 1}.LogProb(theta[2]) + distuv.Gamma{Alpha: 2, Beta: 2}.LogProb(theta[3])
	for _, l := range theta[:2] {
		lp += distuv.LogNormal{Mu: 0.5, Sigma: 1}.LogProb(l)
	}
	if got := ev.LogPrior - ev.LogJacobian; math.Abs(got-lp) > 1e-9 {
		t.Errorf("log prior of θ %v, want %v", got, lp)
	}
}

// TestEvalGPErrors: a backend that is not compiled in is a *ModelError;
// a θ of the wrong length or with a value that is not positive is an
// error, and not the model's set-up's.
func TestEvalGPErrors(t *testing.T) {
	d := evalData()
	var me *ModelError
	if _, err := EvalGP(d, []float64{1, 1, 1, 1}, GPEvalOptions{Backend: "nosuch"}); !errors.As(err, &me) {
		t.Errorf("unknown backend: error %v, want a *ModelError", err)
	}
	for _, theta := range [][]float64{{1, 1, 1}, {1, 0, 1, 1}, {1, 1, math.Inf(1), 1}} {
		_, err := EvalGP(d, theta, GPEvalOptions{Backend: "gonum"})
		if err == nil || errors.As(err, &me) {
			t.Errorf("θ = %v: error %v, want one of θ", theta, err)
		}
	}
}
