package diag

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// TestPaperHand checks the paper's R̂ and ESS on 2 chains × 3 draws,
// computed by hand:
//
//	chains {1, 2, 3} and {3, 4, 5}: S = 3, C = 2
//	chain means 2 and 4, grand mean 3
//	B   = S/(C−1)·((2−3)² + (4−3)²) = 3·2 = 6
//	W   = mean of the sample variances (1+0+1)/2 = 1 and 1, = 1
//	Var = (S−1)/S·W + B/S = 2/3 + 2 = 8/3
//	R̂   = sqrt(Var/W) = sqrt(8/3) = 1.632993161855452
//	ESS = C·S·min(1, Var/B) = 6·min(1, 4/9) = 8/3
//
// (posterior's rhat_basic(matrix(c(1,2,3,3,4,5), 3, 2), split = FALSE)
// prints 1.63299316185545.)
func TestPaperHand(t *testing.T) {
	x := [][]float64{{1, 2, 3}, {3, 4, 5}}
	if got, want := RhatPaper(x), math.Sqrt(8.0/3); !near(got, want, 1e-15) {
		t.Errorf("RhatPaper = %.16g, want %.16g", got, want)
	}
	if got, want := ESSPaper(x), 8.0/3; !near(got, want, 1e-15) {
		t.Errorf("ESSPaper = %.16g, want %.16g", got, want)
	}
	// Identical chain means: B = 0, so ESS = C·S.
	if got := ESSPaper([][]float64{{1, 2, 3}, {3, 2, 1}}); got != 6 {
		t.Errorf("ESSPaper with B = 0: %v, want 6", got)
	}
}

// TestRankHand checks the rank-normalized split R̂ on one chain {1, 2, 3, 4}:
//
//	split into {1, 2} and {3, 4}; ranks 1..4 of S = 4 draws
//	z = Φ⁻¹((r − 3/8)/(4 + 1/4)) = −a, −b, b, a with
//	a = Φ⁻¹(3.625/4.25) = 1.049131397963971, b = 0.299306910465667
//	chain means ∓(a+b)/2; B = n·var(means) = 2·(a+b)²/2 = (a+b)²
//	W = (a−b)²/2 (both halves)
//	R̂ = sqrt((B/W + n − 1)/n) = sqrt((2(a+b)²/(a−b)² + 1)/2)
//	   = 1.93236168175088
//
// Folding about the median 2.5 gives {1.5, 0.5, 0.5, 1.5}, halves of equal
// ranks, so the tail R̂ is sqrt((0 + 1)/2) and Rhat is the bulk one.
// posterior's rhat(matrix(1:4)) prints 1.93236168175088.
func TestRankHand(t *testing.T) {
	a, b := 1.049131397963971, 0.299306910465667
	want := math.Sqrt((2*(a+b)*(a+b)/((a-b)*(a-b)) + 1) / 2)
	x := [][]float64{{1, 2, 3, 4}}
	if got := RhatBulk(x); !near(got, want, 1e-14) {
		t.Errorf("RhatBulk = %.16g, want %.16g", got, want)
	}
	if got := RhatTail(x); !near(got, math.Sqrt(0.5), 1e-15) {
		t.Errorf("RhatTail = %.16g, want sqrt(1/2)", got)
	}
	if got := Rhat(x); !near(got, want, 1e-14) {
		t.Errorf("Rhat = %.16g, want %.16g", got, want)
	}
	// Ties get their average rank: ranks 2.5, 1, 2.5 of S = 3.
	z := RankNormalize([][]float64{{2, 1, 2}})
	hi, lo := mathext.NormalQuantile((2.5-0.375)/3.25), mathext.NormalQuantile((1-0.375)/3.25)
	if z[0][0] != hi || z[0][2] != hi || z[0][1] != lo {
		t.Errorf("RankNormalize with ties = %v, want [%v %v %v]", z, hi, lo, hi)
	}
}

