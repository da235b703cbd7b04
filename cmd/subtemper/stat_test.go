package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// quick are the flags of a short run: tests of messages and files need
// draws, not converged ones.
var quick = []string{"--warmup", "60", "--draws", "60", "--min-ess", "0", "--levels", "3", "--chains", "2"}

// TestRExports runs the CLI on files shaped as R writes them: diamonds
// (row names, quoted factor columns) with the factors excluded, and
// airquality (NA) with --drop-na.
func TestRExports(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"gp", "--data", "../../gp/testdata/diamonds.csv", "--target", "price", "--exclude", "cut,color,clarity",
		"--standardize", "--out", filepath.Join(dir, "d")}, quick...)
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "N = 24 observations, D = 6 inputs") || !strings.Contains(r.stdout, "inputs carat, depth, table, x, y, z") {
		t.Errorf("diamonds: the data line does not say 24 rows of carat, depth, table, x, y, z:\n%s", r.stdout)
	}
	r = runBin(t, "", "gp", "--data", "../../gp/testdata/diamonds.csv", "--target", "price")
	if r.code != 2 || !strings.Contains(r.stderr, `column 3 ("cut")`) || !strings.Contains(r.stderr, "--exclude cut") {
		t.Errorf("diamonds with its factors: exit %d, stderr %q; want 2 and a message naming column 3 (\"cut\") and --exclude cut", r.code, r.stderr)
	}

	r = runBin(t, "", "gp", "--data", "../../gp/testdata/airquality.csv", "--target", "Ozone")
	if r.code != 2 || !strings.Contains(r.stderr, "airquality.csv:6:") || !strings.Contains(r.stderr, "--drop-na") {
		t.Errorf("airquality with NA: exit %d, stderr %q; want 2 and a message naming line 6 and --drop-na", r.code, r.stderr)
	}
	out := filepath.Join(dir, "aq")
	args = append([]string{"gp", "--data", "../../gp/testdata/airquality.csv", "--target", "Ozone", "--exclude", "Month",
		"--drop-na", "--standardize", "--out", out}, quick...)
	r = runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	if !strings.Contains(r.stdout, "N = 23 observations") || !strings.Contains(r.stdout, "--drop-na dropped 7 rows with missing values: lines 6, 7, 11, 12, 26, 27, 28") {
		t.Errorf("airquality --drop-na: the data line does not report 23 rows kept, 7 dropped (lines 6 … 28):\n%s", r.stdout)
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if d, _ := sum["data"].(map[string]any); d["rows_dropped_na"] != 7.0 || d["n"] != 23.0 {
		t.Errorf("summary.json data: %v; want rows_dropped_na 7, n 23", d)
	}
}

// TestWrotePaths: the files a run reports are where the run leaves them,
// --out given relative to the current folder included (they were
// reported in the staging folder, which no longer exists).
func TestWrotePaths(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"gp", "--n", "20", "--dims", "1", "--out", "fit"}, quick...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, e.String())
	}
	if strings.Contains(o.String()+e.String(), "staging") {
		t.Errorf("the output names the staging folder:\n%s\n%s", o.String(), e.String())
	}
	var wrote string
	for _, l := range strings.Split(e.String(), "\n") {
		if w, ok := strings.CutPrefix(l, "subtemper gp: wrote "); ok {
			wrote = w
		}
	}
	if wrote == "" {
		t.Fatalf("no \"wrote\" line:\n%s", e.String())
	}
	for _, p := range strings.Split(wrote, ", ") {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("reported %s: %v", p, err)
		}
	}
}

// fakeRun summarises a made-up run of 3 chains × 200 independent normal
// draws of 2 variables, with CPU times of 1, 2 and 3 s and the divergent
// transitions given, as the gp command would with the flags given.
func fakeRun(t *testing.T, divWarmup, divSampling int64, args ...string) (*job, *runSummary) {
	t.Helper()
	var f gpFlags
	fs := gpFlagSet(&f)
	if _, err := fs.parse(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	st, _, err := f.check()
	if err != nil {
		t.Fatal(err)
	}
	j := &job{command: "gp", fs: fs, flags: &f.samplerFlags, settings: st, names: []string{"a", "b"},
		natural: func(dst, u []float64) { copy(dst, u) }, data: map[string]any{"standardized": false}, units: "u", dataLine: "made up"}
	j.diag = newDiagCutter(context.Background())
	defer j.diag.close()
	rng := rand.New(rand.NewPCG(1, 2))
	res := &tempering.Result{Betas: []float64{1}, SubsetSizes: []int{10},
		ChainTimes: []time.Duration{time.Second, time.Second, time.Second},
		ChainCPU:   []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}}
	for range 3 {
		var ch [][]float64
		for range 200 {
			ch = append(ch, []float64{rng.NormFloat64(), rng.NormFloat64()})
		}
		res.Draws = append(res.Draws, ch)
	}
	res.Stats.Levels = []tempering.LevelStats{{Beta: 1, SubsetSize: 10, Transitions: 1200, Accepted: 900,
		Divergent: divWarmup + divSampling, SamplingDivergent: divSampling, SamplingTransitions: 600, SamplingAcceptProb: 480}}
	s, _ := summarize(j, res, 2*time.Second, 0)
	return j, s
}

