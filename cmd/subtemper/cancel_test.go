package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// completeRun writes a small complete gp run into parent/run and returns
// --out and its files' contents.
func completeRun(t *testing.T, parent string) (string, map[string]string) {
	t.Helper()
	out := filepath.Join(parent, "run")
	args := []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", out}
	mustCode(t, runBin(t, "", args...), 0, args...)
	files := map[string]string{}
	for _, n := range []string{"data.csv", "draws.csv", "summary.json"} {
		b, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = string(b)
	}
	return out, files
}

// interruptAfter starts the binary with args, sends SIGINT after delay and
// returns the result and the time from the signal to the exit.
func interruptAfter(t *testing.T, delay time.Duration, args ...string) (result, time.Duration) {
	t.Helper()
	return signalAfter(t, os.Interrupt, delay, args...)
}

// signalAfter is interruptAfter with signal sig.
func signalAfter(t *testing.T, sig os.Signal, delay time.Duration, args ...string) (result, time.Duration) {
	t.Helper()
	return signalRun(t, sig, func(<-chan error) { time.Sleep(delay) }, args...)
}

// interruptWhen starts the binary with args, waits until a file matching
// glob exists (failing the test if the run ends first or within passes),
// then 100 ms more, sends SIGINT and returns the result and the time from
// the signal to the exit.
func interruptWhen(t *testing.T, glob string, within time.Duration, args ...string) (result, time.Duration) {
	t.Helper()
	return signalRun(t, os.Interrupt, func(waitErr <-chan error) {
		deadline := time.Now().Add(within)
		for {
			if m, _ := filepath.Glob(glob); len(m) > 0 {
				break
			}
			select {
			case err := <-waitErr:
				t.Fatalf("subtemper %s ended before %s appeared: %v", strings.Join(args, " "), glob, err)
			case <-time.After(5 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s within %v", glob, within)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}, args...)
}

// signalRun starts the binary with args, calls wait (which may read the
// process's exit from its channel), sends sig and returns the result and
// the time from the signal to the exit. The process is killed if the test
// fails on the way.
func signalRun(t *testing.T, sig os.Signal, wait func(waitErr <-chan error), args ...string) (result, time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
		}
	}()
	wait(waitErr)
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-waitErr:
	case <-time.After(30 * time.Second):
		t.Fatalf("subtemper %s did not stop within 30 s of %v", strings.Join(args, " "), sig)
	}
	done = true
	lat := time.Since(sent)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{o.String(), e.String(), code}, lat
}

// checkKept checks that out holds files unchanged and that nothing else
// (no staging folder) lies beside it in parent.
func checkKept(t *testing.T, parent, out string, files map[string]string) {
	t.Helper()
	for n, want := range files {
		if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != want {
			t.Errorf("%s changed by the interrupted run", n)
		}
	}
	ents, _ := os.ReadDir(parent)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{filepath.Base(out)}) {
		t.Errorf("%s holds %v after the interrupted run; want %s only", parent, names, filepath.Base(out))
	}
}

// TestInterruptDataGeneration: SIGINT during the synthetic-data generation
// of `gp --n 4000` (an O(N³) Cholesky factorisation, several seconds on 2
// cores) stops the command within a second with exit code 130, and --out
// keeps the earlier complete run (the generator used to ignore the signal:
// only a second one, a hard kill, stopped it).
func TestInterruptDataGeneration(t *testing.T) {
	parent := t.TempDir()
	out, files := completeRun(t, parent)
	args := []string{"gp", "--n", "4000", "--dims", "2", "--out", out}
	r, lat := interruptAfter(t, 300*time.Millisecond, args...)
	mustCode(t, r, exitInterrupted, args...)
	t.Logf("stopped %v after SIGINT", lat)
	if lat > time.Second {
		t.Errorf("stopped %v after SIGINT, want under a second", lat)
	}
	if !strings.Contains(r.stderr, "interrupted during synthetic-data generation: nothing written") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	checkKept(t, parent, out, files)

	// Without an earlier result, --out is not created.
	fresh := filepath.Join(t.TempDir(), "fresh")
	args = []string{"gp", "--n", "4000", "--dims", "2", "--quiet", "--out", fresh}
	r, _ = interruptAfter(t, 300*time.Millisecond, args...)
	mustCode(t, r, exitInterrupted, args...)
	if ents, _ := os.ReadDir(filepath.Dir(fresh)); len(ents) != 0 {
		t.Errorf("an interrupted run left %v", ents)
	}
}

// TestInterruptNoDrawsKeepsResult: a run interrupted before it kept any
// draw (in a long warm-up) does not replace the complete result already
// in --out: exit code 130, --out unchanged, no leftovers, and stderr says
// that nothing was written.
func TestInterruptNoDrawsKeepsResult(t *testing.T) {
	parent := t.TempDir()
	out, files := completeRun(t, parent)
	args := []string{"gp", "--n", "30", "--dims", "2", "--warmup", "100000000", "--draws", "10", "--levels", "2", "--out", out}
	r, _ := interruptAfter(t, 800*time.Millisecond, args...)
	mustCode(t, r, exitInterrupted, args...)
	if !strings.Contains(r.stderr, "nothing written") {
		t.Errorf("stderr does not say that nothing was written:\n%s", r.stderr)
	}
	checkKept(t, parent, out, files)
}

// blockingTarget is a target whose Clone blocks until release is closed:
// a model whose set-up takes long.
type blockingTarget struct {
	release chan struct{}
	cloned  atomic.Int32
}

func (b *blockingTarget) Dim() int                           { return 1 }
func (b *blockingTarget) NumObs() int                        { return 1 }
func (b *blockingTarget) LogPrior(u, grad []float64) float64 { return 0 }
func (b *blockingTarget) LogLik(subset []int, u, grad []float64) (float64, error) {
	return -u[0] * u[0] / 2, nil
}
func (b *blockingTarget) Clone() (tempering.Target, error) {
	<-b.release
	b.cloned.Add(1)
	return b, nil
}

// runBlocking is a fit as runFit calls it: the phases and hooks of
// FitGP and FitMVN around a tempering.Run of bt.
func runBlocking(ctx context.Context, bt *blockingTarget) func(h fitHooks) (*tempering.Result, error) {
	return func(h fitHooks) (*tempering.Result, error) {
		st := &tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.None, Kernel: tempering.MH{Sigma: 1}}, Control: tempering.Control{Chains: 1, Draws: 10, Seed: 1}}
		h.onSettings(st)
		h.onPhase(phaseChains)
		return tempering.Run(ctx, bt, st)
	}
}