// TestESSHand checks the Geyer sequence where it is trivial. With 3 draws
// per split chain the sequence stops at once (maxT = 0) and posterior's
// τ̂ = −1 + 2·ρ̂₀ + ρ̂₀ = 2, whatever the draws, so ESS = C·n/2: for one
// chain of 6 draws, split into 2 × 3, ESS = 3 (posterior's
// ess_bulk(c(3,1,4,1,5,9)) prints 3). An alternating chain (ρ̂₁ ≈ −1) also
// stops at once: ess_basic(rep(c(1, -1), 10)) is 10 in posterior.
func TestESSHand(t *testing.T) {
	x := [][]float64{{3, 1, 4, 1, 5, 9}}
	for name, f := range map[string]func([][]float64) float64{"ESSBulk": ESSBulk, "ESSMean": ESSMean} {
		if got := f(x); !near(got, 3, 1e-15) {
			t.Errorf("%s = %v, want 3", name, got)
		}
	}
	alt := make([]float64, 20)
	for i := range alt {
		alt[i] = float64(1 - 2*(i%2))
	}
	if got := ESSMean([][]float64{alt}); !near(got, 10, 1e-14) {
		t.Errorf("ESSMean(alternating) = %v, want 10", got)
	}
}

// TestAutocovariance checks the FFT autocovariances, averaged over chains,
// against the direct O(n²) sums, on lengths with awkward factors, with a
// constant chain among them (which contributes zeros).
func TestAutocovariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{3, 7, 64, 97, 1000, 1237} {
		chains := full(3, n, func(_, _ int) float64 { return rng.NormFloat64() })
		for _, x := range chains[:2] {
			for i := 1; i < n; i++ {
				x[i] = 3 + 0.7*(x[i-1]-3) + x[i]
			}
		}
		for i := range chains[2] {
			chains[2][i] = 0.1
		}
		got, means := meanAcov(chains)
		for lag := range n {
			var want float64
			for c, x := range chains[:2] {
				m := Mean(x)
				if means[c] != m {
					t.Fatalf("mean %v, want %v", means[c], m)
				}
				for i := 0; i+lag < n; i++ {
					want += (x[i] - m) * (x[i+lag] - m)
				}
			}
			want /= float64(n) * 3
			if math.Abs(got[lag]-want) > 1e-12*got[0] {
				t.Fatalf("n=%d lag %d: %v, want %v", n, lag, got[lag], want)
			}
		}
	}
	if g := nextGoodSize(1237); g != 1250 {
		t.Errorf("nextGoodSize(1237) = %d, want 1250", g)
	}
}

// TestRankInvariance: the rank-based diagnostics do not change under a
// monotone transformation of the draws, nor under a reordering of chains.
func TestRankInvariance(t *testing.T) {
	x := variable(t, readTestdata(t, "odd"), "ar1")
	y := make([][]float64, len(x))
	for c := range x {
		y[len(x)-1-c] = make([]float64, len(x[c]))
		for i, v := range x[c] {
			y[len(x)-1-c][i] = math.Exp(2 * v)
		}
	}
	for name, f := range map[string]func([][]float64) float64{
		"RhatBulk": RhatBulk, "ESSBulk": ESSBulk, "ESSTail": ESSTail,
	} {
		if a, b := f(x), f(y); !near(a, b, 1e-12) {
			t.Errorf("%s: %v before, %v after exp and reordering", name, a, b)
		}
	}
}

// funcs are all the estimators on chains, for the edge-case tests.
var funcs = map[string]func([][]float64) float64{
	"Rhat": Rhat, "RhatBulk": RhatBulk, "RhatTail": RhatTail, "RhatBasic": RhatBasic,
	"RhatPaper": RhatPaper, "ESSPaper": ESSPaper, "ESSBulk": ESSBulk, "ESSTail": ESSTail,
	"ESSMean": ESSMean, "MCSEMean": MCSEMean,
	"ESSQuantile(0.3)": func(x [][]float64) float64 { return ESSQuantile(x, 0.3) },
}

