package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/fileio"
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
	sampler, inner, hot, swap, backend string
	out                                string
	adapt, ladder                      string
	maxMemory                          string
	warmStart, maxTime                 string
	hmcLength                          float64 // the warm kernel's integration time, once it is chosen
	finalOut                           string  // --out while out is its staging folder (see outdir.go)
	chains, warmup, draws, thin        int
	levels, leapfrog, baseSteps        int
	mhSteps                            int
	maxDepth                           int
	betaMin, stepSize, mhScale         float64
	targetAccept, stepJitter           float64
	minESS                             float64
	paper                              bool
	seed                               uint64
	plots, json, quiet, progress       bool

	fs  *flagSet
	pap samplerDefaults // the paper's settings for this command
}

// samplerDefaults are the settings that differ between commands: the
// paper's leapfrog steps L (5 for the GP, 10 for the MVN) and, for
// --paper, its warm-up and draws.
type samplerDefaults struct {
	warmup, draws, leapfrog int
}

// The defaults of the sampling commands (without --paper): those of
// subtemper.DefaultGPSettings, which are tempering's (tempering/defaults.go),
// named as the flags name them. They were chosen by measurement:
// docs/ADAPTATION.md gives the figures.
const (
	defaultSampler  = "pt"
	defaultInner    = "hmc"
	defaultHot      = "mh"
	defaultAdapt    = "diag"
	defaultLadder   = "adaptive"
	defaultSwap     = "deo"
	defaultWarmup   = tempering.DefaultWarmup
	defaultDraws    = subtemper.DefaultGPDraws
	defaultChains   = tempering.DefaultChains
	defaultLeapfrog = tempering.DefaultLeapfrog
	defaultJitter   = tempering.DefaultStepJitter
	defaultLevels   = tempering.DefaultLevels
	defaultMinESS   = subtemper.DefaultMinESS
	paperStepSize   = tempering.DefaultStepSize
	paperLevels     = tempering.BarrierStartLevels
)

