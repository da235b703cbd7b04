package gp

import (
	"math"
	"testing"
)

// TestModeSplit: on a tabulated mixture 0.3·N(−2, 0.5²) + 0.7·N(2, 0.5²)
// (a second, flat coordinate of 3 points) the mass below the saddle is 0.3
// and the saddle lies between the modes; one mode is an error.
func TestModeSplit(t *testing.T) {
	x := make([]float64, 401)
	for i := range x {
		x[i] = -5 + 10*float64(i)/400
	}
	logN := func(v, mu float64) float64 { return -0.5*((v-mu)/0.5)*((v-mu)/0.5) - math.Log(0.5) }
	lp := make([]float64, 0, 3*len(x))
	for _, v := range x {
		f := math.Log(0.3*math.Exp(logN(v, -2)) + 0.7*math.Exp(logN(v, 2)))
		lp = append(lp, f, f, f)
	}
	_, sad, below, depth, err := ModeSplit(lp, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(below-0.3) > 1e-3 || !(x[sad] > -2 && x[sad] < 2) || !(depth > 5) {
		t.Errorf("mass below %v at x = %v, depth %v; want 0.3 between the modes, deep", below, x[sad], depth)
	}
	one := make([]float64, len(x))
	for i, v := range x {
		one[i] = logN(v, 0)
	}
	if _, _, _, _, err := ModeSplit(one, x); err == nil {
		t.Error("one mode: no error")
	}
	if _, _, _, _, err := ModeSplit(lp[:5], x); err == nil {
		t.Error("ragged grid: no error")
	}
}