// TestInvalidInput: structurally bad input gives NaN from every estimator,
// an error from Validate and SummarizeChains, and no panic.
func TestInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      [][]float64
		target error
	}{
		{"nil", nil, ErrNoDraws},
		{"no chains", [][]float64{}, ErrNoDraws},
		{"empty chain", [][]float64{{}}, ErrEmptyChain},
		{"empty second chain", [][]float64{{1, 2, 3, 4, 5, 6}, {}}, ErrEmptyChain},
		{"ragged", [][]float64{{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5}}, ErrRagged},
	} {
		err := Validate(tc.x)
		if !errors.Is(err, tc.target) {
			t.Errorf("%s: Validate = %v, want %v", tc.name, err, tc.target)
		}
		if _, err := SummarizeChains("v", tc.x); !errors.Is(err, tc.target) || !strings.Contains(err.Error(), `"v"`) {
			t.Errorf("%s: SummarizeChains error %v", tc.name, err)
		}
		for name, f := range funcs {
			if v := f(tc.x); !math.IsNaN(v) {
				t.Errorf("%s: %s = %v, want NaN", tc.name, name, v)
			}
		}
		if SplitChains(tc.x) != nil || Fold(tc.x) != nil || RankNormalize(tc.x) != nil {
			t.Errorf("%s: a transform returned non-nil", tc.name)
		}
	}
	if _, err := Summarize(&Draws{}); err == nil {
		t.Error("Summarize of no variables: no error")
	}
	if _, err := Summarize(&Draws{Names: []string{"a", "b"}, Values: make([][][]float64, 1)}); err == nil {
		t.Error("Summarize with mismatched names: no error")
	}
	if _, err := Summarize(&Draws{Names: []string{"a"}, Values: [][][]float64{{{1, 2}, {1}}}}); !errors.Is(err, ErrRagged) {
		t.Errorf("Summarize of ragged draws: %v", err)
	}
	if Validate([][]float64{{1}}) != nil {
		t.Error("Validate rejects one chain of one draw")
	}
}

// TestErrorsSayDiagOnce: errors name the package once ("diag: variable
// "v": chain 1: empty chain", not "diag: variable "v": diag: chain 1: ..."),
// and counts of one are singular.
func TestErrorsSayDiagOnce(t *testing.T) {
	for _, tc := range []struct {
		x    [][]float64
		want string
	}{
		{nil, "no chains"},
		{[][]float64{{1, 2}, {}}, "chain 1: empty chain"},
		{[][]float64{{1, 2}, {1}}, "chain 1 has 1 draw, chain 0 has 2: chains of unequal length"},
		{[][]float64{{1}, {1, 2}}, "chain 1 has 2 draws, chain 0 has 1: chains of unequal length"},
	} {
		if err := Validate(tc.x); err == nil || err.Error() != "diag: "+tc.want {
			t.Errorf("Validate(%v) = %v, want %q", tc.x, err, "diag: "+tc.want)
		}
		want := `diag: variable "v": ` + tc.want
		if _, err := SummarizeChains("v", tc.x); err == nil || err.Error() != want {
			t.Errorf("SummarizeChains(%v) = %v, want %q", tc.x, err, want)
		}
	}
	_, err := Summarize(&Draws{Names: []string{"a"}, Values: make([][][]float64, 2)})
	if want := "diag: summarize: 1 name for 2 variables"; err == nil || err.Error() != want {
		t.Errorf("Summarize with 1 name for 2 variables: %v, want %q", err, want)
	}
}