// TestRunFitSetup: a cancellation while the fit sets up its chains
// (tempering.Run's set-up does not look at the context) returns within
// setupGrace plus a little, with errInterrupted during the chains'
// set-up.
func TestRunFitSetup(t *testing.T) {
	bt := &blockingTarget{release: make(chan struct{})}
	defer close(bt.release) // lets the abandoned Run end
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, phase, err := runFit(ctx, runBlocking(ctx, bt))
	took := time.Since(start)
	if !errors.Is(err, errInterrupted) || phase != phaseChains || !strings.Contains(err.Error(), phaseChains) {
		t.Fatalf("runFit: phase %q, %v", phase, err)
	}
	if took > 100*time.Millisecond+setupGrace+500*time.Millisecond {
		t.Errorf("runFit returned after %v", took)
	}

	// Not cancelled: the result as tempering.Run gives it.
	bt2 := &blockingTarget{release: make(chan struct{})}
	close(bt2.release)
	res, _, err := runFit(context.Background(), runBlocking(context.Background(), bt2))
	if err != nil || res.Interrupted || len(res.Draws[0]) != 10 {
		t.Fatalf("runFit: %v, %+v", err, res)
	}
}

// TestRunFitSampling: once the fit says it samples (onSampling, as
// importance sampling does), a cancellation waits for the fit, however
// long its step takes to end, and returns the draws it holds, not
// errInterrupted.
func TestRunFitSampling(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	kept := &tempering.Result{Interrupted: true}
	res, _, err := runFit(ctx, func(h fitHooks) (*tempering.Result, error) {
		h.onPhase(phaseImportance)
		h.onSampling()
		<-ctx.Done()
		time.Sleep(3 * setupGrace) // a log density in flight
		return kept, context.Cause(ctx)
	})
	if res != kept || errors.Is(err, errInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("runFit: %+v, %v; want the fit's result and its error", res, err)
	}
}

