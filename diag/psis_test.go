package diag

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestPSISParetoShape fits the shape of ratios drawn from generalised
// Pareto distributions of known shape k.
func TestPSISParetoShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []float64{0.2, 0.5, 0.9} {
		lr := make([]float64, 4000)
		for i := range lr {
			lr[i] = math.Log(gpdQuantile(rng.Float64(), k, 1) + 1)
		}
		lw, kh := PSIS(lr)
		if math.Abs(kh-k) > 0.15 {
			t.Errorf("k = %v: k̂ = %.3f", k, kh)
		}
		mx := math.Inf(-1)
		for _, v := range lr {
			mx = max(mx, v)
		}
		for i, v := range lw {
			if v > mx+1e-12 {
				t.Fatalf("k = %v: weight %d above the largest raw ratio", k, i)
			}
		}
	}
}

// TestPSISLOONormal checks PSIS-LOO on y_i ~ N(μ, 1), μ ~ N(0, 10²), with
// exact posterior draws, against the exact leave-one-out predictive
// densities N(y_i | m_−i, 1 + v_−i).
func TestPSISLOONormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, S, tau2 = 30, 4000, 100.0
	y := make([]float64, n)
	var sum float64
	for i := range y {
		y[i] = 1.5 + rng.NormFloat64()
		sum += y[i]
	}
	post := func(s float64, k int) (m, v float64) { v = 1 / (1/tau2 + float64(k)); return v * s, v }
	pm, pv := post(sum, n)
	ll := make([][]float64, n)
	for i := range ll {
		ll[i] = make([]float64, S)
	}
	for s := range S {
		mu := pm + math.Sqrt(pv)*rng.NormFloat64()
		for i := range n {
			d := y[i] - mu
			ll[i][s] = -0.5*math.Log(2*math.Pi) - 0.5*d*d
		}
	}
	r, err := PSISLOO(ll)
	if err != nil {
		t.Fatal(err)
	}
	var exact float64
	for i := range n {
		m, v := post(sum-y[i], n-1)
		d := y[i] - m
		exact += -0.5*math.Log(2*math.Pi*(1+v)) - 0.5*d*d/(1+v)
	}
	t.Logf("elpd_loo %.4f ± %.4f (p_loo %.3f), exact %.4f; k̂ of point 0 %.3f", r.ELPD, r.SE, r.PLOO, exact, r.K[0])
	if math.Abs(r.ELPD-exact) > 0.05 {
		t.Errorf("elpd_loo %.4f, exact %.4f", r.ELPD, exact)
	}
	if math.Abs(r.PLOO-1) > 0.3 {
		t.Errorf("p_loo %.3f, want about 1 (one parameter)", r.PLOO)
	}
	if r.KOver07 > 0 {
		t.Errorf("%d points with k̂ > 0.7 on a well-behaved model", r.KOver07)
	}
	if r.Draws != S {
		t.Errorf("Draws %d, want the %d given", r.Draws, S)
	}
}

// TestPSISLOOChainsAgainstLoo compares PSISLOOChains with the R package
// loo on autocorrelated chains (testdata/loo, written by
// scripts/compare/loo_reference.R): each point's relative efficiency,
// elpd_loo, p_loo and Pareto k̂. Taking the draws as independent
// (PSISLOO) sizes the tails differently, and the k̂ must then differ.
func TestPSISLOOChainsAgainstLoo(t *testing.T) {
	ll := readFloatRows(t, "testdata/loo/ll.csv", false) // draws × points
	ref := readFloatRows(t, "testdata/loo/loo.csv", true)
	N := len(ll[0])
	pts := make([][]float64, N)
	for i := range pts {
		for _, row := range ll {
			pts[i] = append(pts[i], row[i])
		}
	}
	r, err := PSISLOOChains(pts, 4)
	if err != nil {
		t.Fatal(err)
	}
	indep, err := PSISLOO(pts)
	if err != nil {
		t.Fatal(err)
	}
	var kDiff float64
	for i, want := range ref {
		check := func(what string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("point %d: %s %.12g, loo %.12g", i, what, got, want)
			}
		}
		check("r_eff", r.REff[i], want[0], 1e-10)
		check("elpd_loo", r.Pointwise[i], want[1], 1e-9)
		check("p_loo", r.LPD[i]-r.Pointwise[i], want[2], 1e-9)
		check("Pareto k", r.K[i], want[3], 1e-8)
		kDiff = max(kDiff, math.Abs(indep.K[i]-want[3]))
	}
	if kDiff < 1e-3 {
		t.Errorf("independent-draw PSIS matches loo's r_eff-sized tails (max |Δk̂| %g): the test cannot tell them apart", kDiff)
	}
}

// readFloatRows reads a CSV file of numbers (after a header row if
// header), one slice per row.
func readFloatRows(t *testing.T, path string, header bool) [][]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if header && n == 0 {
			continue
		}
		var row []float64
		for _, f := range strings.Split(line, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				t.Fatalf("%s line %d: %v", path, n+1, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}
