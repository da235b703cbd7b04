package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/tempering"
)

func TestGridDeterministic(t *testing.T) {
	b := Budgets["full"]
	g1, err := Grid(b, []string{"all"})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Grid(b, []string{"convergence", "ess", "runtime"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g1, g2) {
		t.Fatal("grid depends on the order of the experiments")
	}
	// 6 + 5 runtime; Table 1: 5 HMC + 4 MH; Table 2: 4 + 4; sweeps: MVN 6
	// (N = 1024 D = 50 shared), GP 5 + 5 (N = 512 D = 18 shared, twice).
	if want := 11 + 9 + 8 + 5 + 8; len(g1) != want {
		t.Errorf("full grid has %d cells, want %d", len(g1), want)
	}
	seen := map[string]bool{}
	for i, c := range g1 {
		if seen[c.Key()] || (i > 0 && g1[i-1].Key() >= c.Key()) {
			t.Fatalf("grid not sorted or not unique at %s", c.Key())
		}
		seen[c.Key()] = true
	}
	// Shards partition the grid.
	var all []Cell
	for i := range 3 {
		all = append(all, Shard{I: i, N: 3}.Select(g1)...)
	}
	if len(all) != len(g1) {
		t.Errorf("3 shards hold %d cells, grid %d", len(all), len(g1))
	}
	if _, err := ParseShard("3/3"); err == nil {
		t.Error("ParseShard(3/3) accepted")
	}
	if s, err := ParseShard("1/4"); err != nil || s != (Shard{1, 4}) {
		t.Errorf("ParseShard(1/4) = %v, %v", s, err)
	}
}

// deterministic strips a cell result of what depends on timing.
func deterministic(r *CellResult) *CellResult {
	c := *r
	c.Timings, c.Cost, c.Host = nil, nil, ""
	c.Samplers = nil
	for _, s := range r.Samplers {
		s.Seconds, s.KeptSeconds, s.ESSPerSec = 0, 0, 0
		s.Trace = nil
		c.Samplers = append(c.Samplers, s)
	}
	return &c
}

// TestReproduceShardsMerge runs the tiny grid unsharded and in two shards,
// merges the shards, and checks that every cell's sampling results are the
// same (only timings differ between runs), that the merge reports nothing
// missing, and that merging is deterministic.
func TestReproduceShardsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tiny grid three times")
	}
	dir := t.TempDir()
	ctx := context.Background()
	opt := ReproduceOptions{Experiments: []string{"all"}, Budget: Budgets["tiny"], Seed: 5}
	opt.Out = filepath.Join(dir, "whole")
	type call struct {
		tp   TracePoint
		stop string
	}
	calls := map[string][]call{} // by cell key and driver
	wopt := opt
	wopt.Block = func(c *Cell, driver string, tp TracePoint, stop string) {
		k := c.Key() + " " + driver
		calls[k] = append(calls[k], call{tp, stop})
	}
	whole, err := Reproduce(ctx, wopt)
	if err != nil {
		t.Fatal(err)
	}
	// Block reports every trace point of every ESS sampler, the last with
	// the sampler's stop reason, and nothing else.
	n := 0
	for _, r := range whole {
		for _, s := range r.Samplers {
			k := r.Key + " " + s.Driver
			got := calls[k]
			n += len(got)
			if len(got) != len(s.Trace) {
				t.Errorf("%s: %d Block calls for %d trace points", k, len(got), len(s.Trace))
				continue
			}
			for i, c := range got {
				stop := ""
				if i == len(got)-1 {
					stop = s.StopReason
				}
				if c.tp != s.Trace[i] || c.stop != stop || stop == "" && i == len(got)-1 {
					t.Errorf("%s: Block call %d: %+v %q, want %+v %q", k, i, c.tp, c.stop, s.Trace[i], stop)
				}
			}
		}
	}
	total := 0
	for _, c := range calls {
		total += len(c)
	}
	if n == 0 || total != n {
		t.Errorf("%d Block calls, %d of them for the results' samplers", total, n)
	}
	for _, f := range []string{"REPORT.md", "runtime.csv", "ess.csv", "samplers.csv", "convergence.csv",
		"fig1_runtime_mvn.png", "fig1_runtime_mvn.svg", "fig2_rhat_draws.png", "fig2_rhat_seconds.svg"} {
		if _, err := os.Stat(filepath.Join(opt.Out, f)); err != nil {
			t.Errorf("unsharded run: %v", err)
		}
	}
	var shards []string
	for i := range 2 {
		o := opt
		o.Shard = Shard{I: i, N: 2}
		o.Out = filepath.Join(dir, "shard", string(rune('0'+i)))
		if _, err := Reproduce(ctx, o); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, o.Out)
	}
	rep, err := Merge(shards, filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing)+len(rep.Duplicates)+len(rep.Partial)+len(rep.Mismatch) != 0 {
		t.Fatalf("merge report: %+v", rep)
	}
	if len(rep.Cells) != len(whole) {
		t.Fatalf("merged %d cells, unsharded run has %d", len(rep.Cells), len(whole))
	}
	for i, r := range rep.Cells {
		a, _ := json.Marshal(deterministic(r))
		b, _ := json.Marshal(deterministic(whole[i]))
		if string(a) != string(b) {
			t.Errorf("cell %s differs between sharded and unsharded runs:\n%s\n%s", r.Key, a, b)
		}
	}
	for _, r := range whole {
		for _, s := range r.Samplers {
			if s.Draws == 0 || math.IsNaN(s.Rhat) && s.Draws > 20 {
				t.Errorf("cell %s sampler %s: %d draws, R-hat %v", r.Key, s.Driver, s.Draws, s.Rhat)
			}
		}
	}
	// Merging in the other order, and again, gives the same files.
	if _, err := Merge([]string{shards[1], shards[0]}, filepath.Join(dir, "merged2")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"REPORT.md", "runtime.csv", "ess.csv", "samplers.csv", "convergence.csv", "fig1_runtime_mvn.svg", "fig3_ess_mvn_hmc.svg"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "merged", f))
		b, err2 := os.ReadFile(filepath.Join(dir, "merged2", f))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s differs between merges (%v, %v)", f, err1, err2)
		}
	}
	// A missing shard is reported.
	rep, err = Merge(shards[:1], filepath.Join(dir, "merged3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) == 0 {
		t.Error("merge of one shard of two reports no missing cells")
	}
	// A duplicate is reported.
	rep, err = Merge([]string{shards[0], shards[0], shards[1]}, filepath.Join(dir, "merged4"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Duplicates) == 0 {
		t.Error("merge of a shard twice reports no duplicates")
	}
}

// cancelAt is a Target that cancels a context at its at-th log-likelihood
// evaluation, counted over all its clones (at 0: never).
type cancelAt struct {
	tempering.Target
	calls  *int
	at     int
	cancel func()
}

func (c cancelAt) LogLik(subset []int, u, grad []float64) (float64, error) {
	if *c.calls++; *c.calls == c.at {
		c.cancel()
	}
	return c.Target.LogLik(subset, u, grad)
}

func (c cancelAt) Clone() (tempering.Target, error) {
	t, err := c.Target.Clone()
	c.Target = t
	return c, err
}

// TestSamplerInterruptedInsideBlock: cancelled in the middle of a block of
// draws, an ESS sampler stops there (no evaluation after the cancelling
// one) and keeps the blocks all chains completed: the same draws, R-hat
// and ESS as a run of those blocks alone.
func TestSamplerInterruptedInsideBlock(t *testing.T) {
	b := Budget{Block: 10, MinDraws: 1000, MaxDraws: 1000, MaxSeconds: 1e9}
	kernel, err := Kernel("mh", ModelMVN)
	if err != nil {
		t.Fatal(err)
	}
	run := func(b Budget, at int) (*SamplerResult, int, error) {
		tg, err := NewTarget(nil, ModelMVN, 64, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		sr, err := runSampler(ctx, cancelAt{tg, &calls, at, cancel}, kernel, tempering.SPT, 3, RunOptions{Budget: b})
		return sr, calls, err
	}
	two := b
	two.MinDraws, two.MaxDraws = 20, 20
	want, e2, err := run(two, 0) // two whole blocks
	if err != nil || want.Draws != 20 {
		t.Fatalf("two blocks: %v, %d draws", err, want.Draws)
	}
	three := b
	three.MinDraws, three.MaxDraws = 30, 30
	_, e3, err := run(three, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := (e2 + e3) / 2 // inside the third block
	got, calls, err := run(b, at)
	if !errors.Is(err, ErrInterrupted) || got.StopReason != "interrupted" || calls != at {
		t.Fatalf("cancelled at evaluation %d of %d…%d: %v, stop %q, %d evaluations", at, e2, e3, err, got.StopReason, calls)
	}
	if got.Draws != want.Draws || got.Rhat != want.Rhat || got.ESS != want.ESS || got.ESSBulk != want.ESSBulk {
		t.Errorf("interrupted in the third block: %d draws, R-hat %v, ESS %v; two blocks: %d, %v, %v", got.Draws, got.Rhat, got.ESS, want.Draws, want.Rhat, want.ESS)
	}
}

func TestReproduceInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opt := ReproduceOptions{Experiments: []string{"ess"}, Budget: Budgets["tiny"], Seed: 1, Out: t.TempDir()}
	_, err := Reproduce(ctx, opt)
	if err == nil {
		t.Fatal("no error from a cancelled run")
	}
}

// TestErrorsSayBenchOnce: errors of this package that wrap another of its
// errors say "bench: " once, keep the wrapped error for errors.Is, and
// Merge's message for folders without cells names them once.
func TestErrorsSayBenchOnce(t *testing.T) {
	inner := fmt.Errorf("bench: measuring the cost of LogLik on 64 observations: %w", os.ErrDeadlineExceeded)
	err := wrapf(inner, "cell %s", "runtime/mvn")
	if want := "bench: cell runtime/mvn: measuring the cost of LogLik on 64 observations: " + os.ErrDeadlineExceeded.Error(); err.Error() != want {
		t.Errorf("wrapf: %q, want %q", err, want)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.Is(err, inner) {
		t.Errorf("wrapf(%v) does not wrap it", inner)
	}
	if got, want := wrapf(errors.New("gp: singular"), "cell %s", "k").Error(), "bench: cell k: gp: singular"; got != want {
		t.Errorf("wrapf: %q, want %q", got, want)
	}
	err = interrupted(inner)
	if want := "bench: interrupted: measuring the cost of LogLik on 64 observations: " + os.ErrDeadlineExceeded.Error(); err.Error() != want {
		t.Errorf("interrupted: %q, want %q", err, want)
	}
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted(%v) does not wrap ErrInterrupted", inner)
	}
	dir := t.TempDir()
	_, err = Merge([]string{dir}, filepath.Join(dir, "out"))
	if want := "bench: no cell results to merge in " + dir; err == nil || err.Error() != want {
		t.Errorf("Merge of an empty folder: %v, want %q", err, want)
	}
}
