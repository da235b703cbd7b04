package subtemper

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// importanceFit fits n synthetic points of d inputs by importance
// sampling, standardised (so that the summary's map to the data's units
// is exercised).
func importanceFit(t *testing.T, n, d int, opt GPOptions) *GPFit {
	t.Helper()
	data, _, err := gp.Synthetic(n, d, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	opt.Backend, opt.Standardize, opt.Importance = "gonum", true, ImportanceOn
	fit, err := FitGP(context.Background(), data, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fit.Close() })
	return fit
}

// TestFitGPImportance checks an importance-sampled fit end to end: the
// summary is the weighted one in the data's units, computed here from the
// weights; the resampled draws agree with it; the verdict is the weighted
// one; the report says so; the same seed gives the same sample.
func TestFitGPImportance(t *testing.T) {
	var batches []ImportanceProgress
	fit := importanceFit(t, 200, 2, GPOptions{OnBatch: func(p ImportanceProgress) { batches = append(batches, p) }})
	ws := fit.Weighted
	if ws == nil || fit.ImportanceSkipped != "" {
		t.Fatalf("no weighted sample (skipped: %q)", fit.ImportanceSkipped)
	}
	if len(batches) == 0 || batches[len(batches)-1].Draws != len(ws.Draws)+ws.Failed {
		t.Errorf("%d progress reports, the last %+v, for %d weighted draws", len(batches), batches, len(ws.Draws))
	}
	for _, b := range batches {
		if !slices.Contains(fit.Names(), b.Least) {
			t.Errorf("batch %+v: the least ESS's parameter %q is none of %v", b, b.Least, fit.Names())
		}
	}
	v, err := fit.Verdict()
	if err != nil {
		t.Fatal(err)
	}
	if !v.Converged || !v.Weighted || v.ParetoK != ws.K || v.ESSNeeded != DefaultMinESS {
		t.Fatalf("verdict %+v: want converged on the weighted sample, k̂ %v, ESS needed %d", v, ws.K, DefaultMinESS)
	}
	sum, err := fit.Summary()
	if err != nil {
		t.Fatal(err)
	}
	// The weighted means in the data's units, computed here.
	d := len(sum)
	mean := make([]float64, d)
	var total float64
	for i, u := range ws.Draws {
		w := math.Exp(ws.LogWeights[i])
		total += w
		th := fit.Std.Original(nil, gp.Theta(nil, u))
		for j := range d {
			mean[j] += w * th[j]
		}
	}
	res := fit.Theta()[0]
	for j, s := range sum {
		mean[j] /= total
		if math.Abs(s.Mean-mean[j]) > 1e-9*math.Abs(mean[j]) {
			t.Errorf("%s: summary mean %v, weighted mean %v", s.Name, s.Mean, mean[j])
		}
		if !math.IsNaN(s.Rhat) || !(s.ESSBulk >= DefaultMinESS) {
			t.Errorf("%s: R-hat %v, bulk-ESS %v: want NaN and ≥ %d", s.Name, s.Rhat, s.ESSBulk, DefaultMinESS)
		}
		// The resampled draws' mean: within 4 standard errors of the
		// weighted one (resampling adds about as much variance again).
		var m float64
		for _, th := range res {
			m += th[j]
		}
		m /= float64(len(res))
		if se := s.MCSEMean * math.Sqrt2; math.Abs(m-s.Mean) > 4*se {
			t.Errorf("%s: resampled mean %v, weighted %v ± %v", s.Name, m, s.Mean, se)
		}
	}
	if len(fit.Draws) != 1 || len(fit.Draws[0]) != len(ws.Draws) {
		t.Errorf("draws %d×%d, want one chain of %d resampled draws", len(fit.Draws), len(fit.Draws[0]), len(ws.Draws))
	}
	rep, err := fit.Report(ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sampler != "importance" || rep.Settings["method"] != "importance sampling" || rep.Converged != v.Converged || rep.Verdict != v.String() || rep.Importance == nil ||
		rep.Importance.Draws != len(ws.Draws) || rep.Variables[0].Mean != Float(sum[0].Mean) {
		t.Errorf("report: sampler %q, converged %v, verdict %q, importance %+v, first mean %v", rep.Sampler, rep.Converged, rep.Verdict, rep.Importance, rep.Variables[0].Mean)
	}
	checkReportWork(t, rep, fit)
	again := importanceFit(t, 200, 2, GPOptions{})
	if !reflect.DeepEqual(again.Weighted.LogWeights, ws.LogWeights) || !reflect.DeepEqual(again.Draws, fit.Draws) {
		t.Error("the same seed gave another sample")
	}
}

// TestImportanceFitFiles checks a weighted fit's files: draws.csv holds
// the weighted draws with their log weights, which ReadDrawsCSV reads
// back as weights, and a saved fit loads with the same summary and draws.
func TestImportanceFitFiles(t *testing.T) {
	fit := importanceFit(t, 150, 1, GPOptions{})
	var buf bytes.Buffer
	if err := fit.WriteDrawsCSV(&buf); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.HasSuffix(header, ",sn,"+LogWeightColumn) {
		t.Errorf("draws.csv header %q, want the log weights last", header)
	}
	d, err := ReadDrawsCSV(&buf, "draws.csv", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.LogWeights) != 1 || !slices.Equal(d.LogWeights[0], fit.Weighted.LogWeights) || slices.Contains(d.Names, LogWeightColumn) {
		t.Errorf("read back: names %v, %d chains of log weights", d.Names, len(d.LogWeights))
	}
	// diag on the file: the fit's summary, up to the digits written, and
	// k̂ re-estimated from the smoothed weights near the raw one.
	sums, v, err := Diagnose(d)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fit.Summary()
	for i, s := range sums {
		if math.Abs(s.Mean-want[i].Mean) > 1e-9*math.Abs(want[i].Mean) || math.Abs(s.ESSTail-want[i].ESSTail) > 1e-6*want[i].ESSTail {
			t.Errorf("%s from draws.csv: mean %v, tail-ESS %v; the fit's %v, %v", s.Name, s.Mean, s.ESSTail, want[i].Mean, want[i].ESSTail)
		}
	}
	if !v.Weighted || math.Abs(v.ParetoK-fit.Weighted.K) > 0.1 {
		t.Errorf("verdict from draws.csv %+v: want a weighted one with k̂ near %v", v, fit.Weighted.K)
	}
	dir := t.TempDir()
	// The climbs' record travels with the fit (this fit made none: set
	// one by hand).
	fit.Weighted.Climbs, fit.Weighted.ClimbEvals, fit.Weighted.Modes = 2, 37, [][]float64{slices.Clone(fit.Weighted.Draws[0])}
	if err := fit.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := LoadGPFit(dir, "gonum")
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	a, _ := fit.Summary()
	b, err := back.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) && !sameSummaries(a, b) {
		t.Errorf("summary after loading %+v, before %+v", b, a)
	}
	if !reflect.DeepEqual(back.Draws, fit.Draws) || back.Weighted.K != fit.Weighted.K {
		t.Error("the loaded fit's draws or k̂ differ")
	}
	if back.Weighted.Climbs != 2 || back.Weighted.ClimbEvals != 37 || !reflect.DeepEqual(back.Weighted.Modes, fit.Weighted.Modes) {
		t.Errorf("the loaded fit's climbs %d (%d evaluations) and modes %v, saved %d (%d) and %v", back.Weighted.Climbs, back.Weighted.ClimbEvals, back.Weighted.Modes, fit.Weighted.Climbs, fit.Weighted.ClimbEvals, fit.Weighted.Modes)
	}
}