// TestShortChains: split R̂ needs 4 draws per chain and ESS 6; the paper's
// R̂ needs 2 draws and 2 chains. Below that: NaN, never a panic.
func TestShortChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 1; n <= 7; n++ {
		for _, c := range []int{1, 2, 4} {
			x := full(c, n, func(_, _ int) float64 { return rng.NormFloat64() })
			s, err := SummarizeChains("x", x)
			if err != nil {
				t.Fatal(err)
			}
			check := func(name string, v float64, defined bool) {
				if math.IsNaN(v) == defined {
					t.Errorf("n=%d c=%d: %s = %v, want defined = %v", n, c, name, v, defined)
				}
			}
			for _, r := range []struct {
				name string
				v    float64
			}{{"Rhat", Rhat(x)}, {"RhatBulk", RhatBulk(x)}, {"RhatTail", RhatTail(x)}, {"RhatBasic", RhatBasic(x)},
				{"Summary.Rhat", s.Rhat}, {"Summary.RhatBulk", s.RhatBulk}, {"Summary.RhatTail", s.RhatTail}} {
				check(r.name, r.v, n >= 4)
			}
			for _, r := range []struct {
				name string
				v    float64
			}{{"ESSBulk", ESSBulk(x)}, {"ESSMean", ESSMean(x)}, {"ESSTail", ESSTail(x)}, {"MCSEMean", MCSEMean(x)},
				{"Summary.ESSBulk", s.ESSBulk}, {"Summary.ESSTail", s.ESSTail}, {"Summary.ESSMean", s.ESSMean}} {
				// The tail indicator of 6 draws can be constant on
				// one side; only check that defined ESS are positive.
				if n < 6 {
					check(r.name, r.v, false)
				} else if !math.IsNaN(r.v) && r.v <= 0 {
					t.Errorf("n=%d c=%d: %s = %v", n, c, r.name, r.v)
				}
			}
			check("RhatPaper", RhatPaper(x), n >= 2 && c >= 2)
			check("ESSPaper", ESSPaper(x), n >= 2 && c >= 2)
			check("Summary.RhatPaper", s.RhatPaper, n >= 2 && c >= 2)
		}
	}
}

// TestNonFinite: NaN makes everything NaN; ±Inf leaves the rank-based
// diagnostics defined (see the "inf" reference case for values).
func TestNonFinite(t *testing.T) {
	x := full(2, 20, func(c, i int) float64 { return float64(i*3%7 + c) })
	x[1][3] = math.NaN()
	for name, f := range funcs {
		if v := f(x); !math.IsNaN(v) {
			t.Errorf("NaN draw: %s = %v", name, v)
		}
	}
	for name, v := range map[string]float64{
		"Mean": Mean(Pool(x)), "SD": SD(Pool(x)), "Median": Median(Pool(x)),
		"MAD": MAD(Pool(x)), "Quantile": Quantile(Pool(x), 0.5),
	} {
		if !math.IsNaN(v) {
			t.Errorf("NaN draw: %s = %v", name, v)
		}
	}
	x[1][3] = math.Inf(1)
	for name, f := range funcs {
		v := f(x)
		rankBased := strings.HasPrefix(name, "Rhat") && name != "RhatBasic" && name != "RhatPaper" || name == "ESSBulk"
		if math.IsNaN(v) == rankBased {
			t.Errorf("Inf draw: %s = %v", name, v)
		}
	}
	// More than half the draws +Inf: the median is +Inf and folding is
	// undefined (Inf − Inf), so the tail R̂ is NaN.
	y := full(2, 10, func(_, i int) float64 {
		if i < 6 {
			return math.Inf(1)
		}
		return float64(i)
	})
	if v := RhatTail(y); !math.IsNaN(v) {
		t.Errorf("RhatTail with median +Inf = %v", v)
	}
	if q := Quantile([]float64{1, 2, math.Inf(1)}, 0.75); !math.IsInf(q, 1) {
		t.Errorf("Quantile with +Inf = %v", q)
	}
	if m := MAD([]float64{math.Inf(1), math.Inf(1), 1}); !math.IsNaN(m) {
		t.Errorf("MAD with median +Inf = %v, want NaN (as R's mad)", m)
	}
	if q := Quantile([]float64{1, 2, math.Inf(1)}, 0.5); q != 2 {
		t.Errorf("Quantile(0.5) with +Inf = %v, want 2", q)
	}
}

