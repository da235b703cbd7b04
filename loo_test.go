package subtemper_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// without returns d with observation i left out.
func without(d *gp.Data, i int) *gp.Data {
	o := &gp.Data{N: d.N - 1, D: d.D, Names: d.Names, Target: d.Target}
	for j := range d.N {
		if j != i {
			o.X = append(o.X, d.X[j*d.D:(j+1)*d.D]...)
			o.Y = append(o.Y, d.Y[j])
		}
	}
	return o
}

// TestLOOBruteForce checks PSIS-LOO from one fit against brute-force
// leave-one-out: for each point i, the posterior given the other points
// sampled anew, and p(y_i | y_−i) = mean over its draws of
// p(y_i | y_−i, θ). On 16 points of a 1-D GP regression the two agree
// within 2 standard errors of elpd_loo and within 0.15 nats. Under the
// race detector it runs shorter and compares the first 4 points only,
// each within 0.1 nats.
func TestLOOBruteForce(t *testing.T) {
	all, err := gp.ReadCSVFile(filepath.Join("tempering", "testdata", "gp1d.csv"), gp.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := all.Prefix(16)
	if err != nil {
		t.Fatal(err)
	}
	st := tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.None}, Control: tempering.Control{Warmup: 200, Draws: 3000, Seed: 5}}
	points := data.N
	if raceEnabled {
		st.Draws, points = 1000, 4
	}
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Settings: &st})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	l, err := fit.LOO(context.Background(), subtemper.LOOOptions{Draws: 9000})
	if err != nil {
		t.Fatal(err)
	}
	// The same number of draws from each chain: k/chains of them, so the
	// report counts chains·⌊k/chains⌋, not k.
	few, err := fit.LOO(context.Background(), subtemper.LOOOptions{Draws: 101})
	if err != nil {
		t.Fatal(err)
	}
	if c := len(fit.Draws); few.Draws != c*(101/c) || subtemper.NewLOOReport(few).Draws != few.Draws {
		t.Errorf("LOO of 101 draws from %d chains: Draws %d, report %d; want %d", c, few.Draws, subtemper.NewLOOReport(few).Draws, c*(101/c))
	}
	full, err := gp.New(linalg.Default(), data, gp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	ld := make([]float64, data.N)
	var brute float64
	pts := make([]float64, data.N)
	for i := range points {
		m, err := gp.New(linalg.Default(), without(data, i), gp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := st
		s.Warmup, s.Draws, s.Seed = 150, 600, uint64(100+i)
		res, err := tempering.Run(context.Background(), m, &s)
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		var lp []float64
		for _, ch := range res.Draws {
			for _, u := range ch {
				if err := full.LOOLogDensities(u, ld); err != nil {
					t.Fatal(err)
				}
				lp = append(lp, ld[i])
			}
		}
		mx := math.Inf(-1)
		for _, v := range lp {
			mx = math.Max(mx, v)
		}
		var sum float64
		for _, v := range lp {
			sum += math.Exp(v - mx)
		}
		pts[i] = mx + math.Log(sum/float64(len(lp)))
		brute += pts[i]
	}
	var maxDiff float64
	for i := range points {
		maxDiff = math.Max(maxDiff, math.Abs(pts[i]-l.Pointwise[i]))
	}
	t.Logf("PSIS-LOO elpd %.4f ± %.4f (p_loo %.3f, max k %.3f), brute force %.4f; largest pointwise difference %.4f",
		l.ELPD, l.SE, l.PLOO, maxK(l), brute, maxDiff)
	if raceEnabled {
		if maxDiff > 0.1 {
			t.Errorf("pointwise elpd_loo and brute force differ by up to %.4f", maxDiff)
		}
		return
	}
	if math.Abs(l.ELPD-brute) > 2*l.SE {
		t.Errorf("elpd_loo %.4f ± %.4f, brute force %.4f: more than 2 standard errors apart", l.ELPD, l.SE, brute)
	}
	if math.Abs(l.ELPD-brute) > 0.15 {
		t.Errorf("elpd_loo %.4f, brute force %.4f: more than 0.15 nats apart", l.ELPD, brute)
	}
}

func maxK(l *diag.LOO) float64 {
	m := math.Inf(-1)
	for _, k := range l.K {
		m = math.Max(m, k)
	}
	return m
}

// TestLogEvidenceStandardized checks that a standardised fit reports the
// log evidence of the data in their own units: the standardised target's
// minus N·log(y SD), the Jacobian, for the whole and (for SPT, whose
// stages condition on subsets) stage by stage with the leg.
func TestLogEvidenceStandardized(t *testing.T) {
	data, err := gp.ReadCSVFile(filepath.Join("tempering", "testdata", "gp1d.csv"), gp.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, drv := range []tempering.Driver{tempering.PT, tempering.SPT} {
		st := tempering.Settings{
			Sampler: tempering.Sampler{Driver: drv, Kernel: tempering.MH{}},
			Control: tempering.Control{Warmup: 100, Draws: 200, Seed: 2, Evidence: &tempering.EvidenceSettings{Particles: 16, Temperatures: 10}},
		}
		fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Standardize: true, Settings: &st})
		if err != nil {
			t.Fatal(err)
		}
		raw, got := fit.Result.Evidence, fit.LogEvidence()
		fit.Close()
		shift := float64(data.N) * math.Log(fit.Std.YSD)
		if math.Abs(got.LogZ-(raw.LogZ-shift)) > 1e-9 || math.Abs(got.Backward-(raw.Backward-shift)) > 1e-9 {
			t.Errorf("%v: log evidence %v (backward %v), want %v (%v)", drv, got.LogZ, got.Backward, raw.LogZ-shift, raw.Backward-shift)
		}
		if drv == tempering.SPT {
			for m, s := range got.Stages {
				d := float64(s.SizeColder-s.Size) * math.Log(fit.Std.YSD)
				if math.Abs(s.Forward-(raw.Stages[m].Forward-d)) > 1e-9 {
					t.Errorf("stage %d: %v, want %v", m+1, s.Forward, raw.Stages[m].Forward-d)
				}
			}
		}
	}
}

// TestLOOQuadrature checks PSIS-LOO on all 30 points of the 1-D GP data
// against exact leave-one-out by quadrature, Σ_i log Z(y) − log Z(y_−i)
// (scripts/evidence-ref/quadrature.py): within 2 standard errors of
// elpd_loo and within 0.15 nats.
func TestLOOQuadrature(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("tempering", "testdata", "evidence.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct {
		ELPD *float64 `json:"elpd_loo"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	want := ref["gp1d"].ELPD
	if want == nil {
		t.Fatal("tempering/testdata/evidence.json has no elpd_loo for gp1d")
	}
	data, err := gp.ReadCSVFile(filepath.Join("tempering", "testdata", "gp1d.csv"), gp.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.None}, Control: tempering.Control{Warmup: 200, Draws: 2000, Seed: 9}}
	if raceEnabled {
		st.Draws = 700
	}
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Settings: &st})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	l, err := fit.LOO(context.Background(), subtemper.LOOOptions{Draws: 6000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PSIS-LOO elpd %.4f ± %.4f (p_loo %.3f, max k %.3f), quadrature %.4f", l.ELPD, l.SE, l.PLOO, maxK(l), *want)
	if d := math.Abs(l.ELPD - *want); d > 2*l.SE || d > 0.15 {
		t.Errorf("elpd_loo %.4f ± %.4f, quadrature %.4f", l.ELPD, l.SE, *want)
	}
}
