package figures

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// TestLevelBarsSkipIdleLevel fails if the acceptance figure draws a bar
// for a level that made no transitions (level 0 of stt in Neal's form).
func TestLevelBarsSkipIdleLevel(t *testing.T) {
	levels := []subtemper.LevelReport{
		{Level: 0, Transitions: 0, AcceptRate: 0},
		{Level: 1, Transitions: 100, Accepted: 70, AcceptRate: 0.7},
		{Level: 2, Transitions: 100, Accepted: 80, AcceptRate: 0.8},
	}
	labels, vals := levelBars(levels)
	if strings.Join(labels, ",") != "1,2" || len(vals) != 2 || vals[0] != 0.7 || vals[1] != 0.8 {
		t.Errorf("levelBars = %v %v, want levels 1,2 only (level 0 made no transitions)", labels, vals)
	}
	levels[0].Transitions, levels[0].AcceptRate = 50, 0.5
	if labels, _ := levelBars(levels); strings.Join(labels, ",") != "0,1,2" {
		t.Errorf("levelBars = %v, want every level that made transitions", labels)
	}
}

// TestRankAll: every draw gets its own rank, and two chains that do not
// overlap take the lowest and highest ranks respectively.
func TestRankAll(t *testing.T) {
	r := rankAll([][]float64{{11, 12, 13, 14, 15}, {1, 2, 3, 4, 5}})
	want := [][]float64{{5, 6, 7, 8, 9}, {0, 1, 2, 3, 4}}
	for c := range want {
		for s := range want[c] {
			if r[c][s] != want[c][s] {
				t.Fatalf("ranks %v, want %v", r, want)
			}
		}
	}
}

// TestNaturalTicks: an axis drawn in log θ is labelled with round values
// of θ at their logs: 1-2-5 steps over a wide range (Boston's ℓ_zn spans
// 2 to 5000), gonum's ticks over a narrow one.
func TestNaturalTicks(t *testing.T) {
	var labels []string
	for _, tk := range (naturalTicks{}).Ticks(math.Log(2), math.Log(5000)) {
		v, err := strconv.ParseFloat(tk.Label, 64)
		if err != nil || math.Abs(math.Log(v)-tk.Value) > 1e-9 {
			t.Errorf("tick %q at %v: not a natural value at its log", tk.Label, tk.Value)
		}
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, ","); got != "10,100,1000" {
		t.Errorf("ticks over θ in [2, 5000]: %s", got)
	}
	ts := (naturalTicks{}).Ticks(math.Log(0.8), math.Log(2.4))
	n := 0
	for _, tk := range ts {
		if tk.Label != "" {
			n++
		}
	}
	if n < 3 {
		t.Errorf("ticks over θ in [0.8, 2.4]: %v, want at least 3 labels", ts)
	}
}

// TestGPPriorU: the prior drawn over the densities is a density of
// u = log θ in the data's units: it integrates to 1, and standardisation
// moves it by the log of the column's SD.
func TestGPPriorU(t *testing.T) {
	pr, err := (gp.Prior{}).WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	plain := gpPrior(pr, gp.Standardization{}, 2)
	std := gpPrior(pr, gp.Standardization{XSD: []float64{10, 1}, XMean: []float64{0, 0}, YSD: 0.5}, 2)
	for v := range 4 {
		var mass float64
		for u := -20.0; u < 20; u += 0.001 {
			d, _ := plain(v, u)
			mass += d * 0.001
		}
		if math.Abs(mass-1) > 1e-3 {
			t.Errorf("variable %d: the prior's mass over u is %v, want 1", v, mass)
		}
	}
	shift := []float64{math.Log(10), 0, math.Log(0.5), math.Log(0.5)}
	for v, s := range shift {
		a, _ := plain(v, 0.3)
		b, _ := std(v, 0.3+s)
		if math.Abs(a-b) > 1e-12 {
			t.Errorf("variable %d: standardised prior at u + %v is %v, the plain one at u %v", v, s, b, a)
		}
	}
	// σf ~ Gamma(4, 1): the density of u = log σf is σf·p(σf), at σf = 3: 3·3³e⁻³/3! = 0.672.
	if d, _ := plain(2, math.Log(3)); math.Abs(d-81*math.Exp(-3)/6) > 1e-12 {
		t.Errorf("prior density of log σf at σf = 3: %v, want %v", d, 81*math.Exp(-3)/6)
	}
}

