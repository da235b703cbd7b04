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
		// Jacobian ∂u/∂v by central differences.
		jac := make([]float64, d*d)
		for k := range d {
			h := 1e-6
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			vp[k] += h
			vm[k] -= h
			up, um := make([]float64, d), make([]float64, d)
			vs.ToTarget(vp, up)
			vs.ToTarget(vm, um)
			for i := range d {
				jac[i*d+k] = (up[i] - um[i]) / (2 * h)
			}
		}
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