// TestESSPerSecondOneDefinition: ESS per second is all chains' ESS over
// all chains' CPU time, as docs/ADAPTATION.md's tables and
// scripts/compare compute it, and summary.json says so.
func TestESSPerSecondOneDefinition(t *testing.T) {
	_, s := fakeRun(t, 0, 0)
	for _, v := range s.Variables {
		if want := float64(v.ESSBulk) / 6; math.Abs(float64(v.ESSBulkPerSecond)-want) > 1e-9*want {
			t.Errorf("%s: ess_bulk_per_second %v, want ESS %v over the 6 CPU-seconds of all chains = %v", v.Name, v.ESSBulkPerSecond, v.ESSBulk, want)
		}
	}
	if s.Timings.TotalChainCPUSeconds != 6 || !strings.Contains(s.Timings.ESSPerSecond, "all chains") {
		t.Errorf("timings: total %v, definition %q; want 6 and a definition over all chains", s.Timings.TotalChainCPUSeconds, s.Timings.ESSPerSecond)
	}
}

// TestDivergencesCountedAlike: summary.json's divergent transitions are
// those after warm-up, as the level table and the warnings count them;
// warm-up's are reported apart.
func TestDivergencesCountedAlike(t *testing.T) {
	j, s := fakeRun(t, 31, 0)
	if s.Divergent != 0 || s.DivergentWarmup != 31 || s.Levels[0].Divergent != 0 || s.Levels[0].DivergentWarmup != 31 {
		t.Errorf("31 divergences in warm-up, none after: divergent_transitions %d (warm-up %d), level 0 %d (warm-up %d); want 0 (31) and 0 (31)",
			s.Divergent, s.DivergentWarmup, s.Levels[0].Divergent, s.Levels[0].DivergentWarmup)
	}
	var b strings.Builder
	printRun(&b, j, s)
	if strings.Contains(b.String(), "divergent transition") {
		t.Errorf("the printed summary warns of divergences after warm-up where there were none:\n%s", b.String())
	}
	_, s = fakeRun(t, 31, 4)
	if s.Divergent != 4 || s.DivergentWarmup != 31 {
		t.Errorf("31 + 4 divergences: divergent_transitions %d (warm-up %d), want 4 (31)", s.Divergent, s.DivergentWarmup)
	}
}

// TestOneESSCriterion: the verdict asks bulk- and tail-ESS ≥ 100 per
// chain whatever --min-ess says (it only tells sampling when to stop),
// says so, and is the verdict diag.Judge, which the diag command uses,
// gives on the same draws.
func TestOneESSCriterion(t *testing.T) {
	var verdicts []string
	for _, m := range [][]string{nil, {"--min-ess", "5000"}, {"--min-ess", "0"}} {
		_, s := fakeRun(t, 0, 0, m...)
		if !s.Converged || !strings.Contains(s.Verdict, "ESS ≥ 300 = 100 per chain") {
			t.Errorf("%v, 3 chains, ESS about 600: verdict %q; want converged, ESS ≥ 300 = 100 per chain", m, s.Verdict)
		}
		sums := make([]diag.Summary, len(s.Variables))
		for i, v := range s.Variables {
			sums[i] = diag.Summary{Name: v.Name, Rhat: float64(v.Rhat), ESSBulk: float64(v.ESSBulk), ESSTail: float64(v.ESSTail)}
		}
		if v := diag.Judge(sums, 3); v.String() != s.Verdict || v.Converged != s.Converged {
			t.Errorf("%v: the run's verdict %q, diag.Judge's %q", m, s.Verdict, v.String())
		}
		verdicts = append(verdicts, s.Verdict)
	}
	if verdicts[0] != verdicts[1] || verdicts[0] != verdicts[2] {
		t.Errorf("verdicts differ with --min-ess: %q", verdicts)
	}
}