func (s *samplerFlags) define(fs *flagSet, pap samplerDefaults) {
	s.fs, s.pap = fs, pap
	fs.group("Sampler")
	fs.boolean(&s.paper, "paper", false, fmt.Sprintf("the paper's exact settings: %s; flags given beside --paper override them", paperSummary(pap)))
	fs.str(&s.sampler, "sampler", defaultSampler, "driver: none (inner kernel alone), pt, tt, spt (subsampled PT) or stt (subsampled tempered transitions)")
	fs.str(&s.inner, "inner", defaultInner, "kernel of the target level (of every level with --hot same, and the only one with --sampler none): nuts (no-U-turn sampler), hmc (fixed L leapfrog steps) or mh (random-walk Metropolis)")
	fs.str(&s.hot, "hot", defaultHot, "kernel of the levels above the target (pt, spt, tt, stt): mh (adapted random-walk Metropolis, --mh-steps proposals per transition: no gradient, so tempering costs little more than the target level's --inner), hmc, nuts, or same (--inner at every level, the paper's)")
	fs.integer(&s.chains, "chains", defaultChains, "number of chains, run in parallel (started at θ*, θ*/2, 2θ*)")
	fs.countOr(&s.warmup, "warmup", defaultWarmup, "none", "no warm-up", "warm-up iterations `N` per chain, discarded; the step size, metric and ladder adapt during warm-up only; none: no warm-up (0 is refused: the library's zero means the default)")
	fs.integer(&s.draws, "draws", defaultDraws, "draws kept per chain after warm-up: the most, when --min-ess stops sampling earlier")
	fs.float(&s.minESS, "min-ess", defaultMinESS, fmt.Sprintf("stop sampling once every parameter's bulk- and tail-ESS reach `E` (and %d per chain) and its R-hat is below %.2f, checked every %d draws per chain (the run's draws are the first ones of the run that does not stop); 0: always make --draws draws. The verdict asks ESS ≥ %d per chain whatever E is, as diag does", diag.ESSPerChainMin, diag.RhatMax, tempering.DefaultStopEvery, diag.ESSPerChainMin))
	fs.integer(&s.thin, "thin", 1, "keep one iteration in `K` after warm-up")
	fs.str(&s.adapt, "adapt", defaultAdapt, "what warm-up tunes per level, as Stan does (dual averaging in Stan's windows): diag (step size and diagonal metric; mh: scale and proposal sd), dense (step size and dense metric; mh as diag), step (step size or scale only) or none (fixed --step-size or --mh-scale, the paper's)")
	fs.float(&s.targetAccept, "target-accept", tempering.DefaultTargetAccept, "acceptance rate the step-size adaptation aims at, in (0,1)")
	fs.float(&s.stepSize, "step-size", 0, fmt.Sprintf("hmc and nuts leapfrog step `ε`: the fixed step with --adapt none, the initial one otherwise; 0 means %g (the paper's)", tempering.DefaultStepSize))
	fs.integer(&s.leapfrog, "leapfrog", defaultLeapfrog, "hmc: leapfrog steps `L` per transition")
	fs.float(&s.stepJitter, "step-jitter", defaultJitter, "hmc: draw each transition's step uniformly in ε·(1 ± J), against trajectories that resonate with the posterior; in [0,1)")
	fs.integer(&s.maxDepth, "max-depth", tempering.DefaultMaxTreeDepth, "nuts: maximum tree depth (at most 2^D − 1 leapfrog steps per transition)")
	fs.str(&s.ladder, "ladder", defaultLadder, "adaptive: warm-up places the levels for equal swap rates (pt, spt; non-reversible PT's schedule optimisation) or equal variance of the tempered transitions' log-ratio terms (tt, stt), and chooses M unless --levels is given; fixed: the geometric ladder β_m = β*^{m/M}")
	fs.countOr(&s.levels, "levels", defaultLevels, "auto", "M chosen from the communication barrier", "number `M` of levels above the target (M+1 in all); auto: M chosen by the adaptive ladder from the communication barrier Λ (⌈2Λ⌉ for pt and spt; 6 with --ladder fixed) (0 is refused: the library's zero means the default)")
	fs.float(&s.betaMin, "beta-min", tempering.DefaultBetaMin, "smallest inverse temperature `β*`, in (0,1): the hottest level's β (pt, tt) or subset fraction (spt, stt)")
	fs.str(&s.swap, "swap", defaultSwap, "swap schedule of pt and spt: deo (non-reversible even/odd) or sweep (the paper's)")
	fs.countOr(&s.baseSteps, "base-steps", tempering.DefaultBaseSteps, "none", "Neal's form", "tt and stt: ordinary transitions `B` at the target level after each tempered transition (1: the paper's Algorithm 2 count, one full-data transition more per iteration, which an adapted kernel needs: docs/ADAPTATION.md; none: Neal's form, the target moves only through accepted tempered transitions) (0 is refused: the library's zero means the default)")
	fs.float(&s.mhScale, "mh-scale", tempering.DefaultMHScale, "MH proposal scale `σ` at β = 1 (σ_m = σ·β_m^{-1/2}): fixed with --adapt none, the initial one otherwise (diag and dense also adapt a proposal sd per coordinate: mh's covariance is diagonal)")
	fs.integer(&s.mhSteps, "mh-steps", 1, "mh: proposals per transition (each one log-density evaluation without gradient)")
	fs.str(&s.warmStart, "warm-start", "auto", fmt.Sprintf("start from the posterior mode: on finds it by L-BFGS on nested subsets of the data (256, 512, …, N observations), then the chains start around it with the Laplace covariance as metric, HMC of fixed integration time adapting its step size over %d warm-up iterations, and the kernel alone (--sampler none) when one mode was found, unless --sampler, --warmup or kernel flags say otherwise; auto: on from N = %d (docs/LARGE.md); off: the chains start at θ*, θ*/2, 2θ*", tempering.WarmStartWarmup, subtemper.WarmStartMinN))
	fs.str(&s.maxTime, "max-time", "", "stop sampling after this wall-clock `duration` (90s, 45m, 2h), keep the draws made and judge them; \"\" or 0: no limit")
	fs.uint64(&s.seed, "seed", subtemper.DefaultSeed, "seed of all the sampler's randomness")
	fs.str(&s.backend, "backend", linalg.FastestName(), backendHelp())

	fs.group("Output")
	fs.str(&s.out, "out", "", "directory for draws.csv, draws.nc, summary.json (and data.csv, figures); \"\" writes no files")
	fs.boolean(&s.plots, "plots", false, plotsHelp())
	fs.boolean(&s.json, "json", false, "print summary.json's content on stdout instead of the tables")
	fs.boolean(&s.quiet, "quiet", false, "no progress bar or other messages on stderr (errors still go there)")
	fs.boolean(&s.progress, "progress", false, "draw the progress bar even when stderr is not a terminal")
	fs.str(&s.maxMemory, "max-memory", "", maxMemoryHelp)
}

