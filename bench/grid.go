package bench

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Experiments of the reproduction.
const (
	ExpRuntime     = "runtime"     // Fig. 1: seconds per iteration against N, cost ratios
	ExpESS         = "ess"         // Tables 1–2, Fig. 3: median ESS per second
	ExpConvergence = "convergence" // Fig. 2: median R-hat against draws and seconds
)

// Cell is one unit of the reproduction grid: for Kind "runtime", the
// seconds per iteration of all five samplers on one (model, N, dim); for
// Kind "ess", runs of all five samplers (three chains each) on one (model,
// kernel, N, dim) until convergence or the budget's end. All five samplers
// of a row of a table run in one cell, so that they are timed on the same
// machine even when the grid is sharded.
type Cell struct {
	Kind   string `json:"kind"`   // "runtime" or "ess"
	Model  string `json:"model"`  // "mvn" or "gp"
	Kernel string `json:"kernel"` // "mh" or "hmc"
	N      int    `json:"n"`      // observations
	Dim    int    `json:"dim"`    // MVN: D = |θ|; GP: inputs D, |θ| = D+2
}

// Key identifies the cell; keys sort in grid order
// (e.g. "ess/gp/hmc/N=00512/D=018").
func (c Cell) Key() string {
	return fmt.Sprintf("%s/%s/%s/N=%05d/D=%03d", c.Kind, c.Model, c.Kernel, c.N, c.Dim)
}

// Params is the number of sampled parameters |θ|.
func (c Cell) Params() int {
	if c.Model == ModelGP {
		return c.Dim + 2
	}
	return c.Dim
}

// Budget bounds the work of a reproduction. Zero fields are invalid; use
// one of Budgets.
type Budget struct {
	Name string `json:"name"`
	// Runtime cells: timed rounds per sampler last at least RuntimeSeconds
	// and RuntimeMinRounds rounds, after RuntimeWarmup untimed rounds.
	RuntimeSeconds   float64 `json:"runtime_seconds"`
	RuntimeMinRounds int     `json:"runtime_min_rounds"`
	RuntimeWarmup    int     `json:"runtime_warmup"`
	// CalibrationSeconds is MeasureCost's MinTime per (size, kind).
	CalibrationSeconds float64 `json:"calibration_seconds"`
	// ESS cells: each sampler's three chains run in blocks of Block draws
	// until the median R-hat is below 1.1 with at least MinDraws draws per
	// chain, or a chain reaches MaxDraws draws or MaxSeconds of compute.
	Block      int     `json:"block"`
	MinDraws   int     `json:"min_draws"`
	MaxDraws   int     `json:"max_draws"`
	MaxSeconds float64 `json:"max_seconds"`
	// Grid selection.
	MVNRuntimeN, GPRuntimeN []int // runtime sweeps (MVN D = 50, GP D = 18)
	GPTableN                int   // Table 1's N
	GPTableDims             []int // Table 1's GP input dimensions D (|θ| = D+2), HMC
	GPTableDimsMH           []int // the same for MH
	MVNTableHMCN            int   // Table 2 top: N (HMC)
	MVNTableMHN             int   // Table 2 bottom: N (MH)
	MVNTableDims            []int // Table 2's D
	MVNSweepN               []int // Fig. 3 left: MVN HMC, D = 50
	GPSweepN                []int // Fig. 3 centre and right: GP MH and HMC, D = 18
	ConvergenceN            int   // Fig. 2: GP HMC, D = 18, at this N
}