// TestVerdictAgreesWithItsNumbers: the numbers printed beside the verdict
// cannot contradict it through rounding, and the paper's criterion is not
// called met beside a run that is NOT converged.
func TestVerdictAgreesWithItsNumbers(t *testing.T) {
	v := diag.Judge([]diag.Summary{{Name: "a", Rhat: 1.00993, ESSBulk: 500, ESSTail: 500}}, 3)
	if r, _ := strconv.ParseFloat(fmtRhat(v.MaxRhat), 64); !v.Converged || r >= diag.RhatMax {
		t.Errorf("R-hat 1.00993: converged %v, printed as %s", v.Converged, fmtRhat(v.MaxRhat))
	}
	v = diag.Judge([]diag.Summary{{Name: "a", Rhat: 1.001, ESSBulk: 299.6, ESSTail: 500}}, 3)
	if e, _ := strconv.ParseFloat(fmtESS(v.MinESSBulk), 64); v.Converged || e >= 300 || strings.Contains(v.String(), "(min 300)") {
		t.Errorf("bulk-ESS 299.6 of 300: converged %v, printed as %s, verdict %q", v.Converged, fmtESS(v.MinESSBulk), v.String())
	}
	j, s := fakeRun(t, 0, 0, "--chains", "3")
	s.Variables[0].ESSBulk = 12
	s.Converged, s.Verdict = false, "NOT converged: bulk-ESS < 300 for a (min 12)"
	var b strings.Builder
	printRun(&b, j, s)
	if strings.Contains(b.String(), ": met") {
		t.Errorf("NOT converged, yet a criterion is called met:\n%s", b.String())
	}
}

// TestAdviceByLikelyCause: on unstandardised data far from unit scale
// whose run diverges, the first advice is --standardize, not "run longer".
func TestAdviceByLikelyCause(t *testing.T) {
	j, s := fakeRun(t, 0, 12)
	s.Converged = false // as if an ESS fell short
	j.startHint = "the target's SD is 4.3e+04: --standardize rescales every column"
	w := runWarnings(j, s)
	if len(w) < 2 || !strings.Contains(w[0], "--standardize") || !strings.Contains(w[len(w)-1], "run longer") {
		t.Errorf("warnings %q: want --standardize first and run longer last", w)
	}
}

// TestHelpPlaceholders: every flag's placeholder in every command's help
// is one word (Go's flag package takes a back-quoted word of the usage
// text as the placeholder: `make build` showed as --backend make build),
// and --plots' help names every figure.
func TestHelpPlaceholders(t *testing.T) {
	flagLine := regexp.MustCompile(`^  (--\S+)((?: \S+)*?)  `)
	for _, cmd := range []string{"gp", "mvn", "predict", "diag", "eval", "reproduce", "merge"} {
		r := runBin(t, "", cmd, "--help")
		for _, l := range strings.Split(r.stdout, "\n") {
			m := flagLine.FindStringSubmatch(l)
			if m != nil && strings.Count(strings.TrimSpace(m[2]), " ") > 0 {
				t.Errorf("%s --help: %s has the placeholder %q", cmd, m[1], strings.TrimSpace(m[2]))
			}
		}
	}
	for _, name := range figureNames {
		if !strings.Contains(plotsHelp(), name+" (") {
			t.Errorf("--plots help lacks %s", name)
		}
	}
}

// TestProgressPhases: the bar names the phase, and shows neither a speed
// nor an ETA of 0 during the set-up; the ETA is measured from the first
// iteration on and aims at the bar's total (the expected iterations).
func TestProgressPhases(t *testing.T) {
	// 2 chains, 100 warm-up iterations, 150 expected of 2100 at most (as
	// startProgress sets it up, without the bar's goroutines).
	clock := time.Unix(1000, 0)
	pr := &progress{counts: make([]atomic.Int64, 2), total: 300, most: 4200, warmup: 100, now: func() time.Time { return clock }}
	if ph, eta := pr.phase(), pr.rateETA(0, pr.total, false); ph != "set-up" || strings.Contains(eta, "0s") || strings.Contains(eta, "it/s") {
		t.Errorf("before the first iteration: phase %q, %q; want set-up, no speed or ETA", ph, eta)
	}
	clock = clock.Add(time.Minute) // a long set-up
	pr.counts[0].Store(10)
	pr.counts[1].Store(20)
	if ph := pr.phase(); ph != "warm-up" {
		t.Errorf("phase %q at 10 and 20 of 100 warm-up iterations", ph)
	}
	pr.rateETA(30, pr.total, false)
	clock = clock.Add(10 * time.Second)
	pr.counts[0].Store(120)
	pr.counts[1].Store(110)
	// 200 iterations in 10 s: 20 it/s; 300 − 230 left: 3.5 s, rounded 4 s.
	if ph, eta := pr.phase(), pr.rateETA(230, pr.total, false); ph != "sampling" || eta != "  20 it/s  ETA 4s" || pr.total != 300 {
		t.Errorf("after 10 s at 20 it/s: phase %q, %q, total %d; want sampling, 20 it/s, ETA 4s of 300", ph, eta, pr.total)
	}
}