// sameSummaries compares summaries whose NaN fields match.
func sameSummaries(a, b []diag.Summary) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := reflect.ValueOf(a[i]), reflect.ValueOf(b[i])
		for f := range x.NumField() {
			if xf, ok := x.Field(f).Interface().(float64); ok {
				yf := y.Field(f).Interface().(float64)
				if xf != yf && !(math.IsNaN(xf) && math.IsNaN(yf)) {
					return false
				}
			}
		}
	}
	return true
}

// TestImportanceFitStops checks a weighted fit stopped after its first
// batch: by a cancellation (the fit and an error wrapping the cause) and
// by MaxTime (the fit, no error, StoppedByMaxTime).
func TestImportanceFitStops(t *testing.T) {
	data, _, err := gp.Synthetic(150, 1, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A MinESS no sample of this size reaches keeps it drawing.
	st := DefaultGPSettings()
	st.Stop = diag.StopRule{MinESS: 1e9}
	opt := GPOptions{Backend: "gonum", Importance: ImportanceOn, Settings: &st, OnBatch: func(ImportanceProgress) { cancel() }}
	fit, err := FitGP(ctx, data, opt)
	if fit == nil || !errors.Is(err, context.Canceled) || !fit.Result.Interrupted || len(fit.Weighted.Draws) == 0 {
		t.Fatalf("cancelled: fit %v, error %v: want the fit so far and context.Canceled", fit != nil, err)
	}
	fit.Close()
	opt.OnBatch = nil
	opt.MaxTime = time.Second
	fit, err = FitGP(context.Background(), data, opt)
	switch {
	case errors.Is(err, ErrMaxTime) && fit == nil:
		t.Log("the time ran out before the first batch")
	case err != nil || fit == nil:
		t.Fatalf("MaxTime: fit %v, error %v", fit != nil, err)
	default:
		defer fit.Close()
		if !fit.StoppedByMaxTime || fit.Result.Status != tempering.StatusTimeLimit {
			t.Errorf("MaxTime: stopped by it %v, status %v", fit.StoppedByMaxTime, fit.Result.Status)
		}
		if v, _ := fit.Verdict(); v.Converged {
			t.Error("a sample stopped short of its ESS is judged converged")
		}
	}
}

func TestImportanceReason(t *testing.T) {
	one := &tempering.WarmStart{Modes: 1, Proposal: &tempering.Proposal{}}
	two := &tempering.WarmStart{Modes: 2, Proposal: &tempering.Proposal{}}
	st := DefaultGPSettings()
	for _, c := range []struct {
		opt  GPOptions
		ws   *tempering.WarmStart
		want string
	}{
		{GPOptions{}, one, ""},
		{GPOptions{Importance: ImportanceOn, Settings: &st}, one, ""},
		{GPOptions{Settings: &st}, one, "the settings were given"},
		{GPOptions{Importance: ImportanceOff}, one, "off"},
		{GPOptions{}, nil, "no warm start"},
		{GPOptions{Importance: ImportanceOn}, two, ""},
		{GPOptions{Importance: ImportanceOn}, &tempering.WarmStart{Modes: 2}, "found 2 modes"},
		{GPOptions{}, &tempering.WarmStart{Modes: 1}, "no proposal"},
		{GPOptions{MAP: true}, one, "mode alone"},
	} {
		got := c.opt.importanceReason(c.ws)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("importanceReason(%+v) = %q, want %q", c.opt, got, c.want)
		}
	}
}