// TestFitGPImportanceInterrupted: a Ctrl-C while a batch of importance
// sampling is evaluated (here, the first batch's report takes longer than
// setupGrace, as a batch's log densities do at large N) keeps the fit and
// its batches: fitGP waits for it.
func TestFitGPImportanceInterrupted(t *testing.T) {
	data, _, err := subtemper.SyntheticGPData(context.Background(), 150, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A MinESS no sample of this size reaches keeps it drawing.
	st := subtemper.DefaultGPSettings()
	st.Stop = diag.StopRule{MinESS: 1e9}
	opt := subtemper.GPOptions{Backend: "gonum", Importance: subtemper.ImportanceOn, Settings: &st, OnBatch: func(subtemper.ImportanceProgress) {
		cancel()
		time.Sleep(3 * setupGrace)
	}}
	fit, _, err := fitGP(ctx, data, opt)
	if fit == nil || errors.Is(err, errInterrupted) || fit.Weighted == nil || len(fit.Weighted.Draws) == 0 || !fit.Result.Interrupted {
		t.Fatalf("fitGP: fit %v, error %v; want the interrupted fit with its batches", fit, err)
	}
	fit.Close()
}

// TestDiagCutter: after a cancellation the summary computes diagnostics
// for at most about summaryGrace more, leaves the rest out and marks the
// run interrupted; without one it computes them all.
func TestDiagCutter(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := func(name string, chains [][]float64) (diag.Summary, error) {
		<-release // diagnostics of millions of draws
		return diag.Summary{Name: name}, nil
	}
	old := summarizeFn
	summarizeFn = slow
	defer func() { summarizeFn = old }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := newDiagCutter(ctx)
	start := time.Now()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := d.summarizeChains(n, nil); !errors.Is(err, errDiagCut) {
			t.Errorf("%s: %v", n, err)
		}
	}
	d.close()
	if took := time.Since(start); took > summaryGrace+500*time.Millisecond {
		t.Errorf("summary took %v after the cancellation", took)
	}
	sum := &runSummary{Variables: make([]variableJSON, 3)}
	res := &tempering.Result{}
	d.finish(sum, res)
	if !sum.Interrupted || !res.Interrupted || len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "3 of 3 variables (a, b, c)") {
		t.Errorf("finish: interrupted %v %v, warnings %q", sum.Interrupted, res.Interrupted, sum.Warnings)
	}

	summarizeFn = func(name string, chains [][]float64) (diag.Summary, error) { return diag.Summary{Name: name}, nil }
	d = newDiagCutter(context.Background())
	if s, err := d.summarizeChains("x", nil); err != nil || s.Name != "x" {
		t.Errorf("not cancelled: %v %v", s, err)
	}
	d.close()
}

