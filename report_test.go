package subtemper

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// shortFit is a quick fit of the default settings, shortened.
func shortFit(t *testing.T, opt GPOptions) *GPFit {
	t.Helper()
	data, _, err := gp.Synthetic(30, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	if opt.Settings == nil {
		st := DefaultGPSettings()
		st.Warmup, st.Draws, st.Stop = 100, 40, nil
		opt.Settings = &st
	}
	opt.Backend = "gonum"
	fit, err := FitGP(context.Background(), data, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fit.Close() })
	return fit
}

// TestGPFitReport: the report describes the settings that ran (not
// flags), the data and every variable, and marshals to summary.json's
// keys.
func TestGPFitReport(t *testing.T) {
	fit := shortFit(t, GPOptions{Standardize: true})
	r, err := fit.Report(ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Command != "gp" || r.Sampler != "pt" || r.Inner != "hmc" || r.Hot != "mh" || r.Adapt != "diag" ||
		r.TargetAccept != 0.8 || r.HotMHSteps != 1 || r.Seed != 1 || r.Backend != "gonum" {
		t.Errorf("kernels and settings: %q %q %q %q %q %v %d %d %q", r.Command, r.Sampler, r.Inner, r.Hot, r.Adapt, r.TargetAccept, r.HotMHSteps, r.Seed, r.Backend)
	}
	if r.Draws.Warmup != 100 || r.Draws.Requested != 40 || r.Draws.Summarized != 40 || len(r.Draws.PerChain) != 3 {
		t.Errorf("draws: %+v", r.Draws)
	}
	if len(r.Variables) != 4 || r.Variables[0].Name != "ell_x1" || r.Variables[3].Name != "sn" {
		t.Errorf("variables: %+v", r.Variables)
	}
	if r.Data["n"] != 30 || r.Data["standardized"] != true || r.Data["standardization"] == nil {
		t.Errorf("data: %v", r.Data)
	}
	sum, err := fit.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sum {
		if float64(r.Variables[i].Mean) != s.Mean {
			t.Errorf("%s: report mean %v, Summary's %v", s.Name, r.Variables[i].Mean, s.Mean)
		}
	}
	m := reportJSON(t, r)
	for _, k := range []string{"command", "interrupted", "converged", "verdict", "warnings", "settings", "seed", "backend",
		"sampler", "inner", "adapt", "units", "data", "ladder", "draws", "timings", "max_rhat", "variables", "levels", "swaps"} {
		if _, ok := m[k]; !ok {
			t.Errorf("the report's JSON lacks %q", k)
		}
	}
	if _, err := (&GPFit{Data: fit.Data}).Report(ReportOptions{}); err == nil {
		t.Error("the report of a fit without a result: no error")
	}
}

// TestReportSummarizeHook: a failing Summarize leaves the variable's
// figures NaN, marshalled as null.
func TestReportSummarizeHook(t *testing.T) {
	fit := shortFit(t, GPOptions{})
	r, err := fit.Report(ReportOptions{Summarize: func(string, [][]float64) (diag.Summary, error) {
		return diag.Summary{}, errors.New("given up")
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r.Variables[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"mean":null`)) || r.Converged {
		t.Errorf("with failed diagnostics: %s, converged %v", b, r.Converged)
	}
}

// TestGPFitWriteDraws: draws.csv holds every draw in θ = exp(u), in the
// data's units, exactly (shortest round-tripping numbers).
func TestGPFitWriteDraws(t *testing.T) {
	fit := shortFit(t, GPOptions{Standardize: true})
	var b bytes.Buffer
	if err := fit.WriteDrawsCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	th := fit.Theta()
	if len(recs) != 1+3*40 || len(recs[0]) != 3+4 {
		t.Fatalf("draws.csv: %d rows of %d columns", len(recs), len(recs[0]))
	}
	row := recs[1+40+5] // chain 2, draw 6
	if row[0] != "2" || row[1] != "6" || row[2] != "46" {
		t.Errorf("labels %v", row[:3])
	}
	for v, s := range row[3:] {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x != th[1][5][v] {
			t.Errorf("variable %d: %q, want %v", v, s, th[1][5][v])
		}
	}
	var nc bytes.Buffer
	if err := fit.WriteDrawsNetCDF(&nc); err != nil || !bytes.HasPrefix(nc.Bytes(), []byte("CDF")) {
		t.Errorf("draws.nc: %v, %d bytes", err, nc.Len())
	}
}

// TestFitGPMaxTime: MaxTime stops sampling without an error, and the
// fit keeps the draws, not marked interrupted; BeforeSampling and
// OnPhase are called.
func TestFitGPMaxTime(t *testing.T) {
	data, _, err := gp.Synthetic(40, 1, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	st := DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop = tempering.NoWarmup, 200_000, nil
	var phases []string
	var before bool
	fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", Settings: &st, MaxTime: 2 * time.Second,
		OnPhase:        func(p string) { phases = append(phases, p) },
		BeforeSampling: func(f *GPFit, s *tempering.Settings) { before = f != nil && s.Draws == st.Draws },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if !fit.StoppedByMaxTime || fit.Result.Interrupted || len(fit.Draws[0]) == 0 {
		t.Errorf("stopped by MaxTime %v, interrupted %v, %d draws", fit.StoppedByMaxTime, fit.Result.Interrupted, len(fit.Draws[0]))
	}
	if !before || len(phases) != 2 || phases[1] != "the chains' set-up" {
		t.Errorf("hooks: BeforeSampling called %v, phases %q", before, phases)
	}
	r, err := fit.Report(ReportOptions{})
	if err != nil || !r.StoppedByMaxTime || r.Interrupted {
		t.Errorf("report: %v, stopped by MaxTime %v", err, r != nil && r.StoppedByMaxTime)
	}
}

// enoughAt is a stop rule that says enough once every chain holds at
// least n draws.
type enoughAt int

func (n enoughAt) Enough(draws [][][]float64) bool { return len(draws[0]) >= int(n) }

// TestReportStatus: the report, and so summary.json's "status", says how
// sampling ended: every draw made, ended by the stop rule, or cut short
// by a cancelled context.
func TestReportStatus(t *testing.T) {
	status := func(fit *GPFit) string {
		t.Helper()
		r, err := fit.Report(ReportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(reportJSON(t, r)["status"])
	}
	if got := status(shortFit(t, GPOptions{})); got != "completed" {
		t.Errorf("every draw made: status %q, want completed", got)
	}

	st := DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop, st.StopEvery = 50, 200, enoughAt(20), 10
	fit := shortFit(t, GPOptions{Settings: &st})
	if got := status(fit); got != "stopped by the rule" || len(fit.Draws[0]) != 20 {
		t.Errorf("a rule that says enough at 20 draws: status %q with %d draws per chain, want stopped by the rule with 20", got, len(fit.Draws[0]))
	}

	data, _, err := gp.Synthetic(30, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st = DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop = 10, 1<<20, nil
	var iters atomic.Int64
	st.Progress = func(int, int, int) {
		if iters.Add(1) == 100 {
			cancel()
		}
	}
	fit, err = FitGP(ctx, data, GPOptions{Settings: &st, Backend: "gonum"})
	if fit == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: fit %v, error %v", fit, err)
	}
	defer fit.Close()
	if got := status(fit); got != "interrupted" {
		t.Errorf("cancelled: status %q, want interrupted", got)
	}
}

// reportJSON returns r as summary.json holds it: marshalled, then read
// back as a map.
func reportJSON(t *testing.T, r *Report) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
