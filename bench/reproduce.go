package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/subtemper/subtemper/linalg"
)

// ReproduceOptions configures Reproduce.
type ReproduceOptions struct {
	// Experiments: "runtime", "ess", "convergence" or "all".
	Experiments []string
	Budget      Budget
	Backend     linalg.Backend
	Seed        uint64
	// Shard selects part of the grid; the zero value (or N ≤ 1) runs it all.
	Shard Shard
	// Out is the output folder.
	Out string
	// Progress, if non-nil, is called before each cell (done cells so far,
	// the shard's total, the cell) and after the last (cell nil).
	Progress func(done, total int, c *Cell)
	// Block, if non-nil, is called inside ESS cells after each block of a
	// sampler's draws (see RunOptions.Block), with the cell.
	Block func(c *Cell, driver string, tp TracePoint, stop string)
}

// Reproduce runs the shard's cells of the grid, writing each cell's result
// to Out/cells/<key>.json as soon as it is done and a manifest to
// Out/manifest.json. Unsharded, it then writes the tables and figures
// (WriteReport) to Out; sharded, `Merge` does that from all shards'
// folders. On cancellation it writes what it has (the interrupted cell
// marked so, and the report of the cells done when unsharded) and returns
// an error wrapping ErrInterrupted.
func Reproduce(ctx context.Context, opt ReproduceOptions) ([]*CellResult, error) {
	grid, err := Grid(opt.Budget, opt.Experiments)
	if err != nil {
		return nil, err
	}
	cells := opt.Shard.Select(grid)
	be := opt.Backend
	if be == nil {
		be = linalg.Default()
	}
	m := &Manifest{Budget: opt.Budget.Name, Experiments: opt.Experiments, Seed: opt.Seed, Backend: be.Name(), Shard: "0/1"}
	if opt.Shard.N > 1 {
		m.Shard = fmt.Sprintf("%d/%d", opt.Shard.I, opt.Shard.N)
	}
	for _, c := range grid {
		m.Grid = append(m.Grid, c.Key())
	}
	for _, c := range cells {
		m.Cells = append(m.Cells, c.Key())
	}
	if err := WriteManifest(opt.Out, m); err != nil {
		return nil, err
	}
	var results []*CellResult
	var runErr error
	for i, c := range cells {
		if opt.Progress != nil {
			opt.Progress(i, len(cells), &c)
		}
		ro := RunOptions{Budget: opt.Budget, Backend: be, Seed: opt.Seed}
		if opt.Block != nil {
			ro.Block = func(driver string, tp TracePoint, stop string) { opt.Block(&c, driver, tp, stop) }
		}
		r, err := RunCell(ctx, c, ro)
		if r != nil {
			if werr := WriteCell(opt.Out, r); werr != nil {
				return results, werr
			}
			results = append(results, r)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if opt.Progress != nil && runErr == nil {
		opt.Progress(len(cells), len(cells), nil)
	}
	if opt.Shard.N <= 1 && (runErr == nil || errors.Is(runErr, ErrInterrupted)) {
		if err := WriteReport(opt.Out, results); err != nil {
			return results, err
		}
	}
	return results, runErr
}

// Merge reads the output folders of the shards of a run, and writes the
// tables and figures of all their cells to out, as an unsharded run
// would, with a copy of every cell's JSON under out/cells. It returns the merge report (missing, duplicate, interrupted
// cells); the report is written even when cells are missing.
func Merge(dirs []string, out string) (*MergeReport, error) {
	rep, err := ReadCells(dirs)
	if err != nil {
		return nil, err
	}
	if len(rep.Cells) == 0 {
		return rep, fmt.Errorf("bench: no cell results to merge in %s", strings.Join(dirs, ", "))
	}
	for _, r := range rep.Cells {
		if err := WriteCell(out, r); err != nil {
			return rep, err
		}
	}
	if err := WriteReport(out, rep.Cells); err != nil {
		return rep, err
	}
	return rep, nil
}
