package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"

	// Backends register themselves when compiled in (build tags openblas,
	// cuda); without the tags these imports register nothing.
	_ "github.com/subtemper/subtemper/cuda"
	"github.com/subtemper/subtemper/linalg/openblas"
)

// samplerFlags are the flags shared by the gp and mvn commands.
type samplerFlags struct {
	sampler, inner, swap, backend, out string
	maxMemory                          string
	finalOut                           string // --out while out is its staging folder (see outdir.go)
	chains, warmup, draws, thin        int
	levels, leapfrog, baseSteps        int
	betaMin, stepSize, mhScale         float64
	adapt                              bool
	seed                               uint64
	plots, json, quiet, progress       bool
}

// samplerDefaults are the defaults that differ between commands.
type samplerDefaults struct {
	warmup, draws, leapfrog int
	stepSize                float64
	adapt                   bool
}

func (s *samplerFlags) define(fs *flagSet, d samplerDefaults) {
	fs.group("Sampler")
	fs.str(&s.sampler, "sampler", "stt", "driver: none (inner kernel alone), pt, tt, spt (subsampled PT) or stt (subsampled tempered transitions)")
	fs.str(&s.inner, "inner", "hmc", "inner kernel: mh (random-walk Metropolis) or hmc")
	fs.integer(&s.chains, "chains", 3, "number of chains, run in parallel (started at θ*, θ*/2, 2θ*)")
	fs.integer(&s.warmup, "warmup", d.warmup, "warm-up iterations per chain, discarded")
	fs.integer(&s.draws, "draws", d.draws, "draws kept per chain after warm-up")
	fs.integer(&s.thin, "thin", 1, "keep one iteration in `K` after warm-up")
	fs.integer(&s.levels, "levels", 6, "number `M` of levels above the target (M+1 in all); ladder β_m = β*^{m/M}")
	fs.float(&s.betaMin, "beta-min", 0.125, "smallest inverse temperature `β*`, in (0,1)")
	fs.integer(&s.baseSteps, "base-steps", 0, "tt and stt: ordinary transitions at the target level after each tempered transition (0: Neal's form, the target moves only through accepted tempered transitions; 1: the paper's Algorithm 2 count, one full-data transition more per iteration)")
	fs.str(&s.swap, "swap", "sweep", "swap schedule of pt and spt: sweep (the paper's) or deo (non-reversible even/odd)")
	fs.float(&s.stepSize, "step-size", d.stepSize, "HMC leapfrog step `ε` (the initial one with --adapt)")
	fs.integer(&s.leapfrog, "leapfrog", d.leapfrog, "HMC leapfrog steps `L`")
	adaptHelp := "tune the HMC step size by dual averaging (target acceptance 0.8) during warm-up only, then freeze it"
	if d.adapt {
		adaptHelp += "; ON by default for this command, --adapt=false gives the paper's fixed ε"
	}
	fs.boolean(&s.adapt, "adapt", d.adapt, adaptHelp)
	fs.float(&s.mhScale, "mh-scale", 0.1, "MH proposal scale `σ` at β = 1 (σ_m = σ·β_m^{-1/2})")
	fs.uint64(&s.seed, "seed", 1, "seed of all the sampler's randomness")
	fs.str(&s.backend, "backend", linalg.FastestName(), backendHelp())

	fs.group("Output")
	fs.str(&s.out, "out", "", "directory for draws.csv, summary.json (and data.csv, figures); \"\" writes no files")
	fs.boolean(&s.plots, "plots", false, "also write PNG and SVG figures to --out: traces, median R-hat against draws and seconds, acceptance rates (figures of an earlier run in --out that this run does not draw are removed, with or without --plots)")
	fs.boolean(&s.json, "json", false, "print summary.json's content on stdout instead of the tables")
	fs.boolean(&s.quiet, "quiet", false, "no progress bar or other messages on stderr (errors still go there)")
	fs.boolean(&s.progress, "progress", false, "draw the progress bar even when stderr is not a terminal")
	fs.str(&s.maxMemory, "max-memory", "", maxMemoryHelp)
}

