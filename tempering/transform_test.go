package tempering

import (
	"context"
	"math"
	"testing"

	"github.com/subtemper/subtemper/gp"
)

// sinhFirst maps u_0 = sinh(v_0) (the other coordinates unchanged): a
// transform whose log-Jacobian, log cosh v_0, is not constant, so that
// leaving it out (noJacobian) changes the distribution sampled.
type sinhFirst struct{ noJacobian bool }

func (sinhFirst) ToTarget(v, u []float64) {
	copy(u, v)
	u[0] = math.Sinh(v[0])
}

func (sinhFirst) FromTarget(u, v []float64) {
	copy(v, u)
	v[0] = math.Asinh(u[0])
}

func (sinhFirst) Pullback(v, gu, gv []float64) {
	copy(gv, gu)
	gv[0] = gu[0] * math.Cosh(v[0])
}

func (s sinhFirst) LogJacobian(v, grad []float64) float64 {
	if s.noJacobian {
		return 0
	}
	if grad != nil {
		grad[0] += math.Tanh(v[0])
	}
	return math.Log(math.Cosh(v[0]))
}

// TestReparamGradient checks Reparam's log prior and log-likelihood
// gradients with respect to v against central differences of their
// values, for both transforms of the exactness suite.
func TestReparamGradient(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	for _, tc := range []struct {
		name string
		tr   Transform
	}{{"sinh", sinhFirst{}}, {"variance-split", gp.VarianceSplit{}}} {
		t.Run(tc.name, func(t *testing.T) {
			r := Reparam(tg, tc.tr)
			d := r.Dim()
			v := []float64{0.7, -0.3, 1.1}
			f := func(v []float64) float64 {
				ll, err := r.LogLik(nil, v, nil)
				if err != nil {
					t.Fatal(err)
				}
				return ll + r.LogPrior(v, nil)
			}
			gl, gp := make([]float64, d), make([]float64, d)
			if _, err := r.LogLik(nil, v, gl); err != nil {
				t.Fatal(err)
			}
			r.LogPrior(v, gp)
			for i := range d {
				h := 1e-5
				vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
				vp[i] += h
				vm[i] -= h
				num := (f(vp) - f(vm)) / (2 * h)
				if got := gl[i] + gp[i]; math.Abs(got-num) > 1e-6*(1+math.Abs(num)) {
					t.Errorf("∂/∂v_%d = %.9g, central difference %.9g", i, got, num)
				}
			}
		})
	}
}

// TestRunTransformDraws checks that with Settings.Transform the draws are
// kept in the target's space: every draw maps to a chain-space point that
// maps back to it, and starting points given in u are where the chains
// start.
func TestRunTransformDraws(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	init := []float64{3, -0.2, 0.3} // v_0 = asinh 3 ≈ 1.82
	s := &Settings{
		Sampler: Sampler{Driver: None, Kernel: HMC{StepSize: 1e-4, Steps: 1, Adapt: AdaptNone}, Transform: sinhFirst{}},
		Control: Control{Chains: 2, Draws: 1, Warmup: 0, Init: [][]float64{init}, Seed: 3},
	}
	res, err := Run(context.Background(), tg, s)
	if err != nil {
		t.Fatal(err)
	}
	// One leapfrog step of 1e-4 from init moves u_0 by a tiny
	// amount in u: a draw recorded in v (asinh) would differ from sinh's
	// image by far more.
	for c, dr := range res.Draws {
		u := dr[0]
		if math.Abs(u[0]-init[0]) > 0.6 {
			t.Errorf("chain %d: first draw %v too far from its start %v: not mapped back to u?", c, u, init)
		}
	}
	// A starting point the transform cannot map is refused.
	s.Init = [][]float64{{math.Inf(1), 0, 0}}
	if _, err := Run(context.Background(), tg, s); err == nil {
		t.Error("an infinite starting point was accepted")
	}
}

// TestCovInChainSpace checks the linearised covariance against the
// Jacobian of sinhFirst worked out by hand: ∂v_0/∂u_0 = 1/√(1 + u_0²).
func TestCovInChainSpace(t *testing.T) {
	m := []float64{0.75, 0, 0}
	cov := []float64{4, 1, 0, 1, 2, 0, 0, 0, 1}
	got := CovInChainSpace(sinhFirst{}, m, cov)
	j := 1 / math.Sqrt(1+0.75*0.75)
	want := []float64{4 * j * j, j, 0, j, 2, 0, 0, 0, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-7 {
			t.Errorf("entry %d: %.9g, want %.9g", i, got[i], want[i])
		}
	}
}
