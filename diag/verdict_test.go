package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestJudgeThresholds: each criterion fails on its own, at its threshold,
// and names the variable.
func TestJudgeThresholds(t *testing.T) {
	ok := Summary{Name: "ok", Rhat: 1.005, ESSBulk: 400, ESSTail: 400}
	cases := []struct {
		name   string
		s      Summary
		chains int
		want   bool
		field  func(Verdict) []string
	}{
		{"all good", ok, 4, true, nil},
		{"rhat at threshold", Summary{Name: "x", Rhat: 1.01, ESSBulk: 1e4, ESSTail: 1e4}, 4, false, func(v Verdict) []string { return v.HighRhat }},
		{"rhat NaN", Summary{Name: "x", Rhat: math.NaN(), ESSBulk: 1e4, ESSTail: 1e4}, 4, false, func(v Verdict) []string { return v.HighRhat }},
		{"bulk ESS 399 of 4 chains", Summary{Name: "x", Rhat: 1, ESSBulk: 399, ESSTail: 1e4}, 4, false, func(v Verdict) []string { return v.LowESSBulk }},
		{"bulk ESS 399 of 3 chains", Summary{Name: "x", Rhat: 1, ESSBulk: 399, ESSTail: 1e4}, 3, true, nil},
		{"tail ESS low", Summary{Name: "x", Rhat: 1, ESSBulk: 1e4, ESSTail: 50}, 1, false, func(v Verdict) []string { return v.LowESSTail }},
		{"tail ESS NaN", Summary{Name: "x", Rhat: 1, ESSBulk: 1e4, ESSTail: math.NaN()}, 1, false, func(v Verdict) []string { return v.LowESSTail }},
	}
	for _, c := range cases {
		v := Judge([]Summary{ok, c.s}, c.chains)
		if v.Converged != c.want {
			t.Errorf("%s: Converged = %v, want %v (%s)", c.name, v.Converged, c.want, v)
			continue
		}
		if c.field != nil && !slices.Equal(c.field(v), []string{"x"}) {
			t.Errorf("%s: failing variables %v, want [x]", c.name, c.field(v))
		}
		if !c.want && !strings.Contains(v.String(), "NOT converged") {
			t.Errorf("%s: String() = %q", c.name, v.String())
		}
	}
	if v := Judge(nil, 4); v.Converged {
		t.Error("no variables judged converged")
	}
}

// TestJudgeOnDraws: independent draws of 4 chains × 500 pass; the same
// draws with one chain shifted by 1 SD fail on R-hat.
func TestJudgeOnDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	chains := make([][]float64, 4)
	for c := range chains {
		chains[c] = make([]float64, 500)
		for i := range chains[c] {
			chains[c][i] = rng.NormFloat64()
		}
	}
	s, err := SummarizeChains("a", chains)
	if err != nil {
		t.Fatal(err)
	}
	if v := Judge([]Summary{s}, 4); !v.Converged {
		t.Fatalf("iid draws: %s", v)
	}
	for i := range chains[0] {
		chains[0][i]++
	}
	s, err = SummarizeChains("a", chains)
	if err != nil {
		t.Fatal(err)
	}
	if v := Judge([]Summary{s}, 4); v.Converged || len(v.HighRhat) != 1 {
		t.Fatalf("shifted chain: %s (R-hat %.4f)", v, s.Rhat)
	}
}
