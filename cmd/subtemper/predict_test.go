package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper/gp"
)

// writeTestCSV writes rows of data d (from lo to hi) with the columns in
// reverse order (target first), optionally without the target.
func writeTestCSV(t *testing.T, dir, name string, d *gp.Data, lo, hi int, target bool) string {
	t.Helper()
	var b strings.Builder
	var cols []string
	if target {
		cols = append(cols, d.TargetName())
	}
	for j := d.D - 1; j >= 0; j-- {
		cols = append(cols, d.InputName(j))
	}
	b.WriteString(strings.Join(cols, ",") + "\n")
	for i := lo; i < hi; i++ {
		var row []string
		if target {
			row = append(row, strconv.FormatFloat(d.Y[i], 'g', -1, 64))
		}
		for j := d.D - 1; j >= 0; j-- {
			row = append(row, strconv.FormatFloat(d.X[i*d.D+j], 'g', -1, 64))
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return writeFile(t, dir, name, b.String())
}

// TestGPPredictAndReuse: gp --predict on a test file whose columns are in
// another order (matched by name) writes predictions.csv with the input
// columns and the ten summary columns, and predictions.json with the
// held-out metrics; gp --out saves a fit that predict reuses with the
// same predictions bit for bit; a test file without the target gives
// predictions and no metrics.
func TestGPPredictAndReuse(t *testing.T) {
	dir := t.TempDir()
	all, _, err := gp.Synthetic(50, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.Prefix(40)
	trainPath := filepath.Join(dir, "train.csv")
	if err := gp.WriteCSVFile(trainPath, train); err != nil {
		t.Fatal(err)
	}
	test := writeTestCSV(t, dir, "test.csv", all, 40, 50, true)
	out := filepath.Join(dir, "fit")
	args := []string{"gp", "--data", trainPath, "--standardize", "--sampler", "spt", "--inner", "mh", "--warmup", "50", "--draws", "100",
		"--out", out, "--predict", test, "--predict-draws", "150", "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "held-out: RMSE") {
		t.Errorf("no held-out metrics printed:\n%s", r.stdout)
	}
	recs := readCSV(t, filepath.Join(out, "predictions.csv"))
	want := "x1,x2,y_mean,y_sd,y_q05,y_q50,y_q95,f_mean,f_sd,f_q05,f_q50,f_q95,log_density,pit"
	if len(recs) != 11 || strings.Join(recs[0], ",") != want {
		t.Fatalf("predictions.csv: %d rows, header %v, want 11 rows, %s", len(recs), recs[0], want)
	}
	if recs[1][0] != strconv.FormatFloat(all.X[40*2], 'g', -1, 64) || recs[1][1] != strconv.FormatFloat(all.X[40*2+1], 'g', -1, 64) {
		t.Errorf("first row's inputs %v, want x1 = %v, x2 = %v", recs[1][:2], all.X[80], all.X[81])
	}
	var lpd float64
	for i, rec := range recs[1:] {
		v := make([]float64, len(rec))
		for k, s := range rec {
			if v[k], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		// q05 < q50 < q95 for y and f; y's interval is the wider.
		if !(v[4] < v[5] && v[5] < v[6] && v[9] < v[10] && v[10] < v[11] && v[6]-v[4] > v[11]-v[9] && v[3] > v[8]) {
			t.Errorf("row %v: quantiles out of order or y narrower than f", rec)
		}
		// The PIT is the CDF at the observed target, and the quantiles
		// invert the same CDF: the target lies on the same side of each
		// quantile y_q05, y_q50, y_q95 as the PIT of its probability,
		// unless the PIT is within 0.01 of it.
		y, pit := all.Y[40+i], v[13]
		if !(pit > 0 && pit < 1) {
			t.Errorf("row %d: pit %v", i, pit)
		}
		for k, prob := range []float64{0.05, 0.5, 0.95} {
			if math.Abs(pit-prob) > 0.01 && (pit < prob) != (y < v[4+k]) {
				t.Errorf("row %d: y = %v, pit %v, y's quantile %v at %v", i, y, pit, prob, v[4+k])
			}
		}
		lpd += v[12]
	}
	pj := readJSON(t, filepath.Join(out, "predictions.json"))
	if m, _ := pj["mlpd"].(float64); math.Abs(lpd/10-m) > 1e-12*math.Abs(m) {
		t.Errorf("mean of predictions.csv's log_density %v, predictions.json's mlpd %v", lpd/10, m)
	}
	for _, k := range []string{"rmse", "mlpd", "coverage50", "coverage90"} {
		if _, ok := pj[k].(float64); !ok {
			t.Errorf("predictions.json: %s = %v", k, pj[k])
		}
	}
	if pj["draws"] != 150.0 || pj["n"] != 10.0 {
		t.Errorf("predictions.json: draws %v, n %v; want 150, 10", pj["draws"], pj["n"])
	}
	for _, f := range []string{"fit.json", "fit-data.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the fit folder lacks %s", f)
		}
	}
	// Reuse: the same predictions from the saved fit.
	re := filepath.Join(dir, "re")
	args = []string{"predict", "--fit", out, "--data", test, "--out", re, "--predict-draws", "150", "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	a, _ := os.ReadFile(filepath.Join(out, "predictions.csv"))
	b, _ := os.ReadFile(filepath.Join(re, "predictions.csv"))
	if string(a) != string(b) {
		t.Error("predict --fit gives other predictions than gp --predict")
	}
	// No target column: predictions, no metrics.
	noY := writeTestCSV(t, dir, "new.csv", all, 45, 47, false)
	re2 := filepath.Join(dir, "re2")
	args = []string{"predict", "--fit", out, "--data", noY, "--out", re2}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if recs := readCSV(t, filepath.Join(re2, "predictions.csv")); len(recs) != 3 || len(recs[0]) != 12 {
		t.Errorf("predictions.csv of 2 new points without targets: %d rows, header %v", len(recs), recs[0])
	}
	if _, err := os.Stat(filepath.Join(re2, "predictions.json")); err == nil || strings.Contains(r.stdout, "held-out") {
		t.Error("metrics without targets")
	}
}

// TestPredictBadInput: missing columns, NaN cells, folders without a
// complete fit and missing flags exit with code 2 and say what is wrong;
// gp --predict checks its test file before sampling; /dev/zero as the test
// file is refused at the record cap (it used to be read for ever).
func TestPredictBadInput(t *testing.T) {
	dir := t.TempDir()
	trainPath, data := writeGPData(t, dir, 20, 2)
	out := filepath.Join(dir, "fit")
	args := []string{"gp", "--data", trainPath, "--sampler", "none", "--inner", "mh", "--warmup", "10", "--draws", "20", "--out", out, "--quiet"}
	mustCode(t, runBin(t, "", args...), 0, args...)
	missing := writeFile(t, dir, "missing.csv", "x2,z\n1,2\n")
	nan := writeFile(t, dir, "nan.csv", "x1,x2\n1,2\n3,NaN\n")
	incomplete := filepath.Join(dir, "incomplete")
	if err := os.MkdirAll(incomplete, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"draws.csv", "summary.json", "fit.json"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, incomplete, f, string(b)) // no fit-data.csv
	}
	good := writeTestCSV(t, dir, "good.csv", data, 0, 3, false)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--fit", out, "--data", missing}, `missing input column "x1"`},
		{[]string{"predict", "--fit", out, "--data", nan}, `nan.csv:3: column 2 ("x2") holds "NaN", a missing value; drop the incomplete rows (--drop-na`},
		{[]string{"predict", "--fit", dir, "--data", good}, "not a complete saved fit: no fit.json"},
		{[]string{"predict", "--fit", incomplete, "--data", good}, "not a complete saved fit: its training data fit-data.csv are missing"},
		{[]string{"predict", "--data", good}, "--fit DIR and --data FILE are both required"},
		{[]string{"predict", "--fit", out, "--data", good, "--predict-draws", "-1"}, "--predict-draws must be ≥ 0"},
		{[]string{"gp", "--data", trainPath, "--predict", missing, "--draws", "1000000"}, `missing input column "x1"`},
		{[]string{"predict", "--fit", out, "--data", "/dev/zero"}, "record longer than 4 MiB"},
		{[]string{"gp", "--data", trainPath, "--predict", "/dev/zero", "--draws", "1000000"}, "record longer than 4 MiB"},
	} {
		r := runBin(t, "", c.args...)
		mustCode(t, r, 2, c.args...)
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("subtemper %s: stderr %q, want it to say %q", strings.Join(c.args, " "), r.stderr, c.want)
		}
	}
}