func TestImportanceRemaining(t *testing.T) {
	for _, c := range []struct {
		what     string
		least, k float64
		want     time.Duration
		bound    bool
	}{
		// 2000 draws, 1500 new in 15 s, least ESS 372 of 400: 2151 draws
		// wanted, 151 more, 1.51 s.
		{"least ESS 372", 372, 0.5, 1510 * time.Millisecond, false},
		// Least ESS 100: 8000 wanted, 6000 more, 60 s.
		{"least ESS 100", 100, 0.5, 60 * time.Second, false},
		// k̂ too high: up to the most draws, 18 500 more, a bound.
		{"k̂ 0.8", 500, 0.8, 185 * time.Second, true},
		// No ESS yet: the same bound.
		{"no ESS", 0, 0.5, 185 * time.Second, true},
		// The ESS reached: none.
		{"at the target", 500, 0.5, 0, false},
	} {
		got, bound := remaining(2000, 1500, 20000, c.least, 400, c.k, 15*time.Second)
		if got != c.want || bound != c.bound {
			t.Errorf("%s: remaining = %v (bound %v), want %v (%v)", c.what, got, bound, c.want, c.bound)
		}
	}
}

// checkReportWork checks the work an importance-sampled fit's report
// gives: the proposal's log densities and the sampling's fresh ones, each
// priced at the measured seconds per log density over those per gradient,
// the climbs' gradients added, and the proposal marked used.
func checkReportWork(t *testing.T, rep *Report, fit *GPFit) {
	t.Helper()
	ws, p := rep.WarmStart, fit.Mode.Proposal
	if ws == nil || ws.Proposal == nil || !ws.Proposal.Used {
		t.Fatalf("the report's warm start %+v: want its proposal, used", ws)
	}
	price := p.SecondsPerEval / fit.Mode.SecondsPerGrad
	if !(price > 0) {
		t.Fatalf("seconds per log density %v and per gradient %v", p.SecondsPerEval, fit.Mode.SecondsPerGrad)
	}
	evals := p.SplitEvals + p.TransformEvals
	for _, r := range p.Rounds {
		evals += r.Draws
	}
	if got, want := ws.Proposal.GradEquivalents, float64(evals)*price; math.Abs(got-want) > 1e-9*want {
		t.Errorf("the proposal's gradient-equivalents %v, want %v (%d log densities at %v)", got, want, evals, price)
	}
	w := fit.Weighted
	want := float64(len(w.Draws)+w.Failed-w.Reused)*price + float64(w.ClimbEvals)
	if imp := rep.Importance; imp.ClimbGradients != w.ClimbEvals || math.Abs(imp.GradEquivalents-want) > 1e-9*want {
		t.Errorf("the sampling's gradient-equivalents %v (climbs' gradients %d), want %v (%d)", imp.GradEquivalents, imp.ClimbGradients, want, w.ClimbEvals)
	}
}