// check validates the sampler flags and returns the settings and backend.
func (s *samplerFlags) check() (*tempering.Settings, linalg.Backend, error) {
	drv, err := tempering.ParseDriver(s.sampler)
	if err != nil {
		return nil, nil, usagef("--sampler %q: want none, pt, tt, spt or stt", s.sampler)
	}
	sw, err := tempering.ParseSwapSchedule(s.swap)
	if err != nil {
		return nil, nil, usagef("--swap %q: want sweep or deo", s.swap)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"chains", s.chains}, {"draws", s.draws}, {"thin", s.thin}, {"levels", s.levels}, {"leapfrog", s.leapfrog}} {
		if err := checkPositiveInt(c.name, c.v); err != nil {
			return nil, nil, err
		}
	}
	if err := checkNonNegInt("warmup", s.warmup); err != nil {
		return nil, nil, err
	}
	if err := checkNonNegInt("base-steps", s.baseSteps); err != nil {
		return nil, nil, err
	}
	if s.draws > (math.MaxInt-s.warmup)/s.thin {
		return nil, nil, usagef("--warmup %d + --draws %d × --thin %d iterations per chain is out of range", s.warmup, s.draws, s.thin)
	}
	if !(s.betaMin > 0 && s.betaMin < 1) {
		return nil, nil, usagef("--beta-min must lie in (0,1), got %v", s.betaMin)
	}
	if err := checkPositive("step-size", s.stepSize); err != nil {
		return nil, nil, err
	}
	if err := checkPositive("mh-scale", s.mhScale); err != nil {
		return nil, nil, err
	}
	var k tempering.Kernel
	switch strings.ToLower(s.inner) {
	case "hmc":
		// --adapt tunes the step size only; without it the step size is
		// fixed (the paper's).
		adapt := tempering.AdaptNone
		if s.adapt {
			adapt = tempering.AdaptStep
		}
		k = tempering.HMC{StepSize: s.stepSize, Steps: s.leapfrog, Adapt: adapt}
	case "mh":
		k = tempering.MH{Sigma: s.mhScale}
	default:
		return nil, nil, usagef("--inner %q: want mh or hmc", s.inner)
	}
	if s.plots && s.out == "" {
		return nil, nil, usagef("--plots needs --out DIR to write the figures into")
	}
	be, err := linalg.Get(s.backend)
	if err != nil {
		return nil, nil, usagef("--backend %q is not compiled into this binary (available: %s; openblas needs -tags openblas, cuda needs -tags cuda)", s.backend, strings.Join(linalg.Names(), ", "))
	}
	if be.Name() == "openblas" && os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		// Chains run in parallel goroutines, each calling OpenBLAS; a
		// multithreaded OpenBLAS in each would oversubscribe the cores.
		openblas.SetThreads(max(1, runtime.NumCPU()/s.chains))
	}
	st := &tempering.Settings{
		Driver: drv, Kernel: k, Levels: s.levels, BetaMin: s.betaMin, Swap: sw,
		Chains: s.chains, Warmup: s.warmup, Draws: s.draws, Thin: s.thin, Seed: s.seed,
		BaseSteps: s.baseSteps, RecordTimes: true,
	}
	return st, be, nil
}

// prepareOut creates the output directory (if any) before sampling, so
// that a bad --out fails before minutes of work.
func (s *samplerFlags) prepareOut() error {
	if s.out == "" {
		return nil
	}
	return s.stageOut()
}

// job is one sampling run of a model.
type job struct {
	command  string
	fs       *flagSet
	flags    *samplerFlags
	settings *tempering.Settings
	target   tempering.Target
	backend  string
	names    []string                // natural-unit variable names
	natural  func(dst, u []float64)  // sampling space → natural units
	units    string                  // how natural units relate to the sampling space
	data     map[string]any          // description of the data for summary.json
	dataLine string                  // the same, one line for humans
	extra    func(*runSummary) error // adds command-specific content
	// done, if set, runs after the outputs are written, with the result
	// (the gp command saves the fit and predicts).
	done func(res *tempering.Result) error
	diag *diagCutter // bounds the summary's time after a Ctrl-C (cancel.go)
}

