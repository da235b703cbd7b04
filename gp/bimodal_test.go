package gp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// linspace returns n points from a to b inclusive.
func linspace(a, b float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return v
}

// TestLogPosteriorGridMatchesModel checks the quadrature reference against
// the model the samplers use: LogPosteriorGrid equals Model.LogPrior +
// Model.LogLik at random points, on the bimodal data and on random 1-D
// data, with and without jitter.
func TestLogPosteriorGridMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		data   *Data
		jitter float64
	}{
		{"bimodal", BimodalExample(), 0},
		{"random", randData(rng, 17, 1, 1.5), 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(nil, tc.data, Options{Jitter: tc.jitter})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for trial := 0; trial < 20; trial++ {
				u := []float64{-2 + 4*rng.Float64(), -1 + 2*rng.Float64(), -4 + 4*rng.Float64()}
				got, err := LogPosteriorGrid(tc.data, Prior{}, tc.jitter, u[:1], u[1:2], u[2:])
				if err != nil {
					t.Fatal(err)
				}
				ll, err := m.LogLik(nil, u, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := ll + m.LogPrior(u, nil)
				if math.Abs(got[0]-want) > 1e-8*max(1, math.Abs(want)) {
					t.Errorf("u = %.3f: grid %.12g, model %.12g", u, got[0], want)
				}
			}
		})
	}
	if _, err := LogPosteriorGrid(randData(rng, 5, 2, 1), Prior{}, 0, []float64{0}, []float64{0}, []float64{0}); err == nil {
		t.Error("D = 2 data: no error")
	}
}

// bimodalGrid is the quadrature grid over u = (log ℓ, log σf, log σn) for
// BimodalExample: the posterior is below its maximum by more than 20 nats
// on every face (TestBimodalExample checks it).
func bimodalGrid(scale int) (le, lf, ln []float64) {
	return linspace(-3, 3, 80*scale+1), linspace(-2.5, 3.5, 40*scale+1), linspace(-5, 1, 40*scale+1)
}

// modeMass returns the posterior mass with log ℓ below the saddle of the
// log ℓ marginal (ModeSplit), the saddle's log ℓ, and its depth below the
// lower peak (in nats).
func modeMass(t *testing.T, lp []float64, le []float64) (short, cut, depth float64) {
	t.Helper()
	_, sad, short, depth, err := ModeSplit(lp, le)
	if err != nil {
		t.Fatal(err)
	}
	return short, le[sad], depth
}

// TestBimodalExample checks that BimodalExample's posterior is what its
// documentation says: two modes in log ℓ, each with mass in [0.2, 0.8],
// separated by a barrier several nats deep, the quadrature converged (the
// mass changes by less than 0.002 when the grid is refined) and the grid
// wide enough (every face more than 20 nats below the maximum).
func TestBimodalExample(t *testing.T) {
	d := BimodalExample()
	if d.N != 60 || d.D != 1 {
		t.Fatalf("BimodalExample: %d×%d", d.N, d.D)
	}
	var w [2]float64
	for k, scale := range []int{1, 2} {
		le, lf, ln := bimodalGrid(scale)
		lp, err := LogPosteriorGrid(d, Prior{}, 0, le, lf, ln)
		if err != nil {
			t.Fatal(err)
		}
		short, cut, depth := modeMass(t, lp, le)
		w[k] = short
		t.Logf("grid %d×%d×%d: short-length-scale mode mass %.4f, long %.4f; saddle at log ℓ = %.2f, %.2f nats below the lower peak",
			len(le), len(lf), len(ln), short, 1-short, cut, depth)
		if short < 0.2 || short > 0.8 {
			t.Errorf("short-length-scale mode mass %.3f, want within [0.2, 0.8]", short)
		}
		if depth < 3 {
			t.Errorf("barrier %.2f nats deep, want ≥ 3", depth)
		}
		if scale == 1 {
			hi, face := math.Inf(-1), math.Inf(-1)
			nf, nn := len(lf), len(ln)
			for i := range le {
				for j := range lf {
					for k := range ln {
						v := lp[(i*nf+j)*nn+k]
						hi = max(hi, v)
						if i == 0 || i == len(le)-1 || j == 0 || j == nf-1 || k == 0 || k == nn-1 {
							face = max(face, v)
						}
					}
				}
			}
			if hi-face < 20 {
				t.Errorf("grid face only %.1f nats below the maximum", hi-face)
			}
		}
	}
	if math.Abs(w[0]-w[1]) > 0.002 {
		t.Errorf("mass %.4f on the coarse grid, %.4f on the fine one", w[0], w[1])
	}
}
