package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
)

// TestGPPriorAndInputsFlags: --prior-ell/--prior-sf/--prior-sn and
// --inputs reach the model, summary.json and the saved fit (which
// LoadGPFit reads back with the same prior and inputs), and predict --fit
// uses the chosen inputs of a test file holding every column in another
// order.
func TestGPPriorAndInputsFlags(t *testing.T) {
	dir := t.TempDir()
	all, _, err := gp.Synthetic(40, 3, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.Prefix(32)
	trainPath := filepath.Join(dir, "train.csv")
	if err := gp.WriteCSVFile(trainPath, train); err != nil {
		t.Fatal(err)
	}
	test := writeTestCSV(t, dir, "test.csv", all, 32, 40, true)
	out := filepath.Join(dir, "fit")
	args := []string{"gp", "--data", trainPath, "--inputs", "x3,x1", "--prior-ell", "lognormal:0.25,1.5", "--prior-sf", "gamma:3,2",
		"--prior-sn", "gamma:1.5,4", "--sampler", "spt", "--inner", "mh", "--levels", "1", "--warmup", "10", "--draws", "20",
		"--out", out, "--predict", test, "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	want := gp.Prior{LengthMedian: math.Exp(0.25), LengthSigma: 1.5, SignalShape: 3, SignalRate: 2, NoiseShape: 1.5, NoiseRate: 4}

	s := readJSON(t, filepath.Join(out, "summary.json"))
	data := s["data"].(map[string]any)
	if got := data["inputs"]; !equalJSON(got, []any{"x3", "x1"}) {
		t.Errorf("summary.json data.inputs = %v, want [x3 x1]", got)
	}
	pr := data["prior"].(map[string]any)
	ell, sf, sn := pr["ell"].(map[string]any), pr["sf"].(map[string]any), pr["sn"].(map[string]any)
	if math.Abs(ell["mu"].(float64)-0.25) > 1e-15 || ell["sigma"] != 1.5 || sf["shape"] != 3.0 || sf["rate"] != 2.0 || sn["shape"] != 1.5 || sn["rate"] != 4.0 {
		t.Errorf("summary.json data.prior = %v", pr)
	}
	checkVariables(t, s["variables"], []string{"ell_x3", "ell_x1", "sf", "sn"})
	if recs := readCSV(t, filepath.Join(out, "predictions.csv")); strings.Join(recs[0][:2], ",") != "x3,x1" {
		t.Errorf("predictions.csv header %v, want the chosen inputs x3,x1 first", recs[0])
	}

	fit, err := subtemper.LoadGPFit(out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if fit.Prior != want {
		t.Errorf("saved fit's prior %+v, want %+v", fit.Prior, want)
	}
	if fit.Data.D != 2 || fit.Data.InputName(0) != "x3" || fit.Data.InputName(1) != "x1" {
		t.Errorf("saved fit's inputs: D = %d, %v", fit.Data.D, fit.Data.Names)
	}
	for i := range fit.Data.N {
		if fit.Data.X[2*i] != train.X[3*i+2] || fit.Data.X[2*i+1] != train.X[3*i] {
			t.Fatalf("saved fit's row %d: %v, want x3 = %v, x1 = %v", i, fit.Data.X[2*i:2*i+2], train.X[3*i+2], train.X[3*i])
		}
	}
	// predict --fit on the full test file: the same predictions.
	out2 := filepath.Join(dir, "again")
	args = []string{"predict", "--fit", out, "--data", test, "--out", out2, "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	a, _ := os.ReadFile(filepath.Join(out, "predictions.csv"))
	b, _ := os.ReadFile(filepath.Join(out2, "predictions.csv"))
	if string(a) != string(b) {
		t.Errorf("predict --fit gives other predictions than gp --predict")
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestGPModelFlagErrors: bad prior and input flags exit 2 with a message
// naming the flag or the column.
func TestGPModelFlagErrors(t *testing.T) {
	dir := t.TempDir()
	d, _, err := gp.Synthetic(10, 3, 1, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "d.csv")
	if err := gp.WriteCSVFile(p, d); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--prior-ell", "gamma:1,2"}, "--prior-ell \"gamma:1,2\": the family must be lognormal or invhalft"},
		{[]string{"--prior-ell", "invhalft:0,1"}, "NU must be positive"},
		{[]string{"--prior-ell", "invhalft:3"}, "1 parameter, want 2"},
		{[]string{"--prior-ell", "lognormal:1,0"}, "SIGMA must be positive"},
		{[]string{"--prior-ell", "lognormal:1e9,1"}, "outside the floating-point range"},
		{[]string{"--prior-sf", "gamma:0,1"}, "SHAPE must be positive"},
		{[]string{"--prior-sn", "gamma:1"}, "1 parameter, want 2"},
		{[]string{"--prior-sn", "2,2"}, "no family"},
		{[]string{"--prior-sf", "gamma:1,NaN"}, "not a finite number"},
		{[]string{"--inputs", "x1,zz"}, `names "zz", which is not a column`},
		{[]string{"--inputs", "x1,y"}, `names "y", the target column`},
		{[]string{"--exclude", "x1,x1"}, `names "x1" twice`},
		{[]string{"--exclude", "x1,x2,x3"}, "leaves no input column"},
		{[]string{"--inputs", "x1,,x2"}, "name 2 is empty"},
		{[]string{"--inputs", "x1", "--exclude", "x2"}, "cannot be combined"},
	} {
		args := append([]string{"gp", "--data", p, "--quiet"}, c.args...)
		r := runBin(t, "", args...)
		mustCode(t, r, 2, args...)
		if !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: stderr %q, want it to contain %q", c.args, r.stderr, c.msg)
		}
	}
	args := []string{"gp", "--inputs", "x1", "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 2, args...)
	args = []string{"eval", "gp", "--data", p, "--exclude", "x2", "--lengthscales", "1,1", "--sf", "1", "--sn", "0.5", "--prior-sf", "gamma:2,2", "--json"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
}

// TestGPInvHalfTPrior: --prior-ell invhalft:NU,S reaches summary.json and
// the saved fit, whose predictions predict --fit reproduces.
func TestGPInvHalfTPrior(t *testing.T) {
	dir := t.TempDir()
	all, _, err := gp.Synthetic(30, 2, 7, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.Prefix(24)
	trainPath := filepath.Join(dir, "train.csv")
	if err := gp.WriteCSVFile(trainPath, train); err != nil {
		t.Fatal(err)
	}
	test := writeTestCSV(t, dir, "test.csv", all, 24, 30, true)
	out := filepath.Join(dir, "fit")
	args := []string{"gp", "--data", trainPath, "--prior-ell", "invhalft:2,0.5", "--sampler", "none", "--inner", "mh",
		"--warmup", "10", "--draws", "20", "--out", out, "--predict", test, "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	s := readJSON(t, filepath.Join(out, "summary.json"))
	// summary.json's data checksum is that of the saved fit's data file.
	raw, err := os.ReadFile(filepath.Join(out, subtemper.FitDataFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s["data"].(map[string]any)["sha256"], fmt.Sprintf("%x", sha256.Sum256(raw)); got != want {
		t.Errorf("summary.json data.sha256 = %v, want %s (the SHA-256 of %s)", got, want, subtemper.FitDataFile)
	}
	ell := s["data"].(map[string]any)["prior"].(map[string]any)["ell"].(map[string]any)
	if ell["family"] != "invhalft" || ell["df"] != 2.0 || ell["scale"] != 0.5 {
		t.Errorf("summary.json data.prior.ell = %v, want invhalft, df 2, scale 0.5", ell)
	}
	fit, err := subtemper.LoadGPFit(out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	want, err := gp.Prior{LengthFamily: gp.LengthInvHalfT, LengthDF: 2, LengthScale: 0.5}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if fit.Prior != want {
		t.Errorf("saved fit's prior %+v, want %+v", fit.Prior, want)
	}
	out2 := filepath.Join(dir, "again")
	args = []string{"predict", "--fit", out, "--data", test, "--out", out2, "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	a, _ := os.ReadFile(filepath.Join(out, "predictions.csv"))
	b, _ := os.ReadFile(filepath.Join(out2, "predictions.csv"))
	if string(a) != string(b) {
		t.Errorf("predict --fit gives other predictions than gp --predict")
	}
}
