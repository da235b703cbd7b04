package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/subtemper/subtemper/internal/memlimit"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
)

// bin is the subtemper binary built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "subtemper-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "subtemper")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building subtemper: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the binary gave.
type result struct {
	stdout, stderr string
	code           int
}

// runBin runs the binary with args (and stdin, if not empty).
func runBin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return result{o.String(), e.String(), code}
}

func mustCode(t *testing.T, r result, want int, args ...string) {
	t.Helper()
	if r.code != want {
		t.Fatalf("subtemper %s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
}

// readCSV reads a whole CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// variableKeys are the per-variable fields diag --json and summary.json share.
var variableKeys = []string{"name", "mean", "median", "sd", "mad", "q5", "q95", "rhat", "rhat_bulk", "rhat_tail",
	"ess_bulk", "ess_tail", "ess_mean", "mcse_mean", "rhat_paper", "ess_paper"}

func checkVariables(t *testing.T, vars any, names []string) {
	t.Helper()
	vs, ok := vars.([]any)
	if !ok || len(vs) != len(names) {
		t.Fatalf("variables = %v, want %d entries", vars, len(names))
	}
	for i, v := range vs {
		m := v.(map[string]any)
		for _, k := range variableKeys {
			if _, ok := m[k]; !ok {
				t.Errorf("variable %d lacks %q", i, k)
			}
		}
		if m["name"] != names[i] {
			t.Errorf("variable %d is %v, want %s", i, m["name"], names[i])
		}
	}
}

// smallGP are flags for a fast GP run: the paper's STT + HMC with a fixed
// step (a 20-iteration warm-up is too short to adapt anything).
var smallGP = []string{"--paper", "--n", "24", "--dims", "2", "--warmup", "20", "--draws", "40", "--levels", "2", "--quiet"}

func TestGPSyntheticFiles(t *testing.T) {
	out := t.TempDir()
	args := append([]string{"gp", "--out", out, "--plots", "--chains", "2"}, smallGP...)
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if r.stderr != "" {
		t.Errorf("--quiet run wrote to stderr: %q", r.stderr)
	}
	for _, want := range []string{"ell_x1", "ell_x2", "sf", "sn", "rhat", "ess_bulk", "rhat_paper", "ess_bulk/s", "tempered-transition acceptance", "seed 1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	recs := readCSV(t, filepath.Join(out, "draws.csv"))
	if got, want := strings.Join(recs[0], ","), drawsHeader+",ell_x1,ell_x2,sf,sn"; got != want {
		t.Errorf("draws.csv header %q, want %q", got, want)
	}
	if len(recs) != 1+2*40 {
		t.Errorf("draws.csv has %d rows, want %d", len(recs)-1, 2*40)
	}
	for _, v := range recs[1][3:] {
		var x float64
		if _, err := fmt.Sscan(v, &x); err != nil || !(x > 0) {
			t.Errorf("draws.csv value %q is not a positive number (natural units)", v)
		}
	}
	data := readCSV(t, filepath.Join(out, "data.csv"))
	if len(data) != 25 || strings.Join(data[0], ",") != "x1,x2,y" {
		t.Errorf("data.csv: %d rows, header %v", len(data), data[0])
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	if s["interrupted"] != false {
		t.Errorf("interrupted = %v, want false", s["interrupted"])
	}
	// The verdict names exactly the variables whose R-hat is not below
	// 1.01 (a short run: some are); it follows the summary's own
	// diagnostics.
	var unmixed []string
	for _, v := range s["variables"].([]any) {
		m := v.(map[string]any)
		if r, ok := m["rhat"].(float64); !ok || !(r < 1.01) {
			unmixed = append(unmixed, m["name"].(string))
		}
	}
	conv, _ := s["converged"].(bool)
	if len(unmixed) > 0 {
		want := "NOT converged: R-hat ≥ 1.01 for " + strings.Join(unmixed, ", ")
		if conv || !strings.Contains(r.stdout, want) || s["verdict"] != strings.SplitN(r.stdout[strings.Index(r.stdout, "NOT converged"):], "\n", 2)[0] {
			t.Errorf("verdict: converged = %v, want %q in output and summary.json's verdict:\n%s", conv, want, r.stdout)
		}
	}
	if mr := s["max_rhat"].(float64); (mr < 1.01) == (len(unmixed) > 0) {
		t.Errorf("max_rhat %v against unmixed variables %v", mr, unmixed)
	}
	if _, ok := s["converged_paper"].(bool); !ok {
		t.Errorf("summary.json lacks converged_paper")
	}
	checkVariables(t, s["variables"], []string{"ell_x1", "ell_x2", "sf", "sn"})
	settings := s["settings"].(map[string]any)
	for _, k := range []string{"sampler", "inner", "chains", "warmup", "draws", "thin", "levels", "beta-min", "swap", "step-size", "leapfrog", "mh-scale", "adapt", "backend", "seed", "out", "plots", "n", "dims", "data-seed", "standardize"} {
		if _, ok := settings[k]; !ok {
			t.Errorf("settings lacks %q", k)
		}
	}
	if settings["sampler"] != "stt" || settings["inner"] != "hmc" || settings["draws"] != 40.0 {
		t.Errorf("settings = %v", settings)
	}
	if s["seed"] != 1.0 || s["backend"] != "gonum" || s["adapt"] != "none" {
		t.Errorf("seed %v backend %v adapt %v", s["seed"], s["backend"], s["adapt"])
	}
	ladder := s["ladder"].(map[string]any)
	if len(ladder["betas"].([]any)) != 3 || len(ladder["subset_sizes"].([]any)) != 3 {
		t.Errorf("ladder = %v", ladder)
	}
	tm := s["timings"].(map[string]any)
	if len(tm["chain_seconds"].([]any)) != 2 || len(tm["chain_cpu_seconds"].([]any)) != 2 || !(tm["wall_seconds"].(float64) > 0) || !(tm["mean_chain_cpu_seconds"].(float64) > 0) {
		t.Errorf("timings = %v", tm)
	}
	if len(s["levels"].([]any)) != 3 {
		t.Errorf("levels = %v", s["levels"])
	}
	for _, k := range []string{"tempered_transitions", "round_trips", "failed_evaluations", "median_rhat", "median_ess_bulk_per_second", "swaps", "data"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	for _, f := range []string{"traces", "rhat_draws", "rhat_seconds", "accept_levels"} {
		for _, ext := range []string{".png", ".svg"} {
			fi, err := os.Stat(filepath.Join(out, f+ext))
			if err != nil || fi.Size() == 0 {
				t.Errorf("figure %s%s: %v", f, ext, err)
			}
		}
	}

	// The draws the run wrote are valid input for diag.
	r = runBin(t, "", "diag", filepath.Join(out, "draws.csv"), "--json")
	mustCode(t, r, 0, "diag")
	var d map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("diag --json: %v\n%s", err, r.stdout)
	}
	checkVariables(t, d["variables"], []string{"ell_x1", "ell_x2", "sf", "sn"})
}

// writeGPData writes a small synthetic GP dataset and returns its path.
func writeGPData(t *testing.T, dir string, n, d int) (string, *gp.Data) {
	t.Helper()
	data, _, err := gp.Synthetic(n, d, 3, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "gp.csv")
	if err := gp.WriteCSVFile(p, data); err != nil {
		t.Fatal(err)
	}
	return p, data
}

func TestGPDataJSON(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeGPData(t, dir, 30, 2)
	args := []string{"gp", "--data", path, "--target", "y", "--standardize", "--sampler", "spt", "--inner", "mh", "--swap", "deo",
		"--warmup", "10", "--draws", "30", "--levels", "3", "--json", "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	var s map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, r.stdout)
	}
	checkVariables(t, s["variables"], []string{"ell_x1", "ell_x2", "sf", "sn"})
	if sw := s["swaps"].([]any); len(sw) != 3 {
		t.Errorf("swaps = %v, want 3 adjacent pairs", sw)
	}
	if data := s["data"].(map[string]any); data["standardized"] != true || data["file"] != path {
		t.Errorf("data = %v", data)
	}
}

func TestMVN(t *testing.T) {
	out := t.TempDir()
	args := []string{"mvn", "--n", "40", "--dims", "3", "--warmup", "10", "--draws", "25", "--levels", "2", "--out", out, "--quiet"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	recs := readCSV(t, filepath.Join(out, "draws.csv"))
	if got := strings.Join(recs[0], ","); got != drawsHeader+",theta_1,theta_2,theta_3" {
		t.Errorf("header %q", got)
	}
	if len(recs) != 1+3*25 {
		t.Errorf("%d rows, want %d", len(recs)-1, 3*25)
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	checkVariables(t, s["variables"], []string{"theta_1", "theta_2", "theta_3"})
	// draws.nc holds the same draws: diag gives the same diagnostics of it.
	var fromCSV, fromNC string
	for _, f := range []struct {
		file string
		out  *string
	}{{"draws.csv", &fromCSV}, {"draws.nc", &fromNC}} {
		args := []string{"diag", filepath.Join(out, f.file), "--json"}
		r := runBin(t, "", args...)
		mustCode(t, r, 0, args...)
		*f.out = r.stdout
	}
	if fromCSV != fromNC {
		t.Errorf("diag of draws.nc:\n%s\ndiag of draws.csv:\n%s", fromNC, fromCSV)
	}
	if s["settings"].(map[string]any)["leapfrog"] != 10.0 {
		t.Errorf("mvn's default L = %v, want 10", s["settings"].(map[string]any)["leapfrog"])
	}

	// The same data from files, with Σ.
	dir := t.TempDir()
	x := writeFile(t, dir, "x.csv", "a,b\n0.1,0.2\n-0.3,0.5\n0.2,-0.1\n1.0,0.7\n")
	sig := writeFile(t, dir, "sigma.csv", "1,0.5\n0.5,1\n")
	args = []string{"mvn", "--data", x, "--sigma", sig, "--prior-sd", "2", "--warmup", "5", "--draws", "10", "--sampler", "pt", "--levels", "2", "--json", "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, `"theta_2"`) {
		t.Errorf("output lacks theta_2:\n%s", r.stdout)
	}

	// SPT's swaps reuse the colder state's value on the hotter subset
	// (nested prefixes): one reuse per swap offered, reported per level.
	args = []string{"mvn", "--n", "40", "--dims", "2", "--warmup", "5", "--draws", "10", "--sampler", "spt", "--levels", "2", "--json", "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	var js struct {
		Levels []struct {
			PrefixReuses *int64 `json:"prefix_reuses"`
		} `json:"levels"`
		Swaps []struct {
			Proposed int64 `json:"proposed"`
		} `json:"swaps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Levels) != 3 || len(js.Swaps) != 2 {
		t.Fatalf("%d levels, %d swap pairs in %s", len(js.Levels), len(js.Swaps), r.stdout)
	}
	for m, l := range js.Levels {
		want := int64(0)
		if m > 0 {
			want = js.Swaps[m-1].Proposed
		}
		if l.PrefixReuses == nil || *l.PrefixReuses != want || (m > 0 && want == 0) {
			t.Errorf("level %d: prefix_reuses %v, want %d", m, l.PrefixReuses, want)
		}
	}

	// A GP's SPT swaps with HMC and the DEO schedule: the state that comes
	// down gets its gradient from its swap evaluation, one resume per
	// accepted swap, at the level it comes down to.
	args = []string{"gp", "--n", "40", "--dims", "2", "--warmup", "10", "--draws", "20", "--sampler", "spt", "--hot", "same", "--swap", "deo", "--levels", "2", "--json", "--quiet"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	var gs struct {
		Levels []struct {
			GradResumes *int64 `json:"grad_resumes"`
		} `json:"levels"`
		Swaps []struct {
			Accepted int64 `json:"accepted"`
		} `json:"swaps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &gs); err != nil {
		t.Fatal(err)
	}
	if len(gs.Levels) != 3 || len(gs.Swaps) != 2 {
		t.Fatalf("%d levels, %d swap pairs in %s", len(gs.Levels), len(gs.Swaps), r.stdout)
	}
	for m, l := range gs.Levels {
		want := int64(0)
		if m < 2 {
			want = gs.Swaps[m].Accepted
		}
		if l.GradResumes == nil || *l.GradResumes != want || (m < 2 && want == 0) {
			t.Errorf("gp level %d: grad_resumes %v, want %d", m, l.GradResumes, want)
		}
	}
}

func TestDiag(t *testing.T) {
	var b strings.Builder
	b.WriteString("chain,draw,a,b\n")
	for c := 1; c <= 2; c++ {
		for d := 1; d <= 20; d++ {
			fmt.Fprintf(&b, "%d,%d,%g,%g\n", c, d, math.Sin(float64(c*d)), float64(d%7)+0.1*float64(c))
		}
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "draws.csv", b.String())
	r := runBin(t, "", "diag", p)
	mustCode(t, r, 0, "diag", p)
	for _, want := range []string{"variable", "rhat", "ess_bulk", "ess_tail", "rhat_paper", "2 chains × 20 draws"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diag output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runBin(t, b.String(), "diag", "--json", "-")
	mustCode(t, r, 0, "diag", "--json", "-")
	var d map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("diag --json: %v\n%s", err, r.stdout)
	}
	if len(d) != 3 || d["converged"] != false || !strings.HasPrefix(d["verdict"].(string), "NOT converged: bulk-ESS < 200 for a, b") {
		t.Errorf("diag --json has keys %v, want converged (false: 2 short chains), verdict and variables", d)
	}
	checkVariables(t, d["variables"], []string{"a", "b"})
}

func TestEvalJSONShape(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeGPData(t, dir, 15, 2)
	args := []string{"eval", "gp", "--data", path, "--lengthscales", "1.5,0.7", "--sf", "2", "--sn", "0.3", "--json"}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "gradient,log_jacobian,log_marginal_likelihood,log_prior" {
		t.Errorf("keys %s", got)
	}
	if g := m["gradient"].([]any); len(g) != 4 {
		t.Errorf("gradient has %d entries, want D+2 = 4", len(g))
	}
	r = runBin(t, "", args[:len(args)-1]...)
	mustCode(t, r, 0, args[:len(args)-1]...)
	if !strings.Contains(r.stdout, "log marginal likelihood") {
		t.Errorf("human output:\n%s", r.stdout)
	}
}

// TestEvalInProcess checks `eval gp --json` against gp.Model directly.
func TestEvalInProcess(t *testing.T) {
	dir := t.TempDir()
	path, data := writeGPData(t, dir, 20, 3)
	var o, e bytes.Buffer
	io := &stdio{in: strings.NewReader(""), out: &o, err: &e}
	code := run(context.Background(), []string{"eval", "gp", "--data", path, "--lengthscales", "1,2,0.5", "--sf", "1.5", "--sn", "0.2", "--json"}, io)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var got struct {
		LML      float64   `json:"log_marginal_likelihood"`
		Gradient []float64 `json:"gradient"`
		LogPrior float64   `json:"log_prior"`
		LogJac   float64   `json:"log_jacobian"`
	}
	if err := json.Unmarshal(o.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	m, err := gp.New(linalg.Default(), data, gp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	theta := []float64{1, 2, 0.5, 1.5, 0.2}
	u, _ := gp.LogTheta(nil, theta)
	grad := make([]float64, len(u))
	ll, err := m.LogLik(nil, u, grad)
	if err != nil {
		t.Fatal(err)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	if !close(got.LML, ll) {
		t.Errorf("log_marginal_likelihood %v, model %v", got.LML, ll)
	}
	for i := range grad {
		if !close(got.Gradient[i], grad[i]) {
			t.Errorf("gradient[%d] %v, model %v", i, got.Gradient[i], grad[i])
		}
	}
	if lp := m.LogPrior(u, nil); !close(got.LogPrior, lp) {
		t.Errorf("log_prior %v, model %v", got.LogPrior, lp)
	}
	var jac float64
	for _, v := range u {
		jac += v
	}
	if !close(got.LogJac, jac) {
		t.Errorf("log_jacobian %v, want Σ log θ = %v", got.LogJac, jac)
	}
	// log_prior includes the Jacobian: minus it, the density of θ.
	p := gp.Prior{}
	if want := p.LogDensity(u, nil); !close(got.LogPrior, want) {
		t.Errorf("log_prior %v, Prior.LogDensity %v", got.LogPrior, want)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good, _ := writeGPData(t, dir, 10, 2)
	empty := writeFile(t, dir, "empty.csv", "")
	nan := writeFile(t, dir, "nan.csv", "x1,y\n1,2\nNaN,3\n4,5\n")
	ragged := writeFile(t, dir, "ragged.csv", "x1,y\n1,2\n3\n4,5\n")
	x := writeFile(t, dir, "x.csv", "a,b\n0.1,0.2\n-0.3,0.5\n")
	notPD := writeFile(t, dir, "notpd.csv", "1,2\n2,1\n")
	badDraws := writeFile(t, dir, "bad.csv", "chain,draw,a\n1,1,0.5\n1,2,oops\n")
	notNC := writeFile(t, dir, "bad.nc", "chain,draw,a\n1,1,0.5\n")
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"empty CSV", []string{"gp", "--data", empty}, []string{"empty.csv"}},
		{"NaN cell", []string{"gp", "--data", nan}, []string{"nan.csv:3"}},
		{"ragged row", []string{"gp", "--data", ragged}, []string{"ragged.csv:3"}},
		{"unknown flag", []string{"gp", "--bogus"}, []string{"--bogus"}},
		{"bad sampler", []string{"gp", "--sampler", "xyz"}, []string{"--sampler", "xyz"}},
		{"bad inner", []string{"mvn", "--inner", "gibbs"}, []string{"--inner"}},
		{"bad adapt", []string{"mvn", "--adapt", "yes"}, []string{"--adapt"}},
		{"bad ladder", []string{"gp", "--ladder", "geometric"}, []string{"--ladder"}},
		{"target accept", []string{"gp", "--target-accept", "1"}, []string{"--target-accept"}},
		{"max depth", []string{"gp", "--max-depth", "31"}, []string{"--max-depth"}},
		{"bad swap", []string{"gp", "--swap", "odd"}, []string{"--swap"}},
		{"beta-min", []string{"gp", "--beta-min", "1.5"}, []string{"--beta-min"}},
		{"chains 0", []string{"gp", "--chains", "0"}, []string{"--chains"}},
		{"levels negative", []string{"mvn", "--levels", "-1"}, []string{"--levels"}},
		{"negative warmup", []string{"gp", "--warmup", "-1"}, []string{"--warmup"}},
		{"step size", []string{"gp", "--step-size", "-0.1"}, []string{"--step-size"}},
		{"not a number", []string{"gp", "--draws", "many"}, []string{"--draws"}},
		{"iterations overflow", []string{"gp", "--draws", "2", "--thin", "9223372036854775807"}, []string{"--thin", "out of range"}},
		{"backend", []string{"gp", "--backend", "quantum"}, []string{"--backend", "gonum"}},
		{"plots without out", []string{"gp", "--plots"}, []string{"--plots", "--out"}},
		{"target without data", []string{"gp", "--target", "y"}, []string{"--target"}},
		{"n with data", []string{"gp", "--data", good, "--n", "5"}, []string{"--n"}},
		{"unknown target", []string{"gp", "--data", good, "--target", "zz"}, []string{"zz"}},
		{"lengthscales count", []string{"eval", "gp", "--data", good, "--lengthscales", "1,2,3", "--sf", "1", "--sn", "1"}, []string{"--lengthscales", "3", "2 input columns"}},
		{"lengthscale negative", []string{"eval", "gp", "--data", good, "--lengthscales", "1,-2", "--sf", "1", "--sn", "1"}, []string{"--lengthscales"}},
		{"lengthscale not number", []string{"eval", "gp", "--data", good, "--lengthscales", "1,abc", "--sf", "1", "--sn", "1"}, []string{"--lengthscales", "abc"}},
		{"sf missing", []string{"eval", "gp", "--data", good, "--lengthscales", "1,2", "--sn", "1"}, []string{"--sf"}},
		{"eval model", []string{"eval", "mvn", "--data", good}, []string{"gp"}},
		{"sigma not PD", []string{"mvn", "--data", x, "--sigma", notPD}, []string{"notpd.csv", "positive definite"}},
		{"data without sigma", []string{"mvn", "--data", x}, []string{"--sigma"}},
		{"prior-sd", []string{"mvn", "--prior-sd", "-1"}, []string{"--prior-sd"}},
		{"diag bad value", []string{"diag", badDraws}, []string{"bad.csv:3:3", "oops"}},
		{"diag no file", []string{"diag"}, []string{"FILE"}},
		{"diag not netCDF", []string{"diag", notNC}, []string{"bad.nc", "not a netCDF"}},
		{"diag missing file", []string{"diag", filepath.Join(dir, "nope.csv")}, []string{"nope.csv"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
	}
	if avail, _ := memlimit.Available(); avail > 0 { // the check needs the machine's memory size
		cases = append(cases, struct {
			name string
			args []string
			want []string
		}{"draws beyond memory", []string{"gp", "--n", "10", "--dims", "1", "--draws", "1000000000000"}, []string{"--draws", "needs about"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runBin(t, "", c.args...)
			mustCode(t, r, 2, c.args...)
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, r.stderr)
				}
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty: %q", r.stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, c := range []string{"gp", "mvn", "diag", "eval"} {
		r := runBin(t, "", c, "--help")
		mustCode(t, r, 0, c, "--help")
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, "  --") && !strings.Contains(line, "--help") && !strings.Contains(line, "(default ") {
				t.Errorf("%s --help: flag line without its default: %q", c, line)
			}
		}
	}
	r := runBin(t, "", "gp", "--help")
	for _, want := range []string{"--sampler string", "(default " + defaultSampler + ")", "(default " + defaultInner + ")", "--adapt", "(default diag)", "--ladder", "(default adaptive)", "--paper", "L = 5", "--backend", "gonum", "--leapfrog L", "(default 10)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("gp --help lacks %q", want)
		}
	}
	r = runBin(t, "", "mvn", "--help")
	if !strings.Contains(r.stdout, "--leapfrog L") || !strings.Contains(r.stdout, "L = 10") {
		t.Errorf("mvn --help does not give the paper's L = 10:\n%s", r.stdout)
	}
	r = runBin(t, "", "help")
	mustCode(t, r, 0, "help")
	if !strings.Contains(r.stdout, "reproduce") {
		t.Errorf("help lacks the commands:\n%s", r.stdout)
	}
}

// TestInterrupt sends SIGINT to a long run once it samples and checks that
// it exits with 130 after writing its draws, marked interrupted.
func TestInterrupt(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(bin, "gp", "--n", "30", "--dims", "2", "--warmup", "none", "--draws", "1000000", "--min-ess", "0", "--levels", "2", "--out", out)
	var o bytes.Buffer
	cmd.Stdout = &o
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "sampling") {
				once = true
				close(started)
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no 'sampling' line on stderr within 30 s")
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitErr := make(chan error, 1)
	go func() { <-done; waitErr <- cmd.Wait() }()
	select {
	case err = <-waitErr:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run did not stop within 30 s of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want code 130\nstderr:\n%s", err, errText.String())
	}
	recs := readCSV(t, filepath.Join(out, "draws.csv"))
	if len(recs) < 2 {
		t.Fatalf("draws.csv has no draws")
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	if s["interrupted"] != true {
		t.Errorf("summary.json interrupted = %v", s["interrupted"])
	}
	per := s["draws"].(map[string]any)["per_chain"].([]any)
	total := 0
	for _, p := range per {
		total += int(p.(float64))
	}
	if total != len(recs)-1 {
		t.Errorf("summary.json counts %d draws, draws.csv holds %d", total, len(recs)-1)
	}
	if !strings.Contains(o.String(), "INTERRUPTED") {
		t.Errorf("stdout does not say the run was interrupted:\n%s", o.String())
	}
	if !strings.Contains(errText.String(), "interrupted") {
		t.Errorf("stderr does not say interrupted:\n%s", errText.String())
	}
	// The interrupted draws can be diagnosed: chains cut to the shortest.
	args := []string{"diag", "--truncate", "--json", filepath.Join(out, "draws.csv")}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, `"variables"`) {
		t.Errorf("diag --truncate printed no variables:\n%s", r.stdout)
	}
}

// TestFlagParsing checks flags after positional arguments and "--".
func TestFlagParsing(t *testing.T) {
	var x bool
	fs := newFlagSet("t", "t", "")
	fs.boolean(&x, "json", false, "j")
	pos, err := fs.parse([]string{"a.csv", "--json", "--", "--b"}, discard{})
	if err != nil || !x || !slices.Equal(pos, []string{"a.csv", "--b"}) {
		t.Errorf("parse: pos %v, json %v, err %v", pos, x, err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestStuckChains: data on a scale far from the prior's make every HMC
// trajectory diverge; the run says the chains never moved and suggests
// --standardize, and summary.json lists them.
func TestStuckChains(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("size,price\n")
	for i := range 30 {
		size := 50 + 7*float64(i)
		fmt.Fprintf(&b, "%g,%g\n", size, 1000*size+float64((i*7919)%50000))
	}
	path := writeFile(t, dir, "house.csv", b.String())
	out := filepath.Join(dir, "out")
	args := []string{"gp", "--paper", "--data", path, "--draws", "20", "--warmup", "10", "--quiet", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	for _, w := range []string{"never moved", "--standardize", "divergent"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "run longer") {
		t.Errorf("stuck chains, yet the advice is to run longer:\n%s", r.stdout)
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	if sc, _ := s["stuck_chains"].([]any); len(sc) != 3 {
		t.Errorf("stuck_chains = %v, want the 3 chains", s["stuck_chains"])
	}
	if d, _ := s["divergent_transitions"].(float64); d == 0 {
		t.Errorf("divergent_transitions = %v, want > 0", s["divergent_transitions"])
	}

	// The same data standardized: the chains move, no warning.
	args = []string{"gp", "--paper", "--data", path, "--standardize", "--draws", "20", "--warmup", "10", "--quiet", "--json"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if strings.Contains(r.stdout, "stuck_chains") {
		t.Errorf("standardized run reports stuck chains:\n%s", r.stdout)
	}
}

// TestStuckHint: the advice for chains that never moved names the ladder
// when tempered transitions were almost never accepted, --standardize for
// unstandardized GP data, and the step otherwise.
func TestStuckHint(t *testing.T) {
	gpRaw := &job{command: "gp", data: map[string]any{"standardized": false}}
	mvnJob := &job{command: "mvn", data: map[string]any{}}
	for _, c := range []struct {
		j    *job
		s    *runSummary
		want string
	}{
		{mvnJob, &runSummary{TT: &ttJSON{Proposed: 4500, Accepted: 12}, Divergent: 592}, "--levels"},
		{gpRaw, &runSummary{TT: &ttJSON{Proposed: 450, Accepted: 450}, Divergent: 5400}, "--standardize"},
		{mvnJob, &runSummary{Divergent: 10}, "--step-size"},
	} {
		if h := stuckHint(c.j, c.s); !strings.Contains(h, c.want) {
			t.Errorf("hint %q lacks %q", h, c.want)
		}
	}
}

// pluralAfterOne matches a count of 1 followed by a plural noun.
var pluralAfterOne = regexp.MustCompile(`(^|[^\d.,])1 (chains|draws|variables|inputs|input columns|observations|iterations|values|fields|levels|cells|folders|duplicates|parameters)\b`)

// TestSingularCounts: counts of one take the singular ("1 chain × 1
// draw", "D = 1 input"), other counts the plural.
func TestSingularCounts(t *testing.T) {
	dir := t.TempDir()
	check := func(args []string, text string, want ...string) {
		t.Helper()
		if m := pluralAfterOne.FindString(text); m != "" {
			t.Errorf("%v: %q in\n%s", args, m, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: output lacks %q:\n%s", args, w, text)
			}
		}
	}
	draws := writeFile(t, dir, "draws.csv", "chain,draw,x\n1,1,0.5\n")
	args := []string{"diag", draws}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	check(args, r.stdout, "1 chain × 1 draw, 1 variable")

	oneInput := writeFile(t, dir, "one.csv", "a,y\n1,2\n2,4\n3,1\n")
	args = []string{"gp", "--data", oneInput, "--chains", "1", "--warmup", "none", "--draws", "1", "--levels", "1"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	check(args, r.stdout+r.stderr, "1 chain, warm-up 0, 1 draw (thin 1)", "N = 3 observations, D = 1 input,",
		"posterior summary of 1 chain × 1 draw", "sampling 1 chain × (0 warm-up + 1×1) iteration with")
	args = []string{"gp", "--data", oneInput, "--chains", "2", "--warmup", "none", "--draws", "2", "--levels", "1"}
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	check(args, r.stdout+r.stderr, "2 chains, warm-up 0, 2 draws (thin 1)", "posterior summary of 2 chains × 2 draws",
		"sampling 2 chains × (0 warm-up + 2×1) iterations with")

	twoInputs, _ := writeGPData(t, dir, 10, 2)
	args = []string{"eval", "gp", "--data", twoInputs, "--lengthscales", "1", "--sf", "1", "--sn", "1"}
	r = runBin(t, "", args...)
	mustCode(t, r, 2, args...)
	check(args, r.stderr, "--lengthscales has 1 value but", "has 2 input columns")
	args = []string{"eval", "gp", "--data", oneInput, "--lengthscales", "1,2", "--sf", "1", "--sn", "1"}
	r = runBin(t, "", args...)
	mustCode(t, r, 2, args...)
	check(args, r.stderr, "--lengthscales has 2 values but", "has 1 input column (a)")
}

// TestDiagTableMatchesJSON: diag's table prints NA exactly where --json has
// null, also for values that are infinite rather than not estimable: an
// R-hat of chains each constant but different (+Inf) and the mean of
// draws holding +Inf. The table never prints Inf.
func TestDiagTableMatchesJSON(t *testing.T) {
	var b strings.Builder
	b.WriteString("chain,draw,stuck,inf,ok\n")
	for c := 1; c <= 2; c++ {
		for d := 1; d <= 12; d++ {
			inf := fmt.Sprint(float64(d*c) / 7)
			if c == 2 && d == 5 {
				inf = "Inf"
			}
			fmt.Fprintf(&b, "%d,%d,%d,%s,%g\n", c, d, c, inf, math.Sin(float64(3*c+d)))
		}
	}
	p := writeFile(t, t.TempDir(), "draws.csv", b.String())
	table := runBin(t, "", "diag", p)
	mustCode(t, table, 0, "diag", p)
	js := runBin(t, "", "diag", p, "--json")
	mustCode(t, js, 0, "diag", p, "--json")
	var out struct {
		Variables []map[string]any `json:"variables"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.stdout, "Inf") {
		t.Errorf("the table prints Inf:\n%s", table.stdout)
	}
	lines := strings.Split(strings.TrimSpace(table.stdout), "\n")
	var header []string
	rows := map[string][]string{}
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "variable":
			header = f
		case header != nil && len(f) == len(header):
			rows[f[0]] = f
		}
	}
	if len(rows) != 3 {
		t.Fatalf("table has %d rows, want 3:\n%s", len(rows), table.stdout)
	}
	nulls := 0
	for _, v := range out.Variables {
		name := v["name"].(string)
		for i, col := range header[1:] {
			cell := rows[name][i+1]
			val, ok := v[col]
			if !ok {
				t.Fatalf("--json lacks %q", col)
			}
			if (val == nil) != (cell == "NA") {
				t.Errorf("%s %s: table %q, JSON %v", name, col, cell, val)
			}
			if val == nil {
				nulls++
			}
		}
	}
	if nulls == 0 {
		t.Errorf("no nulls: the test exercises nothing:\n%s", js.stdout)
	}
	if rows["stuck"][7] != "NA" || rows["inf"][1] != "NA" {
		t.Errorf("want NA for the R-hat of the stuck chains and the mean of the draws with Inf:\n%s", table.stdout)
	}
	if rows["ok"][7] == "NA" {
		t.Errorf("R-hat of ordinary draws is NA:\n%s", table.stdout)
	}
}

// TestDiagHugeDraws: draws near 1e162 (a posterior in the natural units of
// huge data) have the diagnostics of the same draws near 1: sd scaled,
// R-hat and ESS equal; none is NA.
func TestDiagHugeDraws(t *testing.T) {
	dir := t.TempDir()
	summarize := func(scale float64) map[string]any {
		var b strings.Builder
		b.WriteString("chain,draw,x\n")
		for c := 1; c <= 3; c++ {
			for d := 1; d <= 40; d++ {
				fmt.Fprintf(&b, "%d,%d,%v\n", c, d, scale*(math.Sin(float64(7*c+d*d))+0.1*float64(c)))
			}
		}
		p := writeFile(t, dir, fmt.Sprintf("draws%g.csv", scale), b.String())
		r := runBin(t, "", "diag", p, "--json")
		mustCode(t, r, 0, "diag", p, "--json")
		var out struct {
			Variables []map[string]any `json:"variables"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		return out.Variables[0]
	}
	const huge = 0x1p540
	a, h := summarize(1), summarize(huge)
	for _, k := range variableKeys[1:] {
		av, aok := a[k].(float64)
		hv, hok := h[k].(float64)
		if !aok || !hok {
			t.Errorf("%s: %v for the draws, %v for the huge draws; want numbers", k, a[k], h[k])
			continue
		}
		want := av * huge // location and scale
		if strings.HasPrefix(k, "rhat") || strings.HasPrefix(k, "ess") {
			want = av // invariant
		}
		if math.Abs(hv-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: %v for the huge draws, want %v (%v for the draws)", k, hv, want, av)
		}
	}
}

// TestStaleFigures: figures of an earlier run in a reused --out that this
// run does not draw (another sampler, no --plots) are removed, and files
// that are not subtemper's figures are left alone.
func TestStaleFigures(t *testing.T) {
	out := t.TempDir()
	mine := writeFile(t, out, "notes.png", "not a figure of subtemper's")
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(out, name))
		return err == nil
	}
	for _, c := range []struct {
		args       []string
		have, gone []string
	}{
		{[]string{"--sampler", "spt", "--plots"}, []string{"traces.png", "swap_acceptance.svg", "accept_levels.png"}, nil},
		{[]string{"--sampler", "stt", "--plots"}, []string{"traces.svg", "accept_levels.png"}, []string{"swap_acceptance.png", "swap_acceptance.svg"}},
		{nil, []string{"draws.csv", "summary.json"}, []string{"traces.png", "traces.svg", "accept_levels.png", "rhat_draws.png"}},
	} {
		args := append(append([]string{"gp", "--out", out}, c.args...), smallGP...)
		r := runBin(t, "", args...)
		mustCode(t, r, 0, args...)
		for _, f := range c.have {
			if !exists(f) {
				t.Errorf("%v: %s missing", c.args, f)
			}
		}
		for _, f := range c.gone {
			if exists(f) {
				t.Errorf("%v: %s of the earlier run is still there", c.args, f)
			}
		}
		if _, err := os.Stat(mine); err != nil {
			t.Errorf("%v: a file that is not a figure was removed: %v", c.args, err)
		}
	}
}

// TestEvalKernel checks `eval gp --kernel K --json` against gp.Model with
// that kernel, for every family.
func TestEvalKernel(t *testing.T) {
	dir := t.TempDir()
	path, data := writeGPData(t, dir, 20, 3)
	theta := []float64{1, 2, 0.5, 1.5, 0.2}
	u, _ := gp.LogTheta(nil, theta)
	for _, k := range []gp.Kernel{gp.SE, gp.Matern12, gp.Matern32, gp.Matern52} {
		var o, e bytes.Buffer
		io := &stdio{in: strings.NewReader(""), out: &o, err: &e}
		code := run(context.Background(), []string{"eval", "gp", "--data", path, "--kernel", k.String(), "--lengthscales", "1,2,0.5", "--sf", "1.5", "--sn", "0.2", "--json"}, io)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", k, code, e.String())
		}
		var got struct {
			LML      float64   `json:"log_marginal_likelihood"`
			Gradient []float64 `json:"gradient"`
		}
		if err := json.Unmarshal(o.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		m, err := gp.New(linalg.Default(), data, gp.Options{Kernel: k})
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(u))
		ll, err := m.LogLik(nil, u, grad)
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		if !close(got.LML, ll) {
			t.Errorf("%s: log_marginal_likelihood %v, model %v", k, got.LML, ll)
		}
		for i := range grad {
			if !close(got.Gradient[i], grad[i]) {
				t.Errorf("%s: gradient[%d] %v, model %v", k, i, got.Gradient[i], grad[i])
			}
		}
	}
}