// paperSummary describes the settings --paper selects.
func paperSummary(p samplerDefaults) string {
	return fmt.Sprintf("stt with hmc, ε = %g fixed, L = %d, no adaptation, the fixed geometric ladder M = %d, β* = 1/8, sweep swaps, no base steps, %d warm-up iterations and %d draws (no --min-ess stop)",
		paperStepSize, p.leapfrog, paperLevels, p.warmup, p.draws)
}

// applyPaper gives the flags not given on the command line the paper's
// values (--paper).
func (s *samplerFlags) applyPaper() {
	set := func(name string, f func()) {
		if !s.fs.isSet(name) {
			f()
		}
	}
	set("sampler", func() { s.sampler = "stt" })
	set("inner", func() { s.inner = "hmc" })
	set("hot", func() { s.hot = "same" })
	set("adapt", func() { s.adapt = "none" })
	set("step-size", func() { s.stepSize = paperStepSize })
	set("leapfrog", func() { s.leapfrog = s.pap.leapfrog })
	set("step-jitter", func() { s.stepJitter = 0 })
	set("ladder", func() { s.ladder = "fixed" })
	set("levels", func() { s.levels = paperLevels })
	set("swap", func() { s.swap = "sweep" })
	set("base-steps", func() { s.baseSteps = 0 })
	set("warmup", func() { s.warmup = s.pap.warmup })
	set("draws", func() { s.draws = s.pap.draws })
	set("min-ess", func() { s.minESS = 0 })
}

// effectiveLevels returns M as the run will start it: --levels, or 6 for
// auto (the adaptive ladder's first, geometric, ladder and the fixed
// default).
func (s *samplerFlags) effectiveLevels() int {
	if s.levels > 0 {
		return s.levels
	}
	return paperLevels
}

// maxLevels returns the most levels the run can have: --levels, or the
// adaptive ladder's cap when it chooses M.
func (s *samplerFlags) maxLevels() int {
	if s.levels == 0 && strings.EqualFold(s.ladder, "adaptive") {
		return tempering.DefaultMaxLevels
	}
	return s.effectiveLevels()
}