// TestConstant: constant draws give NaN diagnostics (posterior's NA), zero
// spread, and chains that are each constant but differ give R̂ = +Inf.
func TestConstant(t *testing.T) {
	for _, c := range []int{1, 3} {
		x := full(c, 50, func(_, _ int) float64 { return -7 })
		for name, f := range funcs {
			if v := f(x); !math.IsNaN(v) {
				t.Errorf("constant, %d chains: %s = %v", c, name, v)
			}
		}
		p := Pool(x)
		if SD(p) != 0 || MAD(p) != 0 || Median(p) != -7 || Quantile(p, 0.05) != -7 {
			t.Errorf("constant: SD %v MAD %v Median %v Q5 %v", SD(p), MAD(p), Median(p), Quantile(p, 0.05))
		}
	}
	// Nearly constant: a range below 2.2e-16 counts as constant for the
	// raw-value diagnostics, as in posterior; the rank-based ones test
	// constancy after rank normalization, where these draws differ, but
	// their fold about the median is constant. posterior 1.4 gives
	// rhat NA, ess_bulk 10, ess_mean NA, ess_tail NA, rhat_basic NA for
	// matrix(rep(c(0, 1e-17), 10), 10, 2).
	x := full(2, 10, func(c, i int) float64 { return float64(i%2) * 1e-17 })
	if v := RhatBulk(x); math.IsNaN(v) {
		t.Error("range 1e-17: RhatBulk is NaN")
	}
	if v := ESSBulk(x); !near(v, 10, 1e-12) {
		t.Errorf("range 1e-17: ESSBulk = %v, want 10", v)
	}
	for name, v := range map[string]float64{"Rhat": Rhat(x), "RhatTail": RhatTail(x), "ESSMean": ESSMean(x), "ESSTail": ESSTail(x), "RhatBasic": RhatBasic(x)} {
		if !math.IsNaN(v) {
			t.Errorf("range 1e-17: %s = %v, want NaN", name, v)
		}
	}
	x = full(2, 10, func(c, i int) float64 { return float64(i%3) * 1e-10 })
	if v := ESSMean(x); math.IsNaN(v) {
		t.Error("range 2e-10: ESSMean is NaN")
	}
	steps := full(3, 8, func(c, _ int) float64 { return float64(c) })
	for name, f := range map[string]func([][]float64) float64{"Rhat": Rhat, "RhatBasic": RhatBasic, "RhatPaper": RhatPaper} {
		if v := f(steps); !math.IsInf(v, 1) {
			t.Errorf("constant chains at different levels: %s = %v, want +Inf", name, v)
		}
	}
}

// TestQuantiles checks the pooled helpers on small hand examples.
func TestQuantiles(t *testing.T) {
	x := []float64{4, 1, 3, 2, 10}
	// Type 7: k = 1 + 4p; p = 0.05 → k = 1.2 → 1 + 0.2·(2 − 1) = 1.2;
	// p = 0.95 → k = 4.8 → 4 + 0.8·(10 − 4) = 8.8.
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.05, 1.2}, {0.5, 3}, {0.95, 8.8}, {1, 10}} {
		if got := Quantile(x, c.p); !near(got, c.want, 1e-15) {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(Quantile(x, p)) || !math.IsNaN(ESSQuantile([][]float64{x, x}, p)) {
			t.Errorf("p = %v: not NaN", p)
		}
	}
	if Median(x) != 3 || Median([]float64{1, 2, 3, 10}) != 2.5 {
		t.Error("Median")
	}
	// |x − 3| = 1, 2, 0, 1, 7 → median 1 → MAD 1.4826.
	if MAD(x) != 1.4826 {
		t.Errorf("MAD = %v", MAD(x))
	}
	// The O(n) merge in madSorted against a plain sort of |x − median|.
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 1; n < 60; n++ {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(7)) + math.Round(rng.Float64())*0.5
		}
		m := Median(y)
		d := make([]float64, n)
		for i, v := range y {
			d[i] = math.Abs(v - m)
		}
		if got, want := MAD(y), 1.4826*Median(d); got != want {
			t.Fatalf("MAD(%v) = %v, want %v", y, got, want)
		}
	}
	// mean 4, squares 0 9 1 4 36 = 50, /4 = 12.5.
	if !near(SD(x), math.Sqrt(12.5), 1e-15) || Mean(x) != 4 {
		t.Errorf("SD %v Mean %v", SD(x), Mean(x))
	}
	for name, v := range map[string]float64{"Mean": Mean(nil), "SD": SD([]float64{1}), "Median": Median(nil), "MAD": MAD(nil), "Quantile": Quantile(nil, 0.5)} {
		if !math.IsNaN(v) {
			t.Errorf("%s of too few values = %v", name, v)
		}
	}
	// ESSQuantile(1) uses (S − 1/2)/S; at p = 0 the indicator is
	// I(x ≤ min), defined while the minimum is not repeated everywhere.
	d := variable(t, readTestdata(t, "even"), "iid")
	if v := ESSQuantile(d, 1); !math.IsNaN(v) {
		// All draws ≤ the (S−1/2)/S quantile but the largest: defined.
		if v <= 0 {
			t.Errorf("ESSQuantile(1) = %v", v)
		}
	} else {
		t.Error("ESSQuantile(1) is NaN")
	}
}