// checkFigure fails unless base.png decodes as a PNG of a sensible size
// and base.svg parses as XML whose root is svg.
func checkFigure(t *testing.T, base string) {
	t.Helper()
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s.png: %v", base, err)
	} else if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("%s.png is %d×%d", base, b.Dx(), b.Dy())
	}
	sv, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Error(err)
		return
	}
	dec := xml.NewDecoder(bytes.NewReader(sv))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s.svg: %v", base, err)
			return
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s.svg: root element %q, want svg", base, root)
	}
}

// TestPredictiveCheckFigures: with a test file that holds the target,
// --plots draws the predictive checks at D = 3 (where the band figure
// cannot be drawn) and both figures at D = 1, and predictions.json
// carries the PIT test; every figure written is a valid PNG and SVG.
func TestPredictiveCheckFigures(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []int{1, 3} {
		all, _, err := gp.Synthetic(90, d, 2, gp.Prior{})
		if err != nil {
			t.Fatal(err)
		}
		train, _ := all.Prefix(50)
		test := &gp.Data{N: 40, D: d, X: all.X[50*d:], Y: all.Y[50:], Names: all.Names, Target: all.Target}
		tr, te := filepath.Join(dir, fmt.Sprintf("train%d.csv", d)), filepath.Join(dir, fmt.Sprintf("test%d.csv", d))
		if err := gp.WriteCSVFile(tr, train); err != nil {
			t.Fatal(err)
		}
		if err := gp.WriteCSVFile(te, test); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("out%d", d))
		args := append([]string{"gp", "--data", tr, "--predict", te, "--plots", "--out", out}, quick...)
		r := runBin(t, "", args...)
		mustCode(t, r, 0, args...)
		if !strings.Contains(r.stdout, "PIT uniformity KS p = ") {
			t.Errorf("D = %d: the held-out line lacks the PIT test:\n%s", d, r.stdout)
		}
		pj := readJSON(t, filepath.Join(out, "predictions.json"))
		if p, ok := pj["pit_ks_p"].(float64); !ok || p < 0 || p > 1 {
			t.Errorf("D = %d: predictions.json pit_ks_p = %v", d, pj["pit_ks_p"])
		}
		want := []string{"ppc"}
		if d == 1 {
			want = append(want, "predictions")
		} else if _, err := os.Stat(filepath.Join(out, "predictions.png")); err == nil {
			t.Errorf("D = 3: a band figure was drawn")
		}
		want = append(want, "traces", "ranks", "densities", "pairs", "rhat_params", "rhat_draws", "ess_draws")
		for _, w := range want {
			checkFigure(t, filepath.Join(out, w))
		}
		if strings.Contains(r.stderr, "could not be drawn") {
			t.Errorf("D = %d: %s", d, r.stderr)
		}
	}
}

// TestProgressForesee checks that the stop rule's checks set the bar's
// expected total: after 50 draws per chain the smallest ESS 100 of the
// 400 needed foresees 200 draws; a rule already met foresees the next
// check; the run's maximum caps it; an undefined ESS changes nothing.
func TestProgressForesee(t *testing.T) {
	pr := &progress{counts: make([]atomic.Int64, 3), total: 3 * 375, most: 3 * (75 + 2000), warmup: 75}
	for _, c := range []struct {
		n           int
		least, need float64
		want        int64
	}{
		{50, 100, 400, 3 * (75 + 200)},
		{50, 800, 400, 3 * (75 + 100)}, // met already: the next check
		{50, 5, 400, 3 * (75 + 2000)},  // 4000 draws: capped at the run's 2000
		{100, math.NaN(), 400, 0},      // nothing new
		{100, math.Inf(1), 400, 0},     // nothing new
		{100, 0, 400, 0},               // nothing new
	} {
		pr.foreseen = 0
		pr.foresee(c.n, c.least, c.need, 50, 1)
		if pr.foreseen != c.want {
			t.Errorf("foresee(%d draws, least ESS %v of %v): total %d, want %d", c.n, c.least, c.need, pr.foreseen, c.want)
		}
	}
	// Thinned: iterations are draws × thin.
	pr.foresee(50, 100, 400, 50, 2)
	if want := int64(3 * (75 + 400)); pr.foreseen != want {
		t.Errorf("thin 2: total %d, want %d", pr.foreseen, want)
	}
}
