package gp

import (
	"math"
	"testing"
)

// TestVarianceSplit checks the map's definition (a = ½log(σf²+σn²), b =
// log(σn²/σf²)), that it and its inverse round-trip, its pullback
// against central differences and its log-Jacobian against the
// determinant of the central-difference Jacobian.
func TestVarianceSplit(t *testing.T) {
	var vs VarianceSplit
	for _, u := range [][]float64{{0.3, 1.2, 0.4}, {-1, 2.5, -6}, {0.1, -3, 4}, {0.5, 40, -40}} {
		d := len(u)
		v := make([]float64, d)
		vs.FromTarget(u, v)
		sf2, sn2 := math.Exp(2*u[d-2]), math.Exp(2*u[d-1])
		if a := 0.5 * math.Log(sf2+sn2); math.Abs(v[d-2]-a) > 1e-12*(1+math.Abs(a)) {
			t.Errorf("u %v: a = %v, want %v", u, v[d-2], a)
		}
		if b := 2 * (u[d-1] - u[d-2]); math.Abs(v[d-1]-b) > 1e-12*(1+math.Abs(b)) {
			t.Errorf("u %v: b = %v, want %v", u, v[d-1], b)
		}
		back := make([]float64, d)
		vs.ToTarget(v, back)
		for i := range u {
			if math.Abs(back[i]-u[i]) > 1e-12*(1+math.Abs(u[i])) {
				t.Errorf("u %v: round trip gives %v", u, back)
			}
		}
		jac := centralJacobian(vs.ToTarget, v)
		gu := []float64{0.7, -1.3, 2.1}
		gv := make([]float64, d)
		vs.Pullback(v, gu, gv)
		for k := range d {
			var want float64
			for i := range d {
				want += jac[i*d+k] * gu[i]
			}
			if math.Abs(gv[k]-want) > 1e-6 {
				t.Errorf("u %v: pullback[%d] = %v, want %v", u, k, gv[k], want)
			}
		}
		// The Jacobian is the identity on the length scales: its
		// determinant is that of the 2×2 block.
		det := jac[(d-2)*d+d-2]*jac[(d-1)*d+d-1] - jac[(d-2)*d+d-1]*jac[(d-1)*d+d-2]
		if got := vs.LogJacobian(v, nil); math.Abs(got-math.Log(math.Abs(det))) > 1e-6 {
			t.Errorf("u %v: log-Jacobian %v, want %v", u, got, math.Log(math.Abs(det)))
		}
	}
}