// TestSummaryJSON checks the JSON keys and that NaN and Inf become null.
func TestSummaryJSON(t *testing.T) {
	s, err := SummarizeChains("theta[1]", full(2, 3, func(c, _ int) float64 { return float64(c) }))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal([]Summary{s})
	if err != nil {
		t.Fatal(err)
	}
	var m []map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	keys := []string{"name", "mean", "median", "sd", "mad", "q5", "q95", "rhat", "rhat_bulk", "rhat_tail",
		"ess_bulk", "ess_tail", "ess_mean", "mcse_mean", "rhat_paper", "ess_paper"}
	if len(m[0]) != len(keys) {
		t.Errorf("JSON has %d keys, want %d: %s", len(m[0]), len(keys), b)
	}
	for _, k := range keys {
		if _, ok := m[0][k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if m[0]["name"] != "theta[1]" || m[0]["mean"] != 0.5 || m[0]["rhat_paper"] != nil || m[0]["ess_bulk"] != nil {
		t.Errorf("JSON values: %s", b)
	}
	var back []Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back[0].Name != s.Name || back[0].Mean != s.Mean || !math.IsNaN(back[0].RhatPaper) || !math.IsNaN(back[0].ESSBulk) {
		t.Errorf("round trip: %+v", back[0])
	}
	if err := json.Unmarshal([]byte(`{"mean": "x"}`), &back[0]); err == nil {
		t.Error("bad JSON: no error")
	}
}

// TestSummarizeMatchesFunctions: Summarize's shared-work path gives exactly
// what the separate functions give, variable by variable, in order.
func TestSummarizeMatchesFunctions(t *testing.T) {
	d := readTestdata(t, "odd")
	got, err := Summarize(d)
	if err != nil {
		t.Fatal(err)
	}
	for v, s := range got {
		x := d.Values[v]
		if s.Name != d.Names[v] {
			t.Fatalf("summary %d is %q, want %q", v, s.Name, d.Names[v])
		}
		want := Summary{
			Name: d.Names[v], Mean: Mean(Pool(x)), Median: Median(Pool(x)), SD: SD(Pool(x)), MAD: MAD(Pool(x)),
			Q5: Quantile(Pool(x), 0.05), Q95: Quantile(Pool(x), 0.95), Rhat: Rhat(x), RhatBulk: RhatBulk(x),
			RhatTail: RhatTail(x), ESSBulk: ESSBulk(x), ESSTail: ESSTail(x), ESSMean: ESSMean(x),
			MCSEMean: MCSEMean(x), RhatPaper: RhatPaper(x), ESSPaper: ESSPaper(x),
		}
		if s != want {
			t.Errorf("%s:\n got %+v\nwant %+v", s.Name, s, want)
		}
	}
}

// TestArgsort checks the radix sort against the order of values, with
// ties, signed zeros, infinities and subnormals.
func TestArgsort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), 5e-324, -5e-324, 1, 2, -2, math.MaxFloat64, -math.MaxFloat64}
	for range 1000 {
		x = append(x, math.Round(rng.NormFloat64()*100)/10, rng.NormFloat64()*1e300)
	}
	order := argsort(x)
	for k := 1; k < len(order); k++ {
		a, b := x[order[k-1].pos], x[order[k].pos]
		if a > b || (a == b && order[k-1].pos > order[k].pos) || (a == b) != (order[k-1].key == order[k].key) {
			t.Fatalf("positions %d, %d: %v then %v", order[k-1].pos, order[k].pos, a, b)
		}
	}
	if len(argsort(nil)) != 0 {
		t.Error("argsort(nil)")
	}
}