// TestPredictDropNA: with --drop-na, predict and gp --predict drop the
// test file's rows with a missing input or target (NA, empty, NaN), say
// how many and on which lines, and predict at the others; without it the
// first missing cell is a usage error naming its line and column and
// pointing at --drop-na.
func TestPredictDropNA(t *testing.T) {
	dir := t.TempDir()
	trainPath, _ := writeGPData(t, dir, 20, 2)
	out := filepath.Join(dir, "fit")
	args := []string{"gp", "--data", trainPath, "--sampler", "none", "--inner", "mh", "--warmup", "10", "--draws", "20", "--out", out, "--quiet"}
	mustCode(t, runBin(t, "", args...), 0, args...)
	test := writeFile(t, dir, "test.csv", "x1,x2,y,note\n0.1,0.2,1,a\nNA,0.3,1,b\n0.4,,2,c\n0.5,0.6,NaN,d\n0.7,0.8,3,NA\n")
	re := filepath.Join(dir, "re")
	args = []string{"predict", "--fit", out, "--data", test, "--out", re, "--drop-na", "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "--drop-na dropped 3 rows of "+test+" with missing values: lines 3, 4, 5") {
		t.Errorf("predict --drop-na: no count of the dropped rows:\n%s", r.stdout)
	}
	if recs := readCSV(t, filepath.Join(re, "predictions.csv")); len(recs) != 3 {
		t.Errorf("predictions.csv: %d rows, want a header and the 2 complete rows", len(recs))
	}
	if pj := readJSON(t, filepath.Join(re, "predictions.json")); pj["n"] != 2.0 || pj["dropped_rows"] != 3.0 {
		t.Errorf("predictions.json: n %v, dropped_rows %v; want 2, 3", pj["n"], pj["dropped_rows"])
	}
	args = []string{"gp", "--data", trainPath, "--sampler", "none", "--inner", "mh", "--warmup", "10", "--draws", "20", "--predict", test, "--drop-na",
		"--out", filepath.Join(dir, "gp"), "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "--drop-na dropped 3 rows of "+test) {
		t.Errorf("gp --predict --drop-na: no count of the dropped rows:\n%s", r.stdout)
	}
	for _, args := range [][]string{
		{"predict", "--fit", out, "--data", test, "--out", re},
		{"gp", "--data", trainPath, "--predict", test, "--draws", "1000000"},
	} {
		r := runBin(t, "", args...)
		mustCode(t, r, 2, args...)
		if want := `test.csv:3: column 1 ("x1") holds "NA", a missing value; drop the incomplete rows (--drop-na`; !strings.Contains(r.stderr, want) {
			t.Errorf("subtemper %s: stderr %q, want it to say %q", strings.Join(args, " "), r.stderr, want)
		}
	}
}