// TestInterruptPrediction: SIGINT while gp --predict predicts (the fit is
// saved in the staging folder, predictions.csv is not yet written) ends
// the command with exit code 130, like an interrupt in any other phase,
// and --out holds the new run marked as interrupted during the
// prediction: every draw, the fit, no predictions, and a warning that
// says how to make them. It used to exit 1 ("predicting: context
// canceled") with summary.json saying "interrupted": false. The same for
// the predict command.
func TestInterruptPrediction(t *testing.T) {
	dir := t.TempDir()
	train, _ := writeGPData(t, dir, 200, 1)
	var b strings.Builder
	b.WriteString("x1\n")
	for i := range 2000 {
		b.WriteString(strconv.FormatFloat(-3+6*float64(i)/2000, 'g', -1, 64) + "\n")
	}
	test := writeFile(t, dir, "test.csv", b.String())
	parent := filepath.Join(dir, "runs")
	out := filepath.Join(parent, "run")
	args := []string{"gp", "--data", train, "--sampler", "none", "--inner", "mh", "--warmup", "20", "--draws", "500",
		"--out", out, "--predict", test, "--predict-draws", "1500", "--quiet"}
	// The fit is saved into the staging folder just before the prediction.
	r0, lat := interruptWhen(t, filepath.Join(parent, ".run.staging-*", "fit.json"), 60*time.Second, args...)
	if lat > 2*time.Second {
		t.Errorf("stopped %v after SIGINT", lat)
	}
	if r0.code != 130 {
		t.Fatalf("exit code %d, want 130\nstderr:\n%s", r0.code, r0.stderr)
	}
	for _, n := range []string{"draws.csv", "summary.json", "fit.json", "fit-data.csv"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Errorf("--out lacks %s: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "predictions.csv")); err == nil {
		t.Error("--out holds predictions.csv after an interrupted prediction")
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if sum["interrupted"] != true || sum["interrupted_during"] != "prediction" {
		t.Errorf("summary.json: interrupted %v, interrupted_during %v; want true, \"prediction\"", sum["interrupted"], sum["interrupted_during"])
	}
	if w, _ := json.Marshal(sum["warnings"]); !strings.Contains(string(w), "subtemper predict --fit") {
		t.Errorf("summary.json's warnings do not say how to predict: %s", w)
	}
	if !strings.Contains(r0.stdout, "INTERRUPTED during the prediction") {
		t.Errorf("stdout does not say the prediction was interrupted:\n%s", r0.stdout)
	}

	// The predict command on the saved fit, interrupted while it
	// predicts: exit code 130 too (it used to be 1), nothing written.
	pargs := []string{"predict", "--fit", out, "--data", test, "--predict-draws", "1500", "--out", filepath.Join(dir, "pred")}
	r, lat := interruptAfter(t, 700*time.Millisecond, pargs...)
	mustCode(t, r, 130, pargs...)
	if lat > 2*time.Second {
		t.Errorf("predict stopped %v after SIGINT", lat)
	}
	if !strings.Contains(r.stderr, "interrupted during the prediction") {
		t.Errorf("predict's stderr does not say the prediction was interrupted: %s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pred", "predictions.csv")); err == nil {
		t.Error("an interrupted predict wrote predictions.csv")
	}
}

// TestInterruptWhileWriting: a Ctrl-C that comes while the files are
// written (the sampling and the fit done) lets them be written whole, as
// a complete run, and exits with code 130 like an interrupt in any other
// phase (it used to exit 0).
func TestInterruptWhileWriting(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	beforeWrite = cancel
	defer func() { beforeWrite = nil }()
	var o, e bytes.Buffer
	code := run(ctx, []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--quiet", "--out", out}, &stdio{in: strings.NewReader(""), out: &o, err: &e})
	if code != 130 {
		t.Errorf("exit code %d, want 130; stderr: %s", code, e.String())
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if sum["interrupted"] != false {
		t.Errorf("summary.json: interrupted %v, want false (the run is complete)", sum["interrupted"])
	}
	for _, n := range []string{"draws.csv", "fit.json", "fit-data.csv", "data.csv"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Errorf("%s missing: %v", n, err)
		}
	}
}

// TestInterruptPredictionFigures: a Ctrl-C that comes while gp --predict
// --plots draws the prediction figures (the band figure predicts on a
// grid, and stops at the interruption; no figure is drawn after it) keeps
// the run marked as interrupted during the prediction, with
// predictions.csv, without the figures, and with a warning that names
// the figures not drawn. It
// used to leave summary.json saying "interrupted": false, and stderr
// saying that every file was written, without predictions.png. The
// predict command exits 130 in the same case and says so.
func TestInterruptPredictionFigures(t *testing.T) {
	dir := t.TempDir()
	train, _ := writeGPData(t, dir, 12, 1)
	test := writeFile(t, dir, "test.csv", "x1,y\n-1,0.5\n0,0.1\n1.5,-0.3\n")
	out := filepath.Join(dir, "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	beforePredictionFigures = cancel
	defer func() { beforePredictionFigures = nil }()
	var o, e bytes.Buffer
	args := []string{"gp", "--data", train, "--draws", "10", "--warmup", "5", "--min-ess", "0", "--plots", "--predict", test, "--out", out}
	code := run(ctx, args, &stdio{in: strings.NewReader(""), out: &o, err: &e})
	if code != 130 {
		t.Errorf("exit code %d, want 130; stderr: %s", code, e.String())
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if sum["interrupted"] != true || sum["interrupted_during"] != "prediction" {
		t.Errorf("summary.json: interrupted %v, interrupted_during %v; want true, \"prediction\" (predictions.png is missing)\nstderr: %s",
			sum["interrupted"], sum["interrupted_during"], e.String())
	}
	if w, _ := json.Marshal(sum["warnings"]); !strings.Contains(string(w), "predictions.png") || !strings.Contains(string(w), "--plots") {
		t.Errorf("summary.json's warnings do not name the figure not drawn and how to draw it: %s", w)
	}
	for _, n := range []string{"draws.csv", "fit.json", "predictions.csv", "predictions.json"} {
		if _, err := os.Stat(filepath.Join(out, n)); err != nil {
			t.Errorf("%s missing: %v", n, err)
		}
	}
	// No figure is drawn once the run is interrupted (drawing them took
	// seconds after the signal); the warning names them all.
	for _, n := range []string{"predictions.png", "ppc.png"} {
		if _, err := os.Stat(filepath.Join(out, n)); err == nil {
			t.Errorf("%s drawn after the interruption", n)
		}
	}
	if w, _ := json.Marshal(sum["warnings"]); !strings.Contains(string(w), "ppc.png") {
		t.Errorf("summary.json's warnings do not name ppc.png, not drawn: %s", w)
	}
	if strings.Contains(e.String(), "every file written") {
		t.Errorf("stderr says every file was written:\n%s", e.String())
	}

	// The predict command, cut the same way.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	beforePredictionFigures = cancel2
	e.Reset()
	pred := filepath.Join(dir, "pred")
	code = run(ctx2, []string{"predict", "--fit", out, "--data", test, "--plots", "--out", pred}, &stdio{in: strings.NewReader(""), out: &o, err: &e})
	if code != 130 {
		t.Errorf("predict: exit code %d, want 130; stderr: %s", code, e.String())
	}
	if !strings.Contains(e.String(), "interrupted while the prediction figures were drawn") {
		t.Errorf("predict's stderr does not say the figures were cut: %s", e.String())
	}
}

// TestInterruptFigures: SIGINT while --plots draws the figures of a run
// with many parameters (the trace figure of 20 parameters alone takes
// about 6 s on an idle 2-core machine: gonum/plot's rendering does not
// look at the context) ends the command within a second with exit code
// 130, and --out holds the new run marked as interrupted during the
// figures: every draw, each figure drawn before the signal whole (PNG
// and SVG), no hidden drawing folder. The figures used to be drawn to
// the end after the signal (3.7 s under load in the signal storm, 7 s
// here).
func TestInterruptFigures(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "run")
	args := []string{"mvn", "--dims", "20", "--n", "200", "--draws", "1000", "--warmup", "200", "--min-ess", "0",
		"--chains", "3", "--levels", "2", "--plots", "--quiet", "--out", out}
	// draws.nc is written into the staging folder just before the figures.
	r, lat := interruptWhen(t, filepath.Join(parent, ".run.staging-*", "draws.nc"), 2*time.Minute, args...)
	if r.code != exitInterrupted {
		t.Errorf("exit code %d, want %d\nstderr: %s", r.code, exitInterrupted, r.stderr)
	}
	if lat > time.Second {
		t.Errorf("exited %v after SIGINT during the figures, want within 1 s", lat.Round(time.Millisecond))
	}
	sum := readJSON(t, filepath.Join(out, "summary.json"))
	if sum["interrupted"] != true || sum["interrupted_during"] != "figures" {
		t.Errorf("summary.json: interrupted %v, interrupted_during %v; want true, \"figures\"", sum["interrupted"], sum["interrupted_during"])
	}
	if w, _ := json.Marshal(sum["warnings"]); !strings.Contains(string(w), "interrupted while the figures") {
		t.Errorf("summary.json's warnings do not say that the figures were cut: %s", w)
	}
	ents, _ := os.ReadDir(out)
	have := map[string]bool{}
	for _, en := range ents {
		have[en.Name()] = true
		if strings.HasPrefix(en.Name(), ".") {
			t.Errorf("%s left in --out", en.Name())
		}
	}
	for _, n := range []string{"draws.csv", "draws.nc", "data.csv"} {
		if !have[n] {
			t.Errorf("%s missing", n)
		}
	}
	for _, n := range figureNames {
		if have[n+".png"] != have[n+".svg"] {
			t.Errorf("%s: PNG %v, SVG %v: a figure half written", n, have[n+".png"], have[n+".svg"])
		}
	}
	if have["ess_draws.png"] {
		t.Error("every figure drawn: the signal did not land during the figures")
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("%s holds %d entries after the run, want --out only", parent, len(ents))
	}
}