// check validates the sampler flags and returns the settings and backend.
func (s *samplerFlags) check() (*tempering.Settings, linalg.Backend, error) {
	if s.paper {
		s.applyPaper()
	}
	drv, err := tempering.ParseDriver(s.sampler)
	if err != nil {
		return nil, nil, usagef("--sampler %q: want none, pt, tt, spt or stt", s.sampler)
	}
	sw, err := tempering.ParseSwapSchedule(s.swap)
	if err != nil {
		return nil, nil, usagef("--swap %q: want deo or sweep", s.swap)
	}
	adapt, err := tempering.ParseAdaptation(s.adapt)
	if err != nil {
		return nil, nil, usagef("--adapt %q: want diag, dense, step or none", s.adapt)
	}
	var lad tempering.LadderMode
	switch strings.ToLower(s.ladder) {
	case "adaptive":
		lad = tempering.LadderAdaptive
	case "fixed":
		lad = tempering.LadderFixed
	default:
		return nil, nil, usagef("--ladder %q: want adaptive or fixed", s.ladder)
	}
	if err := s.checkNumbers(); err != nil {
		return nil, nil, err
	}
	k, err := s.kernel("inner", s.inner, adapt)
	if err != nil {
		return nil, nil, err
	}
	if h := strings.ToLower(s.hot); h != "same" && drv != tempering.None {
		hk, err := s.kernel("hot", h, adapt)
		if err != nil {
			return nil, nil, err
		}
		k = tempering.PerLevel{Target: k, Hot: hk}
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
	// The flags hold --levels auto, --warmup none and --base-steps none
	// as 0 (countOrWord); the library spells them with its sentinels, its
	// zero meaning the default.
	levels, warmup := s.levels, s.warmup
	if levels == 0 {
		levels = tempering.LevelsFromBarrier
	}
	if warmup == 0 {
		warmup = tempering.NoWarmup
	}
	base := s.baseSteps
	if base == 0 {
		base = tempering.NoBaseSteps
	}
	st := &tempering.Settings{
		Sampler: tempering.Sampler{Driver: drv, Kernel: k, Levels: levels, BetaMin: s.betaMin, Swap: sw, Ladder: lad, BaseSteps: base},
		Control: tempering.Control{Chains: s.chains, Warmup: warmup, Draws: s.draws, Thin: s.thin, Seed: s.seed, RecordTimes: true},
	}
	if s.minESS > 0 {
		// Judged on the command's natural units: FitGP gives the rule
		// the GP's θ in the data's units; the MVN's θ is its own.
		st.Stop = diag.StopRule{MinESS: s.minESS}
	}
	return st, be, nil
}

// checkNumbers checks the sampler flags' counts and rates.
func (s *samplerFlags) checkNumbers() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"chains", s.chains}, {"draws", s.draws}, {"thin", s.thin}, {"leapfrog", s.leapfrog}, {"max-depth", s.maxDepth}} {
		if err := checkPositiveInt(c.name, c.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"warmup", s.warmup}, {"base-steps", s.baseSteps}, {"levels", s.levels}} {
		if err := checkNonNegInt(c.name, c.v); err != nil {
			return err
		}
	}
	if s.maxDepth > 30 {
		return usagef("--max-depth must be at most 30, got %d", s.maxDepth)
	}
	if s.draws > (math.MaxInt-s.warmup)/s.thin {
		return usagef("--warmup %d + --draws %d × --thin %d iterations per chain is out of range", s.warmup, s.draws, s.thin)
	}
	if !(s.betaMin > 0 && s.betaMin < 1) {
		return usagef("--beta-min must lie in (0,1), got %v", s.betaMin)
	}
	if s.stepSize != 0 {
		if err := checkPositive("step-size", s.stepSize); err != nil {
			return err
		}
	}
	if !(s.targetAccept > 0 && s.targetAccept < 1) {
		return usagef("--target-accept must lie in (0,1), got %v", s.targetAccept)
	}
	if !(s.stepJitter >= 0 && s.stepJitter < 1) {
		return usagef("--step-jitter must lie in [0,1), got %v", s.stepJitter)
	}
	if !(s.minESS >= 0) || math.IsInf(s.minESS, 0) {
		return usagef("--min-ess must be ≥ 0 and finite, got %v", s.minESS)
	}
	if err := checkPositive("mh-scale", s.mhScale); err != nil {
		return err
	}
	if err := checkPositiveInt("mh-steps", s.mhSteps); err != nil {
		return err
	}
	return nil
}

