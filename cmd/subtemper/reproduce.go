package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/subtemper/subtemper/bench"
	"github.com/subtemper/subtemper/internal/plural"
)

const reproduceIntro = `Runs the paper's experiment grid (§4) and writes CSV and Markdown tables
shaped like its Tables 1–2 and figures like its Figs. 1–4 (PNG and SVG) to
--out. Experiments: runtime (Fig. 1: seconds per iteration against N, cost
ratios to HMC alone, measured beside the count-based prediction), ess
(Tables 1–2 and Fig. 3: median ESS per second), convergence (Fig. 2:
median R-hat against draws and seconds), or all.

Paper settings: M = 6 levels, β_m = 2^{-m/2}; MH σ = 0.1·β_m^{-1/2}; HMC
ε = 0.01 with L = 10 (MVN) / 5 (GP), no step-size adaptation; three chains
from θ*, θ*/2, 2θ*, each sampler run until the median R-hat < 1.1 or its
budget ends. --budget quick finishes in about 6 minutes on 2 cores (a
smaller grid with short runs; see docs/REPRODUCTION.md); full is the whole
grid, meant for a cluster with --shard.`

const reproduceNotes = `Sharding: --shard i/n runs the cells k of the grid with k mod n == i, each
seeded from (--seed, cell key), so results do not depend on the sharding.
Each shard writes cells/*.json and manifest.json to its --out; then
` + "`subtemper merge DIR... --out DIR`" + ` writes the tables and figures of all shards.

Environment: SUBTEMPER_BACKEND (default backend), SUBTEMPER_BLAS_THREADS
(OpenBLAS threads; default OpenBLAS's own).`

// cmdReproduce runs the paper's experiment grid (bench.Reproduce).
func cmdReproduce(ctx context.Context, args []string, io *stdio) error {
	var f reproduceFlags
	fs := reproduceFlagSet(&f)
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	opt, err := f.options(pos)
	if err != nil {
		return err
	}
	if err := prepareOutDir(f.out); err != nil {
		return err
	}
	start := time.Now()
	if !f.quiet {
		reproduceProgress(&opt, io.err, start)
	}
	res, err := bench.Reproduce(ctx, opt)
	elapsed := time.Since(start).Round(time.Second)
	if errors.Is(err, bench.ErrInterrupted) {
		fmt.Fprintf(io.err, "interrupted after %s: %s written to %s\n", elapsed, plural.Count(len(res), "cell", "cells"), f.out)
		return errInterrupted
	}
	if err != nil {
		// report prefixes "subtemper reproduce: "; the error says the rest.
		return err
	}
	fmt.Fprintf(io.out, "%s (budget %s, backend %s, shard %s) in %s; results in %s\n", plural.Count(len(res), "cell", "cells"), opt.Budget.Name, opt.Backend.Name(), f.shard, elapsed, f.out)
	if opt.Shard.N <= 1 {
		fmt.Fprintf(io.out, "report: %s\n", filepath.Join(f.out, "REPORT.md"))
	} else {
		fmt.Fprintf(io.out, "merge the shards with: subtemper merge DIR... --out DIR\n")
	}
	return nil
}

// reproduceFlags are the reproduce command's flags.
type reproduceFlags struct {
	budget, out, shard, backend string
	seed                        uint64
	quiet                       bool
}

// reproduceFlagSet is the reproduce command's flag set, parsing into f.
func reproduceFlagSet(f *reproduceFlags) *flagSet {
	fs := newFlagSet("subtemper reproduce", "subtemper reproduce runtime|ess|convergence|all [flags]", reproduceIntro)
	fs.group("Run")
	fs.str(&f.budget, "budget", "quick", "quick or full")
	fs.str(&f.out, "out", "reproduce-out", "output folder")
	fs.str(&f.shard, "shard", "0/1", "run shard `i/n` of the grid (0 ≤ i < n)")
	fs.str(&f.backend, "backend", "", "linear-algebra backend (default: $SUBTEMPER_BACKEND, else the fastest compiled in)")
	fs.uint64(&f.seed, "seed", 1, "seed of the data and of every cell")
	fs.boolean(&f.quiet, "quiet", false, "no progress lines on stderr (one per cell, and in ESS cells one per sampler when it stops, and every 30 s while it runs)")
	fs.notes = reproduceNotes
	return fs
}

// options checks the experiments named (pos) and the flags, sets the
// threads, and returns the run's options (without progress callbacks).
func (f *reproduceFlags) options(pos []string) (bench.ReproduceOptions, error) {
	var none bench.ReproduceOptions
	if len(pos) == 0 {
		return none, usagef("name an experiment: runtime, ess, convergence or all (run `subtemper reproduce --help`)")
	}
	for _, e := range pos {
		switch e {
		case "runtime", "ess", "convergence", "all":
		default:
			return none, usagef("unknown experiment %q: want runtime, ess, convergence or all", e)
		}
	}
	b, ok := bench.Budgets[f.budget]
	if !ok {
		return none, usagef("--budget %q: want quick or full", f.budget)
	}
	sh, err := bench.ParseShard(f.shard)
	if err != nil {
		return none, usagef("--shard %q: want i/n with 0 ≤ i < n", f.shard)
	}
	if strings.TrimSpace(f.out) == "" {
		return none, usagef("--out is empty")
	}
	be, err := bench.Backend(f.backend)
	if err != nil {
		return none, usagef("--backend: %v", err)
	}
	if _, err := bench.ApplyThreads(); err != nil {
		return none, usagef("%v", err)
	}
	return bench.ReproduceOptions{
		Experiments: pos, Budget: b, Backend: be, Seed: f.seed, Shard: sh, Out: f.out,
	}, nil
}