// TestVarianceSplitTail checks the map's definition (b = Center + Scale·w
// for w ≥ 0, Center + Scale·sinh w below), that it and its inverse
// round-trip, its pullback against central differences of ToTarget, its
// log-Jacobian against the determinant of the central-difference
// Jacobian and the log-Jacobian's gradient against central differences
// of its value, on both sides of w = 0 and far down the left tail.
func TestVarianceSplitTail(t *testing.T) {
	tr := VarianceSplitTail{Center: 1.5, Scale: 0.8}
	for _, v := range [][]float64{{0.3, 1.2, 0.4}, {-1, 0.5, -0.7}, {0.1, -0.3, -3.5}, {0.5, 2, 2.5}, {0.2, 0.1, -1e-9}} {
		d := len(v)
		u := make([]float64, d)
		tr.ToTarget(v, u)
		w := v[d-1]
		want := tr.Center + tr.Scale*w
		if w < 0 {
			want = tr.Center + tr.Scale*math.Sinh(w)
		}
		if b := 2 * (u[d-1] - u[d-2]); math.Abs(b-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("v %v: b = %v, want %v", v, b, want)
		}
		if a := 0.5 * math.Log(math.Exp(2*u[d-2])+math.Exp(2*u[d-1])); math.Abs(a-v[d-2]) > 1e-12 {
			t.Errorf("v %v: a = %v, want %v", v, a, v[d-2])
		}
		back := make([]float64, d)
		tr.FromTarget(u, back)
		for i := range v {
			if math.Abs(back[i]-v[i]) > 1e-10*(1+math.Abs(v[i])) {
				t.Errorf("v %v: round trip gives %v", v, back)
			}
		}
		jac := centralJacobian(tr.ToTarget, v)
		const h = jacobianStep
		gu := []float64{0.7, -1.3, 2.1}
		gv := make([]float64, d)
		tr.Pullback(v, gu, gv)
		for k := range d {
			var want float64
			for i := range d {
				want += jac[i*d+k] * gu[i]
			}
			if math.Abs(gv[k]-want) > 1e-6*(1+math.Abs(want)) {
				t.Errorf("v %v: pullback[%d] = %v, want %v", v, k, gv[k], want)
			}
		}
		det := jac[(d-2)*d+d-2]*jac[(d-1)*d+d-1] - jac[(d-2)*d+d-1]*jac[(d-1)*d+d-2]
		grad := []float64{0.25, 0.25, 0.25} // LogJacobian adds to it
		if got := tr.LogJacobian(v, grad); math.Abs(got-math.Log(math.Abs(det))) > 1e-6 {
			t.Errorf("v %v: log-Jacobian %v, want %v", v, got, math.Log(math.Abs(det)))
		}
		for k := range d {
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			vp[k] += h
			vm[k] -= h
			num := (tr.LogJacobian(vp, nil) - tr.LogJacobian(vm, nil)) / (2 * h)
			if math.Abs(grad[k]-0.25-num) > 1e-6 {
				t.Errorf("v %v: log-Jacobian gradient[%d] = %v, central difference %v", v, k, grad[k]-0.25, num)
			}
		}
	}
	// Far down the tail the log-Jacobian stays finite: log cosh 800 ≈ 800 − log 2.
	if got, want := tr.LogJacobian([]float64{0, 0, -800}, nil), -math.Ln2+math.Log(0.8)+800-math.Ln2; math.Abs(got-want) > 1e-9*want {
		t.Errorf("log-Jacobian at w = −800: %v, want %v", got, want)
	}
}

// TestNewVarianceSplitTail checks the centre and scale taken from a
// Gaussian approximation in u, worked out by hand: b = 2(log σn − log σf),
// var b = 4(var log σn + var log σf − 2 cov), and that a covariance of
// the wrong size or a degenerate scale is refused.
func TestNewVarianceSplitTail(t *testing.T) {
	mode := []float64{0.4, 1.1, 0.3}
	cov := []float64{
		0.5, 0.1, 0.2,
		0.1, 0.04, 0.01,
		0.2, 0.01, 0.25,
	}
	tr, err := NewVarianceSplitTail(mode, cov, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	// b = 2(0.3 − 1.1) = −1.6; var b = 4(0.25 + 0.04 − 0.02) = 1.08.
	if math.Abs(tr.Center+1.6) > 1e-12 || math.Abs(tr.Scale-1.5*math.Sqrt(1.08)) > 1e-12 {
		t.Errorf("centre %v, scale %v; want −1.6, %v", tr.Center, tr.Scale, 1.5*math.Sqrt(1.08))
	}
	if _, err := NewVarianceSplitTail(mode, cov[:4], 1); err == nil {
		t.Error("a covariance of the wrong size was accepted")
	}
	if _, err := NewVarianceSplitTail(mode, cov, 0); err == nil {
		t.Error("a zero scale was accepted")
	}
}

// jacobianStep is centralJacobian's step.
const jacobianStep = 1e-6

// centralJacobian returns the Jacobian ∂u_i/∂v_k of the map toTarget at
// v (row-major, u's index first) by central differences.
func centralJacobian(toTarget func(v, u []float64), v []float64) []float64 {
	d := len(v)
	jac := make([]float64, d*d)
	for k := range d {
		vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
		vp[k] += jacobianStep
		vm[k] -= jacobianStep
		up, um := make([]float64, d), make([]float64, d)
		toTarget(vp, up)
		toTarget(vm, um)
		for i := range d {
			jac[i*d+k] = (up[i] - um[i]) / (2 * jacobianStep)
		}
	}
	return jac
}