// kernel returns the inner kernel the flags name (--inner or --hot).
func (s *samplerFlags) kernel(flag, name string, adapt tempering.Adaptation) (tempering.Kernel, error) {
	switch strings.ToLower(name) {
	case "nuts":
		return tempering.NUTS{StepSize: s.stepSize, MaxTreeDepth: s.maxDepth, Adapt: adapt, TargetAccept: s.targetAccept}, nil
	case "hmc":
		return tempering.HMC{StepSize: s.stepSize, Steps: s.leapfrog, Adapt: adapt, TargetAccept: s.targetAccept, Jitter: s.stepJitter}, nil
	case "mh":
		if adapt == tempering.AdaptDense {
			adapt = tempering.AdaptDiag // MH adapts a diagonal proposal covariance only
		}
		return tempering.MH{Sigma: s.mhScale, Steps: s.mhSteps, Adapt: adapt}, nil
	}
	if flag == "hot" {
		return nil, usagef("--hot %q: want mh, hmc, nuts or same", name)
	}
	return nil, usagef("--inner %q: want nuts, hmc or mh", name)
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
	nObs     int // the number of observations N
	backend  string
	names    []string               // natural-unit variable names
	natural  func(dst, u []float64) // sampling space → natural units
	// priorU, if set, is the prior density of variable v at x on the
	// figures' scale (x = log θ for gp, θ in the units reported; θ for
	// mvn), for the density figure; ok is false where it has none.
	priorU   func(v int, u float64) (d float64, ok bool)
	units    string                  // how natural units relate to the sampling space
	data     map[string]any          // description of the data for summary.json
	dataLine string                  // the same, one line for humans
	extra    func(*runSummary) error // adds command-specific content
	// done, if set, runs after the outputs are written, with the result
	// (the gp command saves the fit and predicts). When ctx is cancelled
	// while it runs and it fails, the run is kept as interrupted during
	// donePhase, with the warning doneCut (what was left out, how to make
	// it).
	done      func(res *tempering.Result) error
	doneShown string // the phase of done, for the progress display ("" shows none)
	donePhase string
	doneCut   string
	notes     []string // printed once the files are in place
	// startHint, if not empty, follows the error of a run that cannot
	// start: a likely cause and its fix.
	startHint string
	diag      *diagCutter // bounds the summary's time after a Ctrl-C (cancel.go)
	// warm describes the warm start, if the run made one; warmKernel
	// reports that it runs tempering.WarmKernel.
	warm       *warmInfo
	warmKernel bool
	// fit is the gp command's fit (subtemper.FitGP's), once made; the
	// summary is its Report.
	fit *subtemper.GPFit
	// ckpt is the gp command's checkpoints (nil: none).
	ckpt *ckptFlags
}

// beforeWrite, when set (by tests), runs just before finishJob writes the
// files.
var beforeWrite func()

// sampled is a finished sampling run, before its summary.
type sampled struct {
	res           *tempering.Result
	wall, procCPU time.Duration
	timedOut      bool // --max-time ended sampling
	pr            *progress
}

// announceWarmStart says that the search for the mode begins.
func announceWarmStart(io *stdio, j *job, n int) {
	if !j.flags.quiet {
		fmt.Fprintf(io.err, "subtemper %s: warm start: looking for the posterior mode (N = %d; --warm-start off skips it)\n", j.command, n)
	}
}

// errMaxTimeMode and errMaxTimeSetup are the errors of a --max-time that
// ran out before any draw.
func errMaxTimeMode(f *samplerFlags) error {
	return fmt.Errorf("--max-time %s ran out while looking for the posterior mode, before any draw: give more time", f.maxTime)
}

func errMaxTimeSetup(f *samplerFlags) error {
	return fmt.Errorf("--max-time %s ran out while the chains were set up, before any draw: give more time", f.maxTime)
}

// reportMaxTime says that --max-time ended sampling.
func reportMaxTime(io *stdio, j *job, res *tempering.Result) {
	if !j.flags.quiet {
		fmt.Fprintf(io.err, "subtemper %s: --max-time %s reached: sampling stopped with %s per chain; judging and keeping them\n",
			j.command, j.flags.maxTime, plural.Count(minDraws(res), "draw", "draws"))
	}
}

// samplingFailed is the error of a run whose sampler failed (the fit
// says why a chain cannot start, if one cannot), with the job's hint.
func samplingFailed(j *job, err error) error {
	if se := (*subtemper.StartError)(nil); errors.As(err, &se) && se.Prior {
		err = fmt.Errorf("%w (check --prior-sd and the data's scale)", err)
	}
	if j.startHint != "" {
		return fmt.Errorf("sampling failed: %w; %s", err, j.startHint)
	}
	return fmt.Errorf("sampling failed: %w", err)
}