// TestGPKernelFlag: gp --kernel matern32 records the kernel in
// summary.json and fit.json, predict --fit reproduces gp --predict's
// predictions bit for bit (the saved kernel is used), the same run with
// the default kernel predicts otherwise, and an unknown kernel is a usage
// error.
func TestGPKernelFlag(t *testing.T) {
	dir := t.TempDir()
	all, _, err := gp.Synthetic(40, 2, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.Prefix(32)
	trainPath := filepath.Join(dir, "train.csv")
	if err := gp.WriteCSVFile(trainPath, train); err != nil {
		t.Fatal(err)
	}
	test := writeTestCSV(t, dir, "test.csv", all, 32, 40, true)
	fit := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"gp", "--data", trainPath, "--sampler", "none", "--inner", "mh", "--warmup", "20", "--draws", "30",
			"--out", out, "--predict", test, "--quiet"}, extra...)
		mustCode(t, runBin(t, "", args...), 0, args...)
		return out
	}
	out := fit("m32", "--kernel", "matern32")
	se := fit("se")
	if k := readJSON(t, filepath.Join(out, "fit.json"))["kernel"]; k != "matern32" {
		t.Errorf("fit.json: kernel %v, want matern32", k)
	}
	if k := readJSON(t, filepath.Join(se, "fit.json"))["kernel"]; k != "se" {
		t.Errorf("fit.json of the default: kernel %v, want se", k)
	}
	sj, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(sj), `"kernel": "matern32"`) {
		t.Error("summary.json does not record the kernel")
	}
	re := filepath.Join(dir, "re")
	args := []string{"predict", "--fit", out, "--data", test, "--out", re, "--quiet"}
	mustCode(t, runBin(t, "", args...), 0, args...)
	a, _ := os.ReadFile(filepath.Join(out, "predictions.csv"))
	b, _ := os.ReadFile(filepath.Join(re, "predictions.csv"))
	c, _ := os.ReadFile(filepath.Join(se, "predictions.csv"))
	if len(a) == 0 || string(a) != string(b) {
		t.Error("predict --fit gives other predictions than gp --predict with --kernel matern32")
	}
	if string(a) == string(c) {
		t.Error("--kernel matern32 predicts what the squared exponential does")
	}
	args = []string{"gp", "--kernel", "matern", "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 2, args...)
	if !strings.Contains(r.stderr, "--kernel") {
		t.Errorf("bad --kernel: stderr %q", r.stderr)
	}
}

// TestPredictProgress checks predictProgress's lines: none before every
// has passed or at the last draw; otherwise the draws done and a time
// left in proportion to the draws still to do.
func TestPredictProgress(t *testing.T) {
	var b strings.Builder
	start := time.Now().Add(-40 * time.Second)
	f := predictProgress(&b, "predict", start, time.Hour)
	f(1, 4)
	if b.Len() != 0 {
		t.Errorf("a line before every had passed: %q", b.String())
	}
	f = predictProgress(&b, "predict", start, 0)
	f(1, 4)
	f(4, 4)
	// 1 of 4 draws in about 40 s: three times that, 2 minutes, left.
	want := "subtemper predict: predicting: 1 of 4 draws done, 40 s, about 2 min left\n"
	if b.String() != want {
		t.Errorf("lines %q, want %q", b.String(), want)
	}
}