// Budgets are the named budgets of `subtemper reproduce --budget`.
//
//   - full: the paper's whole grid (§4), for a cluster: runtime sweeps MVN
//     N = 64…2048 (D = 50) and GP N = 64…1024 (D = 18); Table 1 (GP, N = 512,
//     |θ| = 5, 10, 15, 20, 25 with HMC, 5…20 with MH); Table 2 (MVN, D = 5,
//     10, 50, 100; HMC at N = 1024, MH at N = 256); Fig. 3 sweeps MVN HMC
//     D = 50 N = 64…2048 and GP MH and HMC D = 18 N = 64…1024; Fig. 2 is the
//     GP HMC N = 512, |θ| = 20 cell. Each sampler runs until converged with
//     at least 2000 draws per chain, or 50 000 draws, or 30 minutes per chain.
//   - quick: within 10 minutes on 2 cores. Runtime sweeps MVN N = 64…2048
//     and GP N = 64…512 (GP N = 1024 is left to the benchmarks, where one
//     round of TT alone costs seconds) with about 1 s of timing per
//     sampler; Table 1 at
//     N = 128 with |θ| = 5, 10, 20 (HMC and MH); Table 2 in full (MVN,
//     D = 5, 10, 50, 100); Fig. 3 sweeps at MVN N = 256, 1024 and GP
//     N = 64, 128; Fig. 2 at N = 128. Each sampler stops when converged
//     with ≥ 100 draws per chain, at 4000 draws, or at 2.5 s of compute
//     per chain (checked after every draw of the first chain; the others
//     then make as many draws). Expensive samplers (TT, PT on the GP) get
//     few draws and are mostly marked unconverged: quick is a smoke run
//     of the whole pipeline, not a measurement of ESS.
//   - tiny: a smoke test of a few seconds (tests).
var Budgets = map[string]Budget{
	"full": {
		Name: "full", RuntimeSeconds: 30, RuntimeMinRounds: 10, RuntimeWarmup: 2, CalibrationSeconds: 0.5,
		Block: 500, MinDraws: 2000, MaxDraws: 50000, MaxSeconds: 1800,
		MVNRuntimeN: []int{64, 128, 256, 512, 1024, 2048}, GPRuntimeN: []int{64, 128, 256, 512, 1024},
		GPTableN: 512, GPTableDims: []int{3, 8, 13, 18, 23}, GPTableDimsMH: []int{3, 8, 13, 18},
		MVNTableHMCN: 1024, MVNTableMHN: 256, MVNTableDims: []int{5, 10, 50, 100},
		MVNSweepN: []int{64, 128, 256, 512, 1024, 2048}, GPSweepN: []int{64, 128, 256, 512, 1024},
		ConvergenceN: 512,
	},
	"quick": {
		Name: "quick", RuntimeSeconds: 1, RuntimeMinRounds: 2, RuntimeWarmup: 1, CalibrationSeconds: 0.05,
		Block: 50, MinDraws: 100, MaxDraws: 4000, MaxSeconds: 2.5,
		MVNRuntimeN: []int{64, 128, 256, 512, 1024, 2048}, GPRuntimeN: []int{64, 128, 256, 512},
		GPTableN: 128, GPTableDims: []int{3, 8, 18}, GPTableDimsMH: []int{3, 8, 18},
		MVNTableHMCN: 1024, MVNTableMHN: 256, MVNTableDims: []int{5, 10, 50, 100},
		MVNSweepN: []int{256, 1024}, GPSweepN: []int{64, 128},
		ConvergenceN: 128,
	},
	"tiny": {
		Name: "tiny", RuntimeSeconds: 0.02, RuntimeMinRounds: 2, RuntimeWarmup: 1, CalibrationSeconds: 0.005,
		Block: 20, MinDraws: 20, MaxDraws: 40, MaxSeconds: 1e9,
		MVNRuntimeN: []int{32, 64}, GPRuntimeN: []int{16},
		GPTableN: 16, GPTableDims: []int{2}, GPTableDimsMH: []int{2},
		MVNTableHMCN: 64, MVNTableMHN: 32, MVNTableDims: []int{3},
		MVNSweepN: []int{32, 64}, GPSweepN: []int{16},
		ConvergenceN: 16,
	},
}

// BudgetNames lists the budgets a user may ask for ("tiny" is for tests
// but accepted).
var BudgetNames = []string{"quick", "full"}