// runJob samples, writes the files and prints the summary. It returns
// errInterrupted (after writing everything) if ctx was cancelled.
func runJob(ctx context.Context, io *stdio, j *job) error {
	f := j.flags
	st := j.settings
	chatty := !f.quiet
	fixStagedPaths(j)
	perChain := st.Warmup + st.Draws*st.Thin
	if chatty {
		fmt.Fprintf(io.err, "subtemper %s: sampling %s × (%d warm-up + %d×%d) %s with %s + %s on %s; Ctrl-C stops and keeps the draws so far\n",
			j.command, plural.Count(st.Chains, "chain", "chains"), st.Warmup, st.Draws, st.Thin, plural.Word(perChain, "iteration", "iterations"),
			strings.ToUpper(f.sampler), strings.ToUpper(f.inner), j.backend)
	}
	if w := ladderWarning(f, j.target.NumObs()); w != "" && chatty {
		fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, w)
	}
	var pr *progress
	if chatty && (io.errIsTerminal || f.progress) {
		pr = startProgress(io.err, st.Chains, perChain, f.progress)
		st.Progress = pr.callback
	}
	start := time.Now()
	cpu0, cpuOK := tempering.ProcessCPU()
	res, err := runSampler(ctx, j.target, st)
	wall := time.Since(start)
	var procCPU time.Duration
	if cpu1, ok := tempering.ProcessCPU(); ok && cpuOK {
		procCPU = cpu1 - cpu0
	}
	if pr != nil {
		pr.stop()
	}
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		if cause := explainStart(j.target, st.Chains); cause != nil {
			return fmt.Errorf("sampling failed: %w", cause)
		}
		return fmt.Errorf("sampling failed: %w", err)
	}
	if res.Interrupted && chatty {
		fmt.Fprintf(io.err, "subtemper %s: interrupted after %s: writing the draws made so far\n", j.command, wall.Round(time.Millisecond))
	}

	j.diag = newDiagCutter(ctx)
	sum, nat := summarize(j, res, wall, procCPU)
	j.diag.close()
	j.diag.finish(sum, res)
	if f.finalOut != "" {
		sum.Settings["out"] = f.finalOut
	}
	if j.extra != nil {
		if err := j.extra(sum); err != nil {
			return err
		}
	}
	// The summary goes to stdout even when writing the files fails, so
	// that a full disk does not lose the whole run.
	var written []string
	var werr error
	if f.out != "" {
		written, werr = writeOutputs(f.out, j, res, nat, sum, f.plots)
		if werr == nil {
			var kept bool
			written, kept, werr = commitOut(f, written, sum.Draws.Summarized == 0 && res.Interrupted)
			if kept && chatty {
				fmt.Fprintf(io.err, "subtemper %s: interrupted before any draw was kept: %s keeps its earlier result; nothing written\n", j.command, f.finalOut)
			}
		} else {
			werr = errors.New(strings.ReplaceAll(werr.Error(), f.out, f.finalOut))
		}
	}
	if f.json {
		if err := writeJSON(io.out, sum); err != nil {
			return errors.Join(werr, err)
		}
	} else {
		printRun(io.out, j, sum)
	}
	if chatty && len(written) > 0 {
		fmt.Fprintf(io.err, "subtemper %s: wrote %s\n", j.command, strings.Join(written, ", "))
	}
	if werr != nil {
		return werr
	}
	if res.Interrupted {
		return errInterrupted
	}
	if j.done != nil {
		return j.done(res)
	}
	return nil
}

// naturalDraws converts res.Draws to natural units: [chain][draw][var].
func naturalDraws(j *job, res *tempering.Result) [][][]float64 {
	nat := make([][][]float64, len(res.Draws))
	for c, ch := range res.Draws {
		nat[c] = make([][]float64, len(ch))
		for s, u := range ch {
			v := make([]float64, len(u))
			j.natural(v, u)
			nat[c][s] = v
		}
	}
	return nat
}

// byVariable returns the first n draws of each chain as [var][chain][draw].
func byVariable(nat [][][]float64, nvar, n int) [][][]float64 {
	out := make([][][]float64, nvar)
	for v := range out {
		out[v] = make([][]float64, len(nat))
		for c := range nat {
			x := make([]float64, n)
			for s := 0; s < n; s++ {
				x[s] = nat[c][s][v]
			}
			out[v][c] = x
		}
	}
	return out
}

// chainCPUSeconds returns each chain's CPU seconds: its thread's CPU time,
// scaled so that the chains together account for the process's CPU time
// procCPU during the run when that is larger (work on helper threads of a
// multithreaded BLAS, garbage collection). Without CPU times it returns the
// chains' wall times.
func chainCPUSeconds(res *tempering.Result, procCPU time.Duration) []float64 {
	out := make([]float64, len(res.ChainTimes))
	if len(res.ChainCPU) != len(res.ChainTimes) {
		for c, t := range res.ChainTimes {
			out[c] = t.Seconds()
		}
		return out
	}
	var sum float64
	for c, t := range res.ChainCPU {
		out[c] = t.Seconds()
		sum += out[c]
	}
	if p := procCPU.Seconds(); sum > 0 && p > sum {
		for c := range out {
			out[c] *= p / sum
		}
	}
	return out
}