// raiseProcs raises GOMAXPROCS to the number of chains, if below, and
// returns the function that restores it.
//
// Each chain runs locked to its own OS thread (tempering.Run, for its
// CPU clock). With fewer Go processors than chains, a chain back from
// a BLAS call waits until a processor is handed to its thread: 3
// chains on 2 cores kept only 1.5 of them busy (diabetes, 73.5 s wall
// against 59.0 s with a processor per chain). The draws do not depend
// on GOMAXPROCS.
func raiseProcs(chains int) func() {
	if runtime.GOMAXPROCS(0) < chains {
		old := runtime.GOMAXPROCS(chains)
		return func() { runtime.GOMAXPROCS(old) }
	}
	return func() {}
}

// announceSampling prints what the warm start found (ws, if any) and the
// run's start line, and starts the progress bar (nil without one),
// wiring it into j.settings.
func announceSampling(io *stdio, j *job, ws *tempering.WarmStart) *progress {
	f, st := j.flags, j.settings
	chatty := !f.quiet
	stop := ""
	if f.minESS > 0 {
		stop = fmt.Sprintf(", stopping early once every ESS ≥ %.0f", max(f.minESS, diag.ESSPerChainMin*float64(st.Chains)))
	}
	expected := f.warmup + expectedDraws(st, f.minESS, drawESS(st, ws))*st.Thin
	if ws != nil && chatty {
		printWarmStart(io.err, j, ws, expected-f.warmup)
	}
	perChain := f.warmup + st.Draws*st.Thin
	if chatty {
		fmt.Fprintf(io.err, "subtemper %s: sampling %s × (%d warm-up + %d×%d) %s with %s + %s on %s%s; Ctrl-C stops and keeps the draws so far\n",
			j.command, plural.Count(st.Chains, "chain", "chains"), f.warmup, st.Draws, st.Thin, plural.Word(perChain, "iteration", "iterations"),
			strings.ToUpper(f.sampler), kernelNames(f), j.backend, stop)
	}
	if w := ladderWarning(f, j.nObs); w != "" && chatty {
		fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, w)
	}
	if !chatty || !(io.errIsTerminal || f.progress) {
		return nil
	}
	pr := startProgress(io.err, st.Chains, f.warmup, expected, perChain, f.progress)
	st.Progress = pr.callback
	if rule, ok := st.Stop.(diag.StopRule); ok {
		// The bar's ETA follows the rule's checks: where the ESS
		// seen so far says the run will end.
		need := max(rule.MinESS, diag.ESSPerChainMin*float64(st.Chains))
		every := cmp.Or(st.StopEvery, tempering.DefaultStopEvery)
		rule.Observe = func(n int, least float64) { pr.foresee(n, least, need, every, max(1, st.Thin)) }
		st.Stop = rule
	}
	return pr
}

// finishJob summarises a sampled run, runs the command's own phase (j.done),
// writes the files and prints the summary. It returns errInterrupted
// (after writing everything) if ctx was cancelled.
func finishJob(ctx context.Context, io *stdio, j *job, sr sampled) error {
	f, res, pr := j.flags, sr.res, sr.pr
	chatty := !f.quiet
	wall, procCPU, timedOut := sr.wall, sr.procCPU, sr.timedOut
	if res.Interrupted && chatty {
		fmt.Fprintf(io.err, "subtemper %s: interrupted after %s: writing the draws made so far\n", j.command, wall.Round(time.Millisecond))
	}

	j.diag = newDiagCutter(ctx)
	sum, nat := summarize(j, res, wall, procCPU)
	sum.WarmStart = j.warm
	if timedOut {
		sum.StoppedByMaxTime = true
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("--max-time %s stopped sampling before --draws or the --min-ess rule did", f.maxTime))
	}
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
	derr := runDone(ctx, io, j, res, sum, pr)
	if beforeWrite != nil {
		beforeWrite()
	}
	// The summary goes to stdout even when writing the files fails, so
	// that a full disk does not lose the whole run.
	written, werr := writeFiles(ctx, io, j, res, nat, sum, pr)
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
	if chatty && werr == nil {
		for _, n := range j.notes {
			fmt.Fprintf(io.err, "subtemper %s: %s\n", j.command, n)
		}
	}
	if werr != nil || derr != nil {
		return errors.Join(werr, derr)
	}
	if sum.InterruptedDuring == figuresPhase {
		return fmt.Errorf("%w while the figures were drawn: every other file is written whole, not every figure (summary.json's warnings name those drawn)", errInterrupted)
	}
	if res.Interrupted {
		return errInterrupted
	}
	if ctx.Err() != nil {
		// Ctrl-C after the sampling and the command's own phase, while
		// the files were written: they were written whole (the run is
		// complete, summary.json says so), and the exit code is that
		// of any interruption.
		return fmt.Errorf("%w while the files were written: the run is complete, every file written", errInterrupted)
	}
	return nil
}

