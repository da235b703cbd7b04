package diag

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// readTestdata reads testdata/draws_<which>.csv.
func readTestdata(t testing.TB, which string) *Draws {
	t.Helper()
	path := filepath.Join("testdata", "draws_"+which+".csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ReadCSV(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func variable(t testing.TB, d *Draws, name string) [][]float64 {
	t.Helper()
	x, ok := d.Variable(name)
	if !ok {
		t.Fatalf("no variable %q", name)
	}
	return x
}

// cloneChains deep-copies chains.
func cloneChains(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		out[i] = slices.Clone(x[i])
	}
	return out
}

// full returns chains × draws values f(chain, draw).
func full(chains, draws int, f func(c, i int) float64) [][]float64 {
	out := make([][]float64, chains)
	for c := range out {
		out[c] = make([]float64, draws)
		for i := range out[c] {
			out[c][i] = f(c, i)
		}
	}
	return out
}

// referenceCases builds the draws of every case of testdata/reference.R,
// keyed by "case/variable", exactly as the script builds them.
func referenceCases(t testing.TB) map[string][][]float64 {
	t.Helper()
	cases := map[string][][]float64{}
	even, odd := readTestdata(t, "even"), readTestdata(t, "odd")
	for _, f := range []struct {
		name string
		d    *Draws
	}{{"even", even}, {"odd", odd}} {
		for v, name := range f.d.Names {
			cases[f.name+"/"+name] = f.d.Values[v]
		}
	}
	for _, v := range []string{"iid", "ar1"} {
		cases["single/"+v] = variable(t, even, v)[:1]
	}
	for _, n := range []int{6, 7} {
		ar1 := variable(t, even, "ar1")
		short := make([][]float64, len(ar1))
		for c := range ar1 {
			short[c] = ar1[c][:n]
		}
		cases[fmt.Sprintf("short%d/ar1", n)] = short
	}
	inf := cloneChains(variable(t, even, "iid"))
	inf[0][0], inf[1][9] = math.Inf(1), math.Inf(-1)
	cases["inf/iid"] = inf
	cases["steps/x"] = full(4, 10, func(c, _ int) float64 { return float64(c + 1) })
	cases["constant/x"] = full(4, 10, func(_, _ int) float64 { return 2.5 })
	nan := cloneChains(variable(t, even, "iid"))
	nan[2][4] = math.NaN()
	cases["nan/iid"] = nan
	return cases
}

// measure computes posterior's measure of the given name with this
// package's functions.
func measure(x [][]float64, name string) float64 {
	switch name {
	case "mean":
		return Mean(Pool(x))
	case "median":
		return Median(Pool(x))
	case "sd":
		return SD(Pool(x))
	case "mad":
		return MAD(Pool(x))
	case "q5":
		return Quantile(Pool(x), 0.05)
	case "q95":
		return Quantile(Pool(x), 0.95)
	case "rhat":
		return Rhat(x)
	case "rhat_bulk":
		return RhatBulk(x)
	case "rhat_tail":
		return RhatTail(x)
	case "rhat_basic":
		return RhatBasic(x)
	case "rhat_paper":
		return RhatPaper(x)
	case "ess_bulk":
		return ESSBulk(x)
	case "ess_tail":
		return ESSTail(x)
	case "ess_q5":
		return ESSQuantile(x, 0.05)
	case "ess_q95":
		return ESSQuantile(x, 0.95)
	case "ess_median":
		return ESSQuantile(x, 0.5)
	case "ess_mean", "ess_basic":
		return ESSMean(x)
	case "ess_paper":
		return ESSPaper(x)
	case "mcse_mean":
		return MCSEMean(x)
	}
	panic("unknown measure " + name)
}

// summaryField returns the field of s that corresponds to a measure, and
// false for measures that Summary does not hold.
func summaryField(s Summary, name string) (float64, bool) {
	m := map[string]float64{
		"mean": s.Mean, "median": s.Median, "sd": s.SD, "mad": s.MAD, "q5": s.Q5, "q95": s.Q95,
		"rhat": s.Rhat, "rhat_bulk": s.RhatBulk, "rhat_tail": s.RhatTail, "rhat_paper": s.RhatPaper,
		"ess_bulk": s.ESSBulk, "ess_tail": s.ESSTail, "ess_mean": s.ESSMean, "ess_paper": s.ESSPaper,
		"mcse_mean": s.MCSEMean,
	}
	v, ok := m[name]
	return v, ok
}

// refTol is the agreement required with posterior: absolute for values of
// magnitude up to 1, relative above.
const refTol = 1e-6

// agree reports whether got matches want: both NaN, equal infinities, or
// within refTol·max(1, |want|). It also returns the absolute and relative
// differences of finite values.
func agree(got, want float64) (ok bool, abs, rel float64) {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got), 0, 0
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want, 0, 0
	}
	abs = math.Abs(got - want)
	if want != 0 {
		rel = abs / math.Abs(want)
	}
	return abs <= refTol*max(1, math.Abs(want)), abs, rel
}

// TestPosteriorReference checks every function, and Summary's fields,
// against posterior 1.4 (see reference_data_test.go).
func TestPosteriorReference(t *testing.T) {
	t.Logf("reference: %s", posteriorRefVersion)
	cases := referenceCases(t)
	summaries := map[string]Summary{}
	for key, x := range cases {
		s, err := SummarizeChains(key, x)
		if err != nil {
			t.Fatal(err)
		}
		summaries[key] = s
	}
	type worst struct{ abs, rel float64 }
	worstBy := map[string]*worst{}
	seen := map[string]bool{}
	for _, r := range posteriorRef {
		key := r.cas + "/" + r.variable
		x, ok := cases[key]
		if !ok {
			t.Fatalf("no case %s", key)
		}
		seen[key] = true
		got := measure(x, r.measure)
		ok, abs, rel := agree(got, r.want)
		if !ok {
			t.Errorf("%s %s = %.15g, posterior %.15g", key, r.measure, got, r.want)
		}
		w := worstBy[r.measure]
		if w == nil {
			w = &worst{}
			worstBy[r.measure] = w
		}
		w.abs, w.rel = max(w.abs, abs), max(w.rel, rel)
		if v, has := summaryField(summaries[key], r.measure); has {
			if ok, _, _ := agree(v, r.want); !ok {
				t.Errorf("Summary %s %s = %.15g, posterior %.15g", key, r.measure, v, r.want)
			}
		}
	}
	for key := range cases {
		if !seen[key] {
			t.Errorf("case %s has no reference values", key)
		}
	}
	names := make([]string, 0, len(worstBy))
	for k := range worstBy {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		t.Logf("%-11s max abs diff %.2e  max rel diff %.2e", k, worstBy[k].abs, worstBy[k].rel)
	}
}