// Grid returns the cells of the experiments exps ("runtime", "ess",
// "convergence"; "all" means every one) under budget b, deduplicated and
// sorted by key: a deterministic list, whatever the order of exps.
func Grid(b Budget, exps []string) ([]Cell, error) {
	want := map[string]bool{}
	for _, e := range exps {
		switch e {
		case "all":
			want[ExpRuntime], want[ExpESS], want[ExpConvergence] = true, true, true
		case ExpRuntime, ExpESS, ExpConvergence:
			want[e] = true
		default:
			return nil, fmt.Errorf("bench: unknown experiment %q (want runtime, ess, convergence or all)", e)
		}
	}
	set := map[string]Cell{}
	add := func(c Cell) { set[c.Key()] = c }
	if want[ExpRuntime] {
		for _, n := range b.MVNRuntimeN {
			add(Cell{Kind: ExpRuntime, Model: ModelMVN, Kernel: "hmc", N: n, Dim: 50})
		}
		for _, n := range b.GPRuntimeN {
			add(Cell{Kind: ExpRuntime, Model: ModelGP, Kernel: "hmc", N: n, Dim: 18})
		}
	}
	if want[ExpESS] {
		for _, d := range b.GPTableDims {
			add(Cell{Kind: ExpESS, Model: ModelGP, Kernel: "hmc", N: b.GPTableN, Dim: d})
		}
		for _, d := range b.GPTableDimsMH {
			add(Cell{Kind: ExpESS, Model: ModelGP, Kernel: "mh", N: b.GPTableN, Dim: d})
		}
		for _, d := range b.MVNTableDims {
			add(Cell{Kind: ExpESS, Model: ModelMVN, Kernel: "hmc", N: b.MVNTableHMCN, Dim: d})
			add(Cell{Kind: ExpESS, Model: ModelMVN, Kernel: "mh", N: b.MVNTableMHN, Dim: d})
		}
		for _, n := range b.MVNSweepN {
			add(Cell{Kind: ExpESS, Model: ModelMVN, Kernel: "hmc", N: n, Dim: 50})
		}
		for _, n := range b.GPSweepN {
			add(Cell{Kind: ExpESS, Model: ModelGP, Kernel: "mh", N: n, Dim: 18})
			add(Cell{Kind: ExpESS, Model: ModelGP, Kernel: "hmc", N: n, Dim: 18})
		}
	}
	if want[ExpConvergence] {
		add(ConvergenceCell(b))
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	cells := make([]Cell, len(keys))
	for i, k := range keys {
		cells[i] = set[k]
	}
	return cells, nil
}

// ConvergenceCell is the cell of Fig. 2: GP, HMC, D = 18 (|θ| = 20).
func ConvergenceCell(b Budget) Cell {
	return Cell{Kind: ExpESS, Model: ModelGP, Kernel: "hmc", N: b.ConvergenceN, Dim: 18}
}

// Shard is shard I of N (0 ≤ I < N): the cells k with k mod N == I.
type Shard struct{ I, N int }

// ParseShard parses "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("bench: shard %q: want i/n with 0 ≤ i < n", s)
	}
	return Shard{I: i, N: n}, nil
}

// Select returns the cells of the shard.
func (s Shard) Select(cells []Cell) []Cell {
	if s.N <= 1 {
		return cells
	}
	var out []Cell
	for k, c := range cells {
		if k%s.N == s.I {
			out = append(out, c)
		}
	}
	return out
}

// Seed derives a seed from the run's seed and a string key (FNV-1a), so
// that a cell's results do not depend on which shard runs it.
func Seed(seed uint64, key string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%s", seed, key)
	return h.Sum64()
}

// dataSeed is the seed of a model's synthetic data: it depends on the
// model and dimension only, so that the N sweeps use nested datasets.
func dataSeed(seed uint64, model string, dim int) uint64 {
	return Seed(seed, fmt.Sprintf("data/%s/D=%d", model, dim))
}

// seconds converts float seconds to a Duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
