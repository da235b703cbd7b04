package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSyntheticPrefix(t *testing.T) {
	const d = 5
	small, th1, err := Synthetic(70, d, 42, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	// 200 > 3 panels of 64, so the prefix crosses the panel boundaries.
	big, th2, err := Synthetic(200, d, 42, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range th1 {
		if th1[k] != th2[k] {
			t.Fatalf("θ differs with N: %v vs %v", th1, th2)
		}
	}
	for i := range small.X {
		if small.X[i] != big.X[i] {
			t.Fatalf("X[%d] differs with N", i)
		}
	}
	for i := range small.Y {
		if small.Y[i] != big.Y[i] {
			t.Fatalf("y[%d] differs with N: %v vs %v", i, small.Y[i], big.Y[i])
		}
	}
	other, th3, err := Synthetic(70, d, 43, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	if th3[0] == th1[0] || other.Y[0] == small.Y[0] {
		t.Error("another seed gives the same data")
	}
	if small.Names[0] != "x1" || small.Target != "y" {
		t.Errorf("names %v, %q", small.Names, small.Target)
	}
}

// TestSyntheticDistribution whitens y with an independent Cholesky factor
// of K + σn²I at the true θ: the result must look iid standard normal, and
// the inputs must have standard deviation mean(ℓ).
func TestSyntheticDistribution(t *testing.T) {
	const n, d = 400, 3
	data, theta, err := Synthetic(n, d, 7, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := LogTheta(nil, theta)
	if err != nil {
		t.Fatal(err)
	}
	var ch mat.Cholesky
	if !ch.Factorize(denseKernel(data, nil, u)) {
		t.Fatal("reference Cholesky failed")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var eps mat.VecDense
	if err := eps.SolveVec(&l, mat.NewVecDense(n, append([]float64(nil), data.Y...))); err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	for i := 0; i < n; i++ {
		v := eps.AtVec(i)
		s += v
		s2 += v * v
	}
	if m, v := s/n, s2/n; math.Abs(m) > 4/math.Sqrt(n) || math.Abs(v-1) > 4*math.Sqrt(2.0/n) {
		t.Errorf("whitened y: mean %v, variance %v", m, v)
	}
	sd := (theta[0] + theta[1] + theta[2]) / 3
	var xs2 float64
	for _, v := range data.X {
		xs2 += v * v
	}
	if r := math.Sqrt(xs2/float64(n*d)) / sd; math.Abs(r-1) > 4/math.Sqrt(2*n*d) {
		t.Errorf("sd of X / mean ℓ = %v", r)
	}
}