// summarize builds the run summary.
func summarize(j *job, res *tempering.Result, wall, procCPU time.Duration) (*runSummary, [][][]float64) {
	f, st := j.flags, j.settings
	nat := naturalDraws(j, res)
	per := make([]int, len(nat))
	common := math.MaxInt
	for c := range nat {
		per[c] = len(nat[c])
		common = min(common, per[c])
	}
	if len(nat) == 0 {
		common = 0
	}
	chainSec := make([]float64, len(res.ChainTimes))
	for c, t := range res.ChainTimes {
		chainSec[c] = t.Seconds()
	}
	cpuSec := chainCPUSeconds(res, procCPU)
	var meanSec float64
	for _, t := range cpuSec {
		meanSec += t
	}
	if len(cpuSec) > 0 {
		meanSec /= float64(len(cpuSec))
	}
	s := &runSummary{
		Command:     j.command,
		Interrupted: res.Interrupted,
		Settings:    flagValues(j.fs),
		Seed:        f.seed,
		Backend:     j.backend,
		BLASThreads: blasThreads(j.backend),
		Sampler:     strings.ToLower(f.sampler),
		Inner:       strings.ToLower(f.inner),
		Adapt:       f.adapt && strings.EqualFold(f.inner, "hmc"),
		Units:       j.units,
		Data:        j.data,
		Ladder:      ladderJSON{Betas: res.Betas, SubsetSizes: res.SubsetSizes},
		Draws: drawsJSON{
			Warmup: st.Warmup, Requested: st.Draws, Thin: st.Thin, PerChain: per, Summarized: common,
		},
		Timings: timingsJSON{
			WallSeconds: wall.Seconds(), ChainSeconds: chainSec, ChainCPUSeconds: cpuSec, MeanChainCPUSeconds: meanSec,
			ProcessCPUSeconds: procCPU.Seconds(), ESSPerSecond: "ess_bulk / mean_chain_cpu_seconds",
		},
		Variables:  []variableJSON{},
		RoundTrips: res.Stats.RoundTrips,
	}
	if common < len(nat) && common >= 0 {
		for _, p := range per {
			if p != common {
				s.Draws.Note = fmt.Sprintf("interrupted chains hold different numbers of draws; diagnostics use the first %s of each, draws.csv holds all", plural.Count(common, "draw", "draws"))
				break
			}
		}
	}
	nan := num(math.NaN())
	s.MaxRhat, s.MinESSBulk, s.MinESSTail = nan, nan, nan
	s.Verdict = "NOT converged: no draws after warm-up"
	if common > 0 {
		vars := byVariable(nat, len(j.names), common)
		var rh, rhp, eb, eps []float64
		var sums []diag.Summary
		for v, name := range j.names {
			d, err := j.diag.summarizeChains(name, vars[v])
			if err != nil {
				d = diag.Summary{Name: name, Mean: math.NaN(), Median: math.NaN(), SD: math.NaN(), MAD: math.NaN(), Q5: math.NaN(), Q95: math.NaN(),
					Rhat: math.NaN(), RhatBulk: math.NaN(), RhatTail: math.NaN(), ESSBulk: math.NaN(), ESSTail: math.NaN(), ESSMean: math.NaN(), MCSEMean: math.NaN(), RhatPaper: math.NaN(), ESSPaper: math.NaN()}
			}
			sums = append(sums, d)
			vj := newVariableJSON(d)
			vj.ESSBulkPerSecond = num(d.ESSBulk / meanSec)
			s.Variables = append(s.Variables, vj)
			rh = append(rh, d.Rhat)
			rhp = append(rhp, d.RhatPaper)
			eb = append(eb, d.ESSBulk)
			eps = append(eps, d.ESSBulk/meanSec)
		}
		s.MedianRhat = num(nanMedian(rh))
		s.MedianRhatPaper = num(nanMedian(rhp))
		s.MedianESSBulk = num(nanMedian(eb))
		s.MedianESSBulkPerSecond = num(nanMedian(eps))
		s.ConvergedPaper = float64(s.MedianRhat) < 1.1
		v := diag.Judge(sums, len(nat))
		s.Converged, s.Verdict = v.Converged, v.String()
		s.MaxRhat, s.MinESSBulk, s.MinESSTail = num(v.MaxRhat), num(v.MinESSBulk), num(v.MinESSTail)
	} else {
		s.MedianRhat, s.MedianRhatPaper, s.MedianESSBulk, s.MedianESSBulkPerSecond = nan, nan, nan, nan
	}
	for c, ch := range res.Draws {
		if stuck(ch) {
			s.StuckChains = append(s.StuckChains, c+1)
		}
	}
	for m, l := range res.Stats.Levels {
		s.Levels = append(s.Levels, levelJSON{
			Level: m, Beta: l.Beta, SubsetSize: l.SubsetSize, Transitions: l.Transitions, Accepted: l.Accepted,
			AcceptRate: num(rateOrNaN(l.Accepted, l.Transitions)), Evals: l.Evals, EvalsGrad: l.EvalsGrad,
			PrefixReuses: l.PrefixReuses, GradResumes: l.GradResumes, Failed: l.Failed, Invalid: l.Invalid, Divergent: l.Divergent,
		})
		s.Failed += l.Failed
		s.Divergent += l.Divergent
	}
	for i := range res.Stats.SwapProposed {
		s.Swaps = append(s.Swaps, swapJSON{
			Levels: [2]int{i, i + 1}, Proposed: res.Stats.SwapProposed[i], Accepted: res.Stats.SwapAccepted[i],
			Rate: num(rateOrNaN(res.Stats.SwapAccepted[i], res.Stats.SwapProposed[i])),
		})
	}
	if s.Swaps == nil {
		s.Swaps = []swapJSON{}
	}
	if s.Sampler == "tt" || s.Sampler == "stt" {
		s.TT = &ttJSON{Proposed: res.Stats.TTProposed, Accepted: res.Stats.TTAccepted, Aborted: res.Stats.TTAborted,
			Rate: num(rateOrNaN(res.Stats.TTAccepted, res.Stats.TTProposed))}
	}
	s.Warnings = runWarnings(j, s)
	return s, nat
}