// scaleChains returns chains with every draw multiplied by f.
func scaleChains(chains [][]float64, f float64) [][]float64 {
	out := cloneChains(chains)
	for _, x := range out {
		for i := range x {
			x[i] *= f
		}
	}
	return out
}

// TestLargeMagnitudes: draws far from 1 in magnitude, such as the natural
// units of a GP fitted to huge data, have diagnostics that follow from
// those of the unscaled draws. Multiplied by 2^540 ≈ 3.6e162 or by 1e160
// (their squares overflow float64), their location and scale (mean, SD,
// MCSE, median, MAD, quantiles) are multiplied by the same factor and
// every R-hat and ESS is unchanged, to rounding; multiplied by 2^−540
// (their squares underflow), their mean and SD are. posterior's
// is_constant test (a range below 2.2e-16) makes R-hat and ESS of the tiny
// draws NaN, so only location and scale are checked for them. The tail
// R-hat ranks the draws folded about their median, and with an even number
// of draws the two middle draws are equally far from it; rounding after a
// multiplication by 1e160 can break that tie, which moves the ranks and so
// RhatTail (and Rhat) by ~1e-5: they are compared for the exact
// power-of-two scalings only.
func TestLargeMagnitudes(t *testing.T) {
	const tol = 1e-12
	for _, which := range []string{"even", "odd"} {
		d := readTestdata(t, which)
		for v, name := range d.Names {
			x := d.Values[v]
			for _, f := range []float64{0x1p540, 1e160, 0x1p-540} {
				y := scaleChains(x, f)
				large := f > 1
				scale := map[string]func([]float64) float64{
					"Mean": Mean, "SD": SD, "Median": Median, "MAD": MAD,
					"Quantile(0.05)": func(p []float64) float64 { return Quantile(p, 0.05) },
				}
				for fn, g := range scale {
					if !large && fn != "Mean" && fn != "SD" {
						continue
					}
					want, got := f*g(Pool(x)), g(Pool(y))
					if !(near(got/f, want/f, tol) && !math.IsInf(got, 0)) {
						t.Errorf("%s/%s ×%g: %s = %v, want %v", which, name, f, fn, got, want)
					}
				}
				if !large {
					continue
				}
				for fn, g := range funcs {
					if f == 1e160 && (fn == "RhatTail" || fn == "Rhat") {
						continue
					}
					want, got := g(x), g(y)
					if fn == "MCSEMean" {
						got /= f
					}
					if math.IsNaN(want) || !near(got, want, tol) {
						t.Errorf("%s/%s ×%g: %s = %v, want %v", which, name, f, fn, got, want)
					}
				}
				sx, err := SummarizeChains(name, x)
				if err != nil {
					t.Fatal(err)
				}
				sy, err := SummarizeChains(name, y)
				if err != nil {
					t.Fatal(err)
				}
				pairs := [][2]float64{
					{sy.SD / f, sx.SD}, {sy.Mean / f, sx.Mean}, {sy.MCSEMean / f, sx.MCSEMean},
					{sy.RhatBulk, sx.RhatBulk}, {sy.RhatPaper, sx.RhatPaper}, {sy.ESSBulk, sx.ESSBulk},
					{sy.ESSTail, sx.ESSTail}, {sy.ESSMean, sx.ESSMean}, {sy.ESSPaper, sx.ESSPaper},
				}
				if f != 1e160 {
					pairs = append(pairs, [2]float64{sy.Rhat, sx.Rhat}, [2]float64{sy.RhatTail, sx.RhatTail})
				}
				for _, p := range pairs {
					if math.IsNaN(p[1]) || !near(p[0], p[1], tol) {
						t.Errorf("%s/%s ×%g: SummarizeChains gives %v, want %v (%+v)", which, name, f, p[0], p[1], sy)
					}
				}
			}
		}
	}
}