// runDone runs the command's own phase (j.done: a GP's saved fit and
// predictions) after a run that was not interrupted. Its outputs go into
// the staging folder with the rest, so that they are put in place
// together. A Ctrl-C during it keeps the run, marked as interrupted
// during j.donePhase, with what was left out (j.doneCut).
func runDone(ctx context.Context, io *stdio, j *job, res *tempering.Result, sum *runSummary, pr *progress) error {
	if j.done == nil || res.Interrupted {
		return nil
	}
	if pr != nil && j.doneShown != "" {
		fmt.Fprintf(io.err, "subtemper %s: %s…\n", j.command, j.doneShown)
	}
	err := j.done(res)
	if err != nil && ctx.Err() != nil {
		// The draws are complete and are kept, marked as interrupted,
		// with what was left out (doneCut, or what the error says when
		// the phase's outputs are written but not its figures); the exit
		// code is that of any interruption.
		cut := j.doneCut
		var fc *figuresCut
		if errors.As(err, &fc) {
			cut = fc.Error()
		}
		sum.Interrupted, res.Interrupted = true, true
		sum.InterruptedDuring = j.donePhase
		sum.Warnings = append(sum.Warnings, cut)
		return nil
	}
	return err
}

// writeFiles writes the run's files into the staging folder of --out
// (if given) and puts it in place, returning the paths written.
func writeFiles(ctx context.Context, io *stdio, j *job, res *tempering.Result, nat [][][]float64, sum *runSummary, pr *progress) ([]string, error) {
	f := j.flags
	if f.out == "" {
		return nil, nil
	}
	if pr != nil {
		fmt.Fprintf(io.err, "subtemper %s: writing the files to %s…\n", j.command, f.finalOut)
	}
	written, err := writeOutputs(ctx, f.out, j, res, nat, sum, f.plots)
	if err != nil {
		return written, errors.New(strings.ReplaceAll(err.Error(), f.out, f.finalOut))
	}
	written, kept, err := commitOut(f, written, sum.Draws.Summarized == 0 && res.Interrupted)
	if kept && !f.quiet {
		fmt.Fprintf(io.err, "subtemper %s: interrupted before any draw was kept: %s keeps its earlier result; nothing written\n", j.command, f.finalOut)
	}
	return written, err
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

// kernelNames names the kernels for the start message: "HMC", or
// "HMC (MH above the target)".
func kernelNames(f *samplerFlags) string {
	k := strings.ToUpper(f.inner)
	if h := hotSummary(f); h != "" && h != strings.ToLower(f.inner) {
		k += " (" + strings.ToUpper(h) + " above the target)"
	}
	return k
}

// hotSummary names the kernel of the levels above the target, "" without
// tempering.
func hotSummary(f *samplerFlags) string {
	switch h := strings.ToLower(f.hot); {
	case strings.EqualFold(f.sampler, "none"):
		return ""
	case h == "same":
		return strings.ToLower(f.inner)
	default:
		return h
	}
}

// summarize builds the run summary: the library's Report (GPFit.Report
// for the gp command's fit, NewReport otherwise) with the command's
// flags, units, data description and warnings. It returns the draws in
// natural units too, [chain][draw][var].
func summarize(j *job, res *tempering.Result, wall, procCPU time.Duration) (*runSummary, [][][]float64) {
	opt := subtemper.ReportOptions{Summarize: j.diag.summarizeChains}
	var s *runSummary
	if j.fit != nil && j.fit.Result == res {
		s, _ = j.fit.Report(opt) // no error: the fit holds res
	} else {
		s = subtemper.NewReport(subtemper.SampledRun{Result: res, Settings: *j.settings, Names: j.names, Natural: j.natural,
			Backend: j.backend, Wall: wall, ProcessCPU: procCPU}, opt)
	}
	s.Command = j.command
	s.Settings = flagValues(j.fs)
	if j.warm != nil {
		s.WarmStart = j.warm // with the CLI's time estimate
	}
	if j.units != "" {
		s.Units = j.units
	}
	maps.Copy(s.Data, j.data)
	j.data = s.Data
	s.Warnings = runWarnings(j, s)
	return s, naturalDraws(j, res)
}

// flagValues returns every flag's value (given or default), typed.
func flagValues(fs *flagSet) map[string]any {
	m := map[string]any{}
	fs.VisitAll(func(fl *flag.Flag) {
		if runOnly[fl.Name] && !fs.isSet(fl.Name) {
			return
		}
		if g, ok := fl.Value.(flag.Getter); ok {
			m[fl.Name] = g.Get()
		} else {
			m[fl.Name] = fl.Value.String()
		}
	})
	return m
}

// writeOutputs writes draws.csv, draws.nc, summary.json and (with plots) the
// figures into dir, and returns the paths written. Figures of an earlier
// run in dir that this run does not draw are removed, so that the folder
// never mixes runs. A cancellation of ctx stops the figures at once (the
// run is then marked as interrupted, with the figures drawn before it);
// the other files are written whole.
func writeOutputs(ctx context.Context, dir string, j *job, res *tempering.Result, nat [][][]float64, sum *runSummary, plots bool) ([]string, error) {
	var written []string
	// The gp command's draws are its fit's (GPFit.WriteDrawsCSV and
	// WriteDrawsNetCDF); mvn's the library's writers' on its draws.
	writeCSV := func(w *bufio.Writer) error { return subtemper.WriteDrawsCSV(w, j.names, nat) }
	writeNC := func(w *bufio.Writer) error {
		return subtemper.WriteDrawsNetCDF(w, "subtemper "+j.command, j.names, nat)
	}
	if fit := j.fit; fit != nil && fit.Result == res {
		writeCSV = func(w *bufio.Writer) error { return fit.WriteDrawsCSV(w) }
		writeNC = func(w *bufio.Writer) error { return fit.WriteDrawsNetCDF(w) }
	}
	p := filepath.Join(dir, "draws.csv")
	if err := fileio.Write(p, writeCSV); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	p = filepath.Join(dir, "draws.nc")
	if err := fileio.Write(p, writeNC); err != nil {
		return written, fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, p)
	var figs []string
	if plots {
		var err error
		figs, err = writePlots(ctx, dir, j, res, nat, sum)
		written = append(written, figs...)
		switch {
		case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
			figuresInterrupted(sum, res, figs)
		case err != nil:
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

// samplerNotes closes the help of the sampling commands.
const samplerNotes = `Exit codes: 0 success, 1 run-time failure, 2 bad flag or bad input, 130 interrupted
(Ctrl-C: the draws made so far are written and marked "interrupted": true, with the
--plots figures drawn before it only; a second Ctrl-C kills at once).`

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

// saveSynthetic writes a command's synthetic data with write to data.csv
// in the folder out, unless out is "", records the file in desc, and
// returns what the data's line says of it ("; written to PATH", or "").
func saveSynthetic(out string, desc map[string]any, write func(path string) error) (string, error) {
	if out == "" {
		return "", nil
	}
	p := filepath.Join(out, "data.csv")
	if err := write(p); err != nil {
		return "", err
	}
	desc["file"] = p
	return "; written to " + p, nil
}

// parseFlags makes a sampling command's flags and their flag set with
// newFlagSet and parses args into them with parseNoArgs.
func parseFlags[F any](newFlagSet func(*F) *flagSet, args []string, io *stdio) (*F, *flagSet, error) {
	f := new(F)
	fs := newFlagSet(f)
	if err := parseNoArgs(fs, args, io); err != nil {
		return nil, nil, err
	}
	return f, fs, nil
}