// TestPairChoice checks the pair plot's variables: all of a few; of many,
// the last two (sf, sn) and the four with the lowest bulk-ESS, in order.
func TestPairChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(rho float64) [][]float64 { // 2 chains of AR(1) draws: ESS falls as rho grows
		ch := make([][]float64, 2)
		for c := range ch {
			x := 0.0
			for range 400 {
				x = rho*x + math.Sqrt(1-rho*rho)*rng.NormFloat64()
				ch[c] = append(ch[c], x)
			}
		}
		return ch
	}
	few := [][][]float64{mk(0), mk(0), mk(0)}
	if got := pairChoice(few); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("3 variables: %v", got)
	}
	// Variables 1, 4, 6 and 7 mix slowly; 8 and 9 are sf and sn.
	rhos := []float64{0, 0.95, 0, 0, 0.9, 0, 0.97, 0.93, 0, 0}
	var many [][][]float64
	for _, r := range rhos {
		many = append(many, mk(r))
	}
	if got, want := pairChoice(many), []int{1, 4, 6, 7, 8, 9}; !slices.Equal(got, want) {
		t.Errorf("10 variables: %v, want %v", got, want)
	}
}

// TestWriteGP: the figures of a GP fit are written, each as PNG and SVG,
// and a fit without a sampler result is an error.
func TestWriteGP(t *testing.T) {
	data, _, err := gp.Synthetic(24, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	st := subtemper.DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop, st.Levels = 20, 30, nil, 2
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Backend: "gonum", Settings: &st})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	rep, err := fit.Report(subtemper.ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteGP(dir, fit, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"traces", "ranks", "densities", "pairs", "rhat_params", "ess_draws", "accept_levels", "swap_acceptance"} {
		for _, ext := range []string{".png", ".svg"} {
			p := filepath.Join(dir, name+ext)
			if _, err := os.Stat(p); err != nil || !slices.Contains(paths, p) {
				t.Errorf("%s: %v, listed %v", p, err, slices.Contains(paths, p))
			}
		}
	}
	if _, err := WriteGP(dir, &subtemper.GPFit{Data: data}, rep); err == nil {
		t.Error("a fit without a result: no error")
	}
}

// TestWriteContextCancel: a cancellation while the figures of a run with
// many parameters are drawn (its trace figure alone takes seconds) makes
// WriteContext return at once, with an error that wraps the context's,
// each figure drawn before whole and nothing else in the folder; a
// context cancelled before the start draws nothing.
func TestWriteContextCancel(t *testing.T) {
	const nvar, chains, draws = 12, 3, 600
	rng := rand.New(rand.NewPCG(3, 4))
	names := make([]string, nvar)
	for v := range names {
		names[v] = "x" + strconv.Itoa(v)
	}
	nat := make([][][]float64, chains)
	for c := range nat {
		for range draws {
			d := make([]float64, nvar)
			for v := range d {
				d[v] = rng.NormFloat64()
			}
			nat[c] = append(nat[c], d)
		}
	}
	r := Run{Names: names, Draws: nat, Result: &tempering.Result{}, Report: &subtemper.Report{Draws: subtemper.DrawsReport{Summarized: draws}}}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	written, err := WriteContext(ctx, dir, r)
	if took := time.Since(start); took > 50*time.Millisecond+time.Second {
		t.Errorf("WriteContext returned %v after the start, 50 ms after the cancellation; want at once", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want one that wraps context.Canceled", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(written) {
		t.Errorf("%s holds %d entries, %d written (%v)", dir, len(ents), len(written), written)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !slices.Contains(written, filepath.Join(dir, n)) {
			t.Errorf("%s in the folder, not among the figures written", n)
		}
	}
	for i := 0; i+1 < len(written); i += 2 {
		if strings.TrimSuffix(written[i], ".png") != strings.TrimSuffix(written[i+1], ".svg") {
			t.Errorf("written %v: not PNG and SVG pairs", written)
		}
	}

	written, err = WriteContext(ctx, t.TempDir(), r)
	if len(written) > 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: written %v, error %v", written, err)
	}
}
