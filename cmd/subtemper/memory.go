package main

import (
	"fmt"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/memlimit"
	"github.com/subtemper/subtemper/internal/plural"
)

// maxMemoryHelp is the help of --max-memory.
const maxMemoryHelp = "memory this run may use, e.g. 8G or 512MiB; \"\" means the cgroup limit or MemAvailable, whichever is smaller (runs estimated to need more are refused before they start)"

// memoryLimit returns the limit to check estimates against: --max-memory
// when given, else what the machine has available.
func memoryLimit(maxMemory string) (int64, string, error) {
	if maxMemory != "" {
		v, err := memlimit.ParseSize(maxMemory)
		if err != nil {
			return 0, "", usagef("--max-memory: %v", err)
		}
		return v, "--max-memory", nil
	}
	v, src := memlimit.Available()
	return v, src, nil
}

// checkRunMemory refuses a sampling run whose model, ladder and draws
// would not fit in memory (exit 2), before anything large is allocated.
func (s *samplerFlags) checkRunMemory(model memlimit.Item, params int) error {
	limit, src, err := memoryLimit(s.maxMemory)
	if err != nil {
		return err
	}
	items := []memlimit.Item{model}
	if !strings.EqualFold(s.sampler, "none") {
		items = append(items, memlimit.Item{What: ladderWhat(s),
			Bytes: memlimit.Ladder(s.maxLevels(), s.chains, strings.EqualFold(s.sampler, "spt")), Fix: "use fewer --levels"})
	}
	iters := float64(s.warmup) + float64(s.draws)*float64(s.thin)
	iterFix := "use a smaller --thin"
	if float64(s.warmup) > float64(s.draws)*float64(s.thin) {
		iterFix = "use fewer --warmup iterations"
	}
	items = append(items, memlimit.Item{
		What:  fmt.Sprintf("the draws (%s × %s of %s)", plural.Count(s.chains, "chain", "chains"), plural.Count(s.draws, "draw", "draws"), plural.Count(params, "parameter", "parameters")),
		Bytes: memlimit.Kept(s.chains, s.draws, params),
		Fix:   "use fewer --draws (with --thin to cover the same iterations) or fewer --chains",
	}, memlimit.Item{
		What:  fmt.Sprintf("the iterations' records (%s × (%d warm-up + %d × %d thinned) iterations)", plural.Count(s.chains, "chain", "chains"), s.warmup, s.draws, s.thin),
		Bytes: memlimit.Iterations(s.chains, iters),
		Fix:   iterFix,
	})
	if err := memlimit.Check(items, limit, src); err != nil {
		return usageError{err}
	}
	return nil
}

// checkGPMemory checks the memory of the gp command's run: the synthetic
// data's size or, with --data, that of data, read from the file (the
// data's own memory is small beside the model's: N·(D+1) numbers against
// N² per chain).
func (f *gpFlags) checkGPMemory(backend string, data *subtemper.GPData) error {
	n, d, what := f.n, f.dims, fmt.Sprintf("the GP model (--n %d --dims %d)", f.n, f.dims)
	fix := "use a smaller --n"
	if data != nil {
		n, d = data.N, data.D
		what = fmt.Sprintf("the GP model (%s: %d rows, %d inputs)", f.data, n, d)
		fix = "use fewer rows of --data (a random subset)"
	}
	model := memlimit.Item{What: what, Bytes: memlimit.GP(n, d, f.chains, f.data == "", backend == "cuda"), Fix: fix}
	if err := f.checkRunMemory(model, d+2); err != nil {
		return err
	}
	if err := subtemper.CheckDeviceMemory(backend, n, d, f.chains); err != nil {
		return usageError{fmt.Errorf("%v: %s, or fewer --chains", err, fix)}
	}
	return nil
}

// checkMVNMemory checks the memory of the mvn command's run: the synthetic
// data's size or, with --data, that of data, read from the file.
func (f *mvnFlags) checkMVNMemory(data *subtemper.MVNData) error {
	n, d, what := f.n, f.dims, fmt.Sprintf("the MVN model (--n %d --dims %d)", f.n, f.dims)
	fix := "use a smaller --n or --dims"
	if data != nil {
		n, d = data.N, data.D
		what = fmt.Sprintf("the MVN model (%s: %d rows, %d dimensions)", f.data, n, d)
		fix = "use fewer rows of --data"
	}
	model := memlimit.Item{What: what, Bytes: memlimit.MVN(n, d, f.chains, f.maxLevels()), Fix: fix}
	return f.checkRunMemory(model, d)
}

// checkEvalMemory checks the memory of eval's model of data, read from the
// file at path, on the backend named.
func checkEvalMemory(path, maxMemory, backend string, data *subtemper.GPData) error {
	limit, src, err := memoryLimit(maxMemory)
	if err != nil {
		return err
	}
	model := memlimit.Item{What: fmt.Sprintf("the GP model (%s: %d rows, %d inputs)", path, data.N, data.D),
		Bytes: memlimit.GP(data.N, data.D, 0, false, backend == "cuda"), Fix: "use fewer rows of --data"}
	if err := memlimit.Check([]memlimit.Item{model}, limit, src); err != nil {
		return usageError{err}
	}
	return nil
}

// ladderWhat names the ladder in a memory estimate: --levels when given,
// else the most levels an adaptive ladder may choose.
func ladderWhat(s *samplerFlags) string {
	if s.levels > 0 {
		return fmt.Sprintf("the ladder (--levels %d)", s.levels)
	}
	return fmt.Sprintf("the ladder (up to %d levels)", s.maxLevels())
}