// stuck reports whether a chain of at least two draws never left its first
// draw.
func stuck(draws [][]float64) bool {
	if len(draws) < 2 {
		return false
	}
	for _, u := range draws[1:] {
		if !slices.Equal(u, draws[0]) {
			return false
		}
	}
	return true
}

func rateOrNaN(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// nanMedian is the median of the non-NaN values (NaN if none).
func nanMedian(x []float64) float64 {
	var v []float64
	for _, a := range x {
		if !math.IsNaN(a) {
			v = append(v, a)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// flagValues returns every flag's value (given or default), typed.
func flagValues(fs *flagSet) map[string]any {
	m := map[string]any{}
	fs.VisitAll(func(fl *flag.Flag) {
		if g, ok := fl.Value.(flag.Getter); ok {
			m[fl.Name] = g.Get()
		} else {
			m[fl.Name] = fl.Value.String()
		}
	})
	return m
}

// writeOutputs writes draws.csv, summary.json and (with plots) the
// figures into dir, and returns the paths written. Figures of an earlier
// run in dir that this run does not draw are removed, so that the folder
// never mixes runs.
func writeOutputs(dir string, j *job, res *tempering.Result, nat [][][]float64, sum *runSummary, plots bool) ([]string, error) {
	var written []string
	p := filepath.Join(dir, "draws.csv")
	if err := writeDrawsCSV(p, j.names, nat); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	var figs []string
	if plots {
		var err error
		figs, err = writePlots(dir, j, res, nat, sum)
		written = append(written, figs...)
		if err != nil {
			// The figures are extras: record the failure, keep going.
			sum.PlotError = err.Error()
		}
	}
	if err := removeStaleFigures(dir, figs); err != nil {
		return written, err
	}
	p = filepath.Join(dir, "summary.json")
	if err := writeJSONFile(p, sum); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	return written, nil
}

// blasThreads returns the OpenBLAS thread count for the openblas backend,
// 0 otherwise.
func blasThreads(backend string) int {
	if backend != "openblas" {
		return 0
	}
	return openblas.Threads()
}

// samplerNotes closes the help of the sampling commands.
const samplerNotes = `Exit codes: 0 success, 1 run-time failure, 2 bad flag or bad input, 130 interrupted
(Ctrl-C: the draws made so far are written and marked "interrupted": true; a second
Ctrl-C kills at once).`

// parseNoArgs parses the flags of a sampling command, which takes no
// positional arguments.
func parseNoArgs(fs *flagSet, args []string, io *stdio) error {
	pos, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (the data file goes in --data)", pos[0])
	}
	return nil
}
