package diag

import (
	"math"
	"math/rand/v2"
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
}