// TestTailRhatBeyondRange: finite draws that span more than the float64
// range, so that some of their distances from the median overflow, have
// the tail R-hat of the same draws scaled by 1/4 (an exact scaling, which
// keeps the order of the distances and so the ranks). Unhandled, the
// overflowed distances would all tie at +Inf and move the ranks.
func TestTailRhatBeyondRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, 4)
	for c := range x {
		x[c] = make([]float64, 100)
		for i := range x[c] {
			x[c][i] = -rng.ExpFloat64() // a long tail below the median
		}
	}
	pool := Pool(x)
	lo, hi, med := slices.Min(pool), slices.Max(pool), Median(pool)
	// u ∈ [−0.99, 1): y = u·2^1024 is finite, and the median lies
	// k·2^1024 above the smallest draw with k > 1.
	k := 0.95 * 1.99 * (med - lo) / (hi - lo)
	if k <= 1.2 {
		t.Fatalf("k = %v: the draws' tail below the median is too short", k)
	}
	y := cloneChains(x)
	for _, ch := range y {
		for i, v := range ch {
			ch[i] = math.Ldexp((v-lo)*k/(med-lo)-0.99, 1024)
		}
	}
	if hasInf(y) {
		t.Fatal("a scaled draw overflowed")
	}
	inf := 0
	for _, f := range Fold(y) {
		for _, v := range f {
			if math.IsInf(v, 1) {
				inf++
			}
		}
	}
	if inf < 2 {
		t.Fatalf("%d distances from the median overflow, want several", inf)
	}
	quarter := scaleChains(y, 0.25)
	for _, fn := range []string{"RhatTail", "Rhat"} {
		want, got := funcs[fn](quarter), funcs[fn](y)
		if math.IsNaN(want) || got != want {
			t.Errorf("%s of draws up to ±2^1024 (%d distances overflow) = %v, want %v as for the draws / 4", fn, inf, got, want)
		}
	}
	s, err := SummarizeChains("y", y)
	if err != nil {
		t.Fatal(err)
	}
	if want := RhatTail(quarter); s.RhatTail != want || s.Rhat != Rhat(quarter) {
		t.Errorf("SummarizeChains of draws up to ±2^1024: RhatTail %v, Rhat %v; want %v, %v", s.RhatTail, s.Rhat, want, Rhat(quarter))
	}
}

// TestMeanNearMaxFloat: finite draws whose sum overflows have a finite
// mean, and so a finite median.
func TestMeanNearMaxFloat(t *testing.T) {
	x := []float64{1.5e308, 1.7e308, 1.6e308}
	if m := Mean(x); !near(m, 1.6e308, 1e-15) {
		t.Errorf("Mean(%v) = %v, want 1.6e308", x, m)
	}
	if m := Median([]float64{1.5e308, 1.7e308}); !near(m, 1.6e308, 1e-15) {
		t.Errorf("Median = %v, want 1.6e308", m)
	}
	if m := Mean([]float64{1.5e308, math.Inf(1)}); !math.IsInf(m, 1) {
		t.Errorf("Mean with +Inf = %v, want +Inf", m)
	}
	if m := Mean([]float64{math.Inf(-1), math.Inf(1)}); !math.IsNaN(m) {
		t.Errorf("Mean of −Inf and +Inf = %v, want NaN", m)
	}
}
