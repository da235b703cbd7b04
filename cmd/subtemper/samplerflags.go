package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
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
	fs.str(&s.warmStart, "warm-start", "auto", fmt.Sprintf("start from the posterior mode: on finds it by L-BFGS on nested subsets of the data (256, 512, …, N observations), then, when one mode was found (and gp's --importance does not sample instead), the chains start around it and the kernel runs alone (--sampler none) with %d warm-up iterations and at most %d draws per chain (%d with HMC): independence Metropolis–Hastings from a Student-t fitted to the posterior by importance sampling where its importance ESS reaches %g%% (a local random-walk step after each proposal, every proposal screened first on a surrogate fitted to the same draws; below %g%% a wider t mixed in), otherwise HMC of fixed integration time with the Laplace covariance as metric; --sampler, --warmup, --draws or kernel flags override this; auto: on from N = %d (docs/LARGE.md); off: the chains start at θ*, θ*/2, 2θ*", tempering.WarmStartWarmup, subtemper.IndependenceDraws, subtemper.WarmKernelDraws, 100*subtemper.MinProposalESS, 100*subtemper.WideBelowESS, subtemper.WarmStartMinN))
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