// reproduceProgress sets opt's callbacks to write progress lines to w: one
// per cell, and in ESS cells one per sampler when it stops and one every
// blockLineEvery while it runs; start is when the run began.
func reproduceProgress(opt *bench.ReproduceOptions, w io.Writer, start time.Time) {
	var last time.Time // of the last line
	opt.Progress = func(done, total int, c *bench.Cell) {
		last = time.Now()
		if c != nil {
			fmt.Fprintf(w, "[%d/%d %s] %s\n", done+1, total, time.Since(start).Round(time.Second), c.Key())
		}
	}
	opt.Block = func(_ *bench.Cell, driver string, tp bench.TracePoint, stop string) {
		if now := time.Now(); stop != "" || now.Sub(last) >= blockLineEvery {
			last = now
			fmt.Fprintf(w, "    %s\n", blockLine(driver, tp, stop))
		}
	}
}

// cmdMerge merges the shards of a sharded reproduce run (bench.Merge).
func cmdMerge(ctx context.Context, args []string, io *stdio) error {
	var out string
	var partial bool
	fs := newFlagSet("subtemper merge", "subtemper merge DIR... --out DIR [flags]",
		`Reads the cells/*.json and manifest.json of the output folders of the shards
of a `+"`subtemper reproduce --shard i/n`"+` run, checks that every cell of the grid
is present exactly once, and writes the same tables and figures as an
unsharded run to --out, deterministically (cells sorted by key).

Given the output folders of the shards of a gp fit (`+"`subtemper gp --run-chains A-B`"+`),
it joins their final checkpoints and writes to --out what the fit made in one process
writes: the same draws, diagnostics, verdict and saved fit (docs/RESUME.md).`)
	fs.str(&out, "out", "", "output folder (required)")
	fs.boolean(&partial, "partial", false, "exit 0 even when cells are missing (the tables then have gaps)")
	dirs, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("name the shards' output folders (run `subtemper merge --help`)")
	}
	if strings.TrimSpace(out) == "" {
		return usagef("--out is required")
	}
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			return usageError{err}
		}
		if !fi.IsDir() {
			return usagef("%s is not a folder: name the output folders of the shards (their --out)", d)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[0], checkpointName)); err == nil {
		return mergeFits(ctx, dirs, out, io)
	}
	if err := prepareOutDir(out); err != nil {
		return err
	}
	rep, err := bench.Merge(dirs, out)
	if rep != nil {
		for _, k := range rep.Duplicates {
			fmt.Fprintf(io.err, "duplicate cell (first copy kept): %s\n", k)
		}
		for _, k := range rep.Partial {
			fmt.Fprintf(io.err, "interrupted cell (partial results): %s\n", k)
		}
		for _, m := range rep.Mismatch {
			fmt.Fprintf(io.err, "manifest disagrees with the first: %s\n", m)
		}
		for _, k := range rep.Missing {
			fmt.Fprintf(io.err, "missing cell: %s\n", k)
		}
	}
	if err != nil {
		// report prefixes "subtemper merge: "; the error says the rest.
		if rep != nil && len(rep.Cells) == 0 {
			return usageError{err} // no cells in the folders named: bad input
		}
		return err
	}
	fmt.Fprintf(io.out, "merged %s from %s into %s (%d missing, %s)\n", plural.Count(len(rep.Cells), "cell", "cells"),
		plural.Count(len(dirs), "folder", "folders"), out, len(rep.Missing), plural.Count(len(rep.Duplicates), "duplicate", "duplicates"))
	if n := len(rep.Mismatch); n > 0 {
		return fmt.Errorf("%s on the grid, budget or seed", plural.Count(n, "shard manifest disagrees", "shard manifests disagree"))
	}
	if len(rep.Missing) > 0 && !partial {
		return fmt.Errorf("%d of %s missing (tables written with gaps; --partial accepts this)", len(rep.Missing), plural.Count(len(rep.Missing)+len(rep.Cells), "cell", "cells"))
	}
	return nil
}

// prepareOutDir creates the output folder dir of reproduce or merge before
// any work, so that an --out that cannot be a folder (an existing file, a
// path without permission) is a usage error, as for gp and mvn.
func prepareOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: %v", dir, err)
	}
	return nil
}

// blockLineEvery is how often reproduce reports a sampler that is still
// running.
const blockLineEvery = 30 * time.Second

// blockLine describes a sampler's progress inside an ESS cell: "spt:
// converged, 2000 draws per chain, R-hat 1.042, 52.1 s of compute per
// chain".
func blockLine(driver string, tp bench.TracePoint, stop string) string {
	state := map[string]string{
		"": "running", "converged": "converged", "max_draws": "stopped at the draw limit", "max_seconds": "stopped at the time limit",
	}[stop]
	if state == "" {
		state = "stopped (" + stop + ")"
	}
	return fmt.Sprintf("%s: %s, %d draws per chain, R-hat %.3f, %.3g s of compute per chain", driver, state, tp.Draws, tp.Rhat, tp.Seconds)
}
