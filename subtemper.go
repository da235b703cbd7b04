// Package subtemper is the front door of the library: from a dataset and
// options to a fitted Gaussian process whose hyperparameters are sampled
// with tempering by subsampling, and from the fit to predictions at new
// inputs averaged over the hyperparameter posterior.
//
//	data, err := gp.ReadCSVFile("train.csv", gp.CSVOptions{})
//	fit, err := subtemper.FitGP(ctx, data, subtemper.GPOptions{Standardize: true})
//	defer fit.Close()
//	v, err := fit.Verdict()  // v.Converged: every R-hat < 1.01, every ESS ≥ 100 per chain
//	sum, err := fit.Summary() // R-hat, ESS, quantiles per hyperparameter
//	pred, err := fit.Predict(ctx, xNew, nNew, subtemper.PredictOptions{})
//	// pred.YMean, pred.YSD, pred.YQ (5%, 50%, 95%), and the same for the latent f.
//	err = fit.Save("fit") // LoadGPFit("fit", "") rebuilds it exactly
//	rep, err := fit.Report(subtemper.ReportOptions{}) // the CLI's summary.json
//	err = fit.WriteDrawsCSV(w)                        // its draws.csv (and WriteDrawsNetCDF)
//
// (each err to be checked; the Example functions are complete programs).
// Built with -tags openblas (cgo, libopenblas-dev and liblapacke-dev),
// the openblas backend is compiled in and chosen by default; FitGP and
// Predict then set OpenBLAS's threads as the CLI does.
//
// How the pieces fit (the dependency arrows point one way):
//
//	subtemper (this package)  FitGP, GPFit, Report, Save/LoadGPFit, ReadTestCSV
//	  → targets    tempering.Target adapters of gp.Model and mvn.Model
//	  → tempering  the samplers: MH and HMC kernels; None, PT, TT, SPT, STT drivers; Run
//	  → gp, mvn    the models: likelihood and gradient on any subset, priors, data, predictions
//	  → diag       R-hat, ESS, summaries
//	  → linalg     the backends (gonum always; openblas, cuda with build tags)
//
// Besides FitGP: FitMVN samples the paper's other model, the mean of a
// multivariate normal of known covariance (its MVNFit holds the exact
// posterior beside the draws); EvalGP evaluates the GP's log density at
// one θ; SyntheticGPData and SyntheticMVNData draw the paper's synthetic
// data, WriteGPData and WriteMVNData write them, ReadGPData, ReadMVNData
// and ReadMVNSigma read data. The types these pass (GPData, GPPrior,
// GPKernel, MVNData, Settings, Result, WarmStart) are named here too, so
// that a program going through them, as the CLI does, needs no other
// package of the module.
//
// For choosing between models, a fit run with tempering.Settings.Evidence
// (PT or SPT) gives the log evidence (GPFit.LogEvidence) and any fit
// gives PSIS-LOO (GPFit.LOO); docs/MODELCHOICE.md has their validation.
//
// To sample a model of your own, implement tempering.Target (model.Target)
// and call tempering.Run; the built-in models, gp.Model and mvn.Model, are
// Targets themselves and run with any sampler. FitGP is that, with the defaults the CLI
// uses, the standardisation of the data and the bookkeeping that
// predictions and saved fits need.
package subtemper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/openblas"
	"github.com/subtemper/subtemper/tempering"
)

// MaxPredictDraws is the number of draws Predict uses by default when a
// fit of fewer than WarmStartMinN observations holds more (and LOO at any
// size): evenly spaced over the pooled chains. The cost of predicting
// grows linearly with the draws used (one kernel factorisation and the
// triangular solves of the test inputs' kernel vectors with its factor
// each).
const MaxPredictDraws = 4000

// LargePredictDraws is the number of draws Predict uses by default when a
// fit of WarmStartMinN observations or more holds more. There a draw's
// prediction costs more than the log density the fit evaluated at it (a
// factorisation, then the test inputs' solves with the factor),
// and an importance-sampled fit evaluates only a few thousand: from 1 000
// draws the predictions at 1 024 test points cost more CPU time than the
// fit itself at N = 4096 (when the factor was also inverted, a third of
// the time more). From 250 draws (docs/LARGE.md, GP generator
// and diamonds, D = 8 and 6) they cost 3.7–3.8 times less, the mean log
// predictive density moved by +0.00005, +0.00009 and −0.00023 nats
// (N = 2048, 2048, 4096) and no predictive quantile by more than 2.5% of
// the predictive sd; 1 000 draws had moved them by 0.00002 nats from
// 4 000 at N = 2048.
const LargePredictDraws = 250

// DefaultPredictDraws returns the number of draws Predict and PooledDraws
// use when asked for 0: MaxPredictDraws, or LargePredictDraws for a fit of
// at least WarmStartMinN observations (at most the draws the fit holds).
func (f *GPFit) DefaultPredictDraws() int {
	if f.Data != nil && f.Data.N >= WarmStartMinN {
		return LargePredictDraws
	}
	return MaxPredictDraws
}

// DefaultGPSettings returns the sampler settings FitGP uses when
// GPOptions.Settings is nil, those of the CLI's gp command: PT with
// tempering.DefaultKernel (HMC with L = 10 leapfrog steps, step jittered
// by ±20%, at the target level, random-walk MH above it), whose step size
// or scale and diagonal metric adapt per level during warm-up, on 10 levels above the
// target that warm-up places for equal swap rates
// (tempering.LadderAdaptive), with DEO swaps; 3 chains of 400 warm-up
// iterations and at most 2000 draws (DefaultGPDraws), sampling stopped
// early once every parameter's bulk- and tail-ESS reach 400 and its R̂ is
// below 1.01 (diag.StopRule on θ = exp(u), checked every 50 draws per
// chain); seed 1 (DefaultSeed). Every other value is tempering's default
// (tempering/defaults.go): the fields given are written out, the zero
// ones take it in tempering.Run. docs/ADAPTATION.md gives the
// measurements behind the choice.
func DefaultGPSettings() tempering.Settings {
	return tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.PT, Kernel: tempering.DefaultKernel(), Swap: tempering.DEO, Levels: tempering.DefaultLevels, Ladder: tempering.LadderAdaptive},
		Control: tempering.Control{
			Chains: tempering.DefaultChains, Warmup: tempering.DefaultWarmup, Draws: DefaultGPDraws, Seed: DefaultSeed,
			Stop: diag.StopRule{MinESS: DefaultMinESS, Transform: diag.ExpTransform},
		},
	}
}

// DefaultGPDraws is the most draws per chain of DefaultGPSettings (and
// the CLI's --draws default): the stop rule usually ends sampling
// before.
const DefaultGPDraws = 2000

// DefaultSeed is the seed of DefaultGPSettings (and the CLI's --seed
// default).
const DefaultSeed = 1

// DefaultMinESS is the bulk- and tail-ESS at which DefaultGPSettings'
// rule stops sampling (and the CLI's --min-ess default).
const DefaultMinESS = 400

// GPOptions configures FitGP. The zero value is valid.
type GPOptions struct {
	// Backend names the linear-algebra backend; "" means the fastest
	// compiled in (linalg.FastestName).
	Backend string
	// Standardize centres and scales the inputs and the target to unit
	// standard deviation before sampling; draws stay in those units, and
	// summaries and predictions are reported in the data's units.
	Standardize bool
	// Prior is the prior on θ (zero value: the paper's).
	Prior gp.Prior
	// Jitter is added to the kernel's diagonal on top of σn² (≥ 0).
	Jitter float64
	// Kernel is the covariance family (zero value: gp.SE).
	Kernel gp.Kernel
	// Settings are the sampler's settings; nil means DefaultGPSettings().
	// A diag.StopRule in Settings.Stop without a Transform judges θ =
	// exp(u) in the data's units, the variables Summary reports.
	Settings *tempering.Settings
	// WarmStart says whether the chains start from the posterior mode
	// (tempering.FindMode: L-BFGS on nested subsets of the data, the
	// Laplace approximation at the mode). The zero value, WarmStartAuto,
	// starts there when N ≥ WarmStartMinN and Settings is nil.
	WarmStart WarmStartMode
	// MAP asks for the posterior mode only: no sampling; the fit holds
	// one draw, the mode, in one chain (its predictions are the GP's at
	// θ_MAP) and its Mode field the warm start.
	MAP bool
	// WarmKeep says what of Settings a warm start on one mode leaves as
	// given; nil keeps the kernel, driver and warm-up exactly when
	// Settings is set (WarmSettings' keepKernel).
	WarmKeep *WarmKeep
	// Warm, if set, is the warm start to start from instead of searching
	// for the mode: one that an earlier FitGP with the same data, prior,
	// options and seed found (GPFit.Mode), kept by MarshalWarmStart, as a
	// resumed run's. It is used when the warm start is on (WarmStart);
	// its dimension must be the model's.
	Warm *tempering.WarmStart
	// MaxTime, if positive, bounds the search for the mode and the
	// sampling: when it runs out sampling stops, and the draws made are
	// the fit's (GPFit.StoppedByMaxTime).
	MaxTime time.Duration
	// OnPhase, if set, is called as FitGP enters each phase before
	// sampling: "standardisation", "the model's set-up", "the search
	// for the posterior mode", "the chains' set-up" (tempering.Run's
	// set-up, then sampling: Settings.OnStart says when each chain is
	// set up, Settings.Progress reports its iterations).
	OnPhase func(phase string)
	// BeforeSampling, if set, is called once the settings are final
	// (after any warm start: fit.Mode is set, fit.Model works), just
	// before sampling; it may change *st, e.g. set st.Progress or the
	// stop rule's Observe. A caller reports the run's start from it.
	// For an importance-sampled fit fit.Weighted is set (and empty) and
	// *st is the record of the settings the fit keeps.
	BeforeSampling func(fit *GPFit, st *tempering.Settings)
	// Importance says whether the fit is sampled by importance sampling
	// from the warm start's fitted proposal instead of by chains; the
	// zero value, ImportanceAuto, does where the defaults run from a
	// warm start on one mode. It stops once every hyperparameter's ESS
	// (of its mean and of its 5% and 95% tails) reaches the stop rule's
	// MinESS (DefaultMinESS unless Settings.Stop is a diag.StopRule that
	// says) with the weights' Pareto k̂ at most diag.ParetoKMax, or after
	// ImportanceMaxDraws draws.
	Importance ImportanceMode
	// OnBatch, if set, is called after each batch of an
	// importance-sampled fit.
	OnBatch func(ImportanceProgress)
	// OnWarm, if set, is called after each step of the warm start: each
	// stage of the search for the mode, the Laplace approximation, each
	// round of the proposal's fit (which at large N take minutes each).
	OnWarm func(WarmProgress)
}

// WarmProgress is the warm start's state after one of its steps
// (GPOptions.OnWarm): tempering.WarmProgress.
type WarmProgress = tempering.WarmProgress

// The steps a WarmProgress reports: a stage of the search for the mode on
// a subset, the Laplace approximation at the mode, a round of the
// proposal's fit.
const (
	WarmStage   = tempering.WarmStage
	WarmLaplace = tempering.WarmLaplace
	WarmRound   = tempering.WarmRound
)

// WarmKeep is GPOptions.WarmKeep: each field true keeps that part of
// GPOptions.Settings on a warm start, false lets the warm start choose
// (WarmSettings: the kernel, the fitted independence sampler or
// tempering.WarmKernel; the driver None; the warm-up
// tempering.WarmStartWarmup; the independence sampler's
// IndependenceDraws). Keeping the kernel skips the proposal's fit.
type WarmKeep struct {
	Kernel, Driver, Warmup, Draws bool
}

// Settings returns WarmSettings(st, ws, k.Kernel) with the driver, the
// warm-up and the draws that k keeps taken from st.
func (k WarmKeep) Settings(st tempering.Settings, ws *tempering.WarmStart) tempering.Settings {
	ns := WarmSettings(st, ws, k.Kernel)
	if k.Driver {
		ns.Driver = st.Driver
	}
	if k.Warmup {
		ns.Warmup = st.Warmup
	}
	if k.Draws {
		ns.Draws = st.Draws
	}
	return ns
}

// WarmStartMode is GPOptions.WarmStart.
type WarmStartMode int

const (
	// WarmStartAuto starts from the posterior mode when N ≥
	// WarmStartMinN and GPOptions.Settings is nil.
	WarmStartAuto WarmStartMode = iota
	// WarmStartOn always starts from the posterior mode.
	WarmStartOn
	// WarmStartOff starts the chains as the settings say (by default at
	// θ*, θ*/2, 2θ*, θ* the prior mean).
	WarmStartOff
)

// WarmStartMinN is the smallest N at which WarmStartAuto starts from the
// posterior mode (the CLI's --warm-start auto too): from there a fit from
// the prior-mean starts spends most of its work re-learning at full-data
// cost what the optimisation on subsets finds for a few dozen gradients
// (docs/LARGE.md); below it the defaults measured against Stan stay.
const WarmStartMinN = 1024

// WarmSettings returns the settings of a warm-started run on ws. When ws
// found one mode: st with ws applied (tempering.WarmStart.Apply), the
// driver None and a short warm-up unless keepKernel, with the kernel the
// independence sampler from ws.Proposal (IndependenceLocal local steps,
// IndependenceWide of a wider t mixed in below WideBelowESS,
// at most IndependenceDraws draws) when its importance ESS reaches
// MinProposalESS, else tempering.WarmKernel (at most WarmKernelDraws
// draws). When it found more, st unchanged: one mode's Laplace
// approximation misleads a kernel in the others (on the GP at N = 256,
// D = 8, two modes, PT from it needed 1 850 draws per chain where PT
// from the prior-mean starts needed 200), and chains started around one
// mode would hide the others from R̂. On one mode the chains move in
// gp.VarianceSplit's space (st.Transform, unless st has one), where the
// ridge that σf and σn form at D = 8 is straight (docs/LARGE.md); the
// draws are still of u = log θ. It is what FitGP and the CLI run from
// the warm start.
func WarmSettings(st tempering.Settings, ws *tempering.WarmStart, keepKernel bool) tempering.Settings {
	if !ws.Unimodal() {
		return st
	}
	if !keepKernel {
		st.Kernel, st.Warmup = nil, 0
		st.Driver = tempering.None
		st.Draws = max(st.Draws, WarmKernelDraws)
		if p := ws.Proposal; p != nil && p.ESS() >= MinProposalESS {
			st.Kernel, st.Transform = IndependenceKernel(p), p.Transform
			st.Draws = max(st.Draws, IndependenceDraws)
		}
	}
	if st.Transform == nil {
		st.Transform = gp.VarianceSplit{}
	}
	ws.Apply(&st)
	return st
}

// IndependenceKernel returns the independence sampler that WarmSettings
// runs from the fitted proposal p: p's t (Proposal.Kernel) with
// IndependenceLocal local steps after each proposal and, when p's
// importance ESS is below WideBelowESS, IndependenceWide of a wider t
// mixed in. Where p has a surrogate (WarmStartOptions fits one), every
// proposal, independence and local, is screened on it by delayed
// acceptance (tempering.Independence.Screen), which keeps the chain exact
// and spares the evaluations of the proposals the screen rejects: most
// of the local steps' (measured, docs/LARGE.md: at N = 2048, D = 8,
// 31–40% less work over three fits, in 20–35% more draws).
func IndependenceKernel(p *tempering.Proposal) tempering.Independence {
	k := p.Kernel()
	k.Screen = p.Surrogate
	k.Local = IndependenceLocal
	if p.ESS() < WideBelowESS {
		k.Wide = IndependenceWide
	}
	return k
}

// MinProposalESS is the importance ESS fraction (tempering.Proposal.ESS)
// from which WarmSettings samples with the fitted independence proposal
// instead of HMC. Measured (docs/LARGE.md): at 0.79 (GP, N = 1024, D = 3)
// the independence sampler needed 2.4 times less work than HMC to
// converge; at 0.27 (D = 8, with the wide component) 3.6 times less; at
// 0.20 (diamonds, N = 1024, D = 6, without the wide component) it had
// mixed worse than HMC after the same CPU time.
const MinProposalESS = 0.25

// IndependenceLocal is the number of random-walk steps WarmSettings
// gives the independence sampler after each independence proposal
// (tempering.Independence.Local). On the GP at N = 1024, D = 8 (data seed
// 1) the independence steps alone stuck in a tail the proposal
// under-covers (tail-ESS 171 after 10 000 draws per chain); with one
// local step the fit converged after 1 950 draws per chain (4 709
// full-data gradients' worth of work in all), with two after 2 450
// (8 434).
const IndependenceLocal = 1

// IndependenceWide is the weight of the wider t (twice the spread)
// that WarmSettings mixes into a fitted independence proposal whose
// importance ESS is below WideBelowESS (tempering.Independence.Wide):
// where the posterior reaches further than the fitted t, the wider one
// bounds the importance weights, so a chain that gets there leaves again
// sooner. Measured side by side (docs/LARGE.md): on the GP at N = 1024,
// D = 8 (data seed 1; proposals of importance ESS 0.35–0.38), it cut
// the work to convergence by 23–35% on each of three seeds; at D = 3
// (0.79) it cost up to 36% more, hence WideBelowESS.
const IndependenceWide = 0.15

// WideBelowESS is the importance ESS fraction below which WarmSettings
// mixes the wider t into the proposal: tempering.ProposalOptions'
// default EnoughESS, at which a fitted proposal is taken as good enough.
const WideBelowESS = 0.5

// IndependenceDraws is the most draws per chain WarmSettings allows the
// independence sampler: a transition costs one log density without
// gradient (two with the local step), about a third of a gradient
// each, and moves less far than an HMC one, so more draws are made for
// the same work.
const IndependenceDraws = 10000

// WarmKernelDraws is the most draws per chain WarmSettings allows
// tempering.WarmKernel. A posterior that converges sooner stops sooner
// (the stop rule); one with a long tail needs more than the 2000 of
// DefaultGPSettings: on 1024 rows of ggplot2's diamonds (D = 6) the
// warm kernel reached 2000 with a length scale's R̂ at 1.011 and
// converged after 3650 (docs/LARGE.md).
const WarmKernelDraws = 6000

// WarmStartOptions returns the warm-start options FitGP uses for st (and
// the CLI): st's seed and chains, and, if fitProposal, an independence
// proposal fitted in st.Transform's space, gp.VarianceSplit's if it has
// none, with its surrogate (IndependenceKernel screens on it).
func WarmStartOptions(st tempering.Settings, fitProposal bool) tempering.WarmStartOptions {
	o := tempering.WarmStartOptions{Seed: st.Seed, Chains: st.Chains}
	if fitProposal {
		tr := st.Transform
		if tr == nil {
			tr = gp.VarianceSplit{}
		}
		o.Proposal = &tempering.ProposalOptions{Transform: tr, Seed: st.Seed, Surrogate: true}
	}
	return o
}

// TailScale is the scale of b's compressed lower tail in
// VarianceSplitTail's space (gp.NewVarianceSplitTail), in standard
// deviations of b under the Laplace approximation. Measured
// (docs/LARGE.md): on the GP at N = 1024, D = 8 (data seed 1), the fit
// with b's tail compressed at 1 sd needed less work to converge than the
// plain split's on six of eight seeds, 32% less in all; at 2 sd and
// 0.7 sd more than at 1 sd.
const TailScale = 1.0

// TailAt is where VarianceSplitTail measures the fall of b's lower tail:
// this many standard deviations of b (Laplace) below the mode, where a
// Gaussian's log density has fallen by TailAt²/2 = 8 nats.
const TailAt = 4.0

// ChainSpace describes, for messages, the space a GP's chains move in
// under st.Transform = tr: the variance split (with b's lower tail
// compressed where it is gp.VarianceSplitTail), or "" for any other
// transform or none.
func ChainSpace(tr tempering.Transform) string {
	const split = "(½log(σf²+σn²), log(σn²/σf²)) for (log σf, log σn)"
	switch tr := tr.(type) {
	case gp.VarianceSplit:
		return split
	case gp.VarianceSplitTail:
		return fmt.Sprintf("%s, the latter's lower tail compressed (sinh) below %.3g", split, tr.Center)
	}
	return ""
}

// VarianceSplitTail chooses a space to fit a GP's proposal in, as
// ProposalOptions.TransformAt takes it (opt-in: WarmStartOptions fits in
// the plain split): gp.VarianceSplitTail about the mode, b's lower tail
// compressed at TailScale standard deviations of b, where t's log
// posterior falls by less than a Gaussian's from the mode to TailAt
// standard deviations below it (b's tail heavier than the Laplace
// approximation says); gp.VarianceSplit otherwise. It computes 2 log
// densities (TailFall). Measured (docs/LARGE.md): at D = 8 the fall was 3.5–5.7
// nats (a tail set by the prior on σn, as σn → 0 leaves the likelihood
// flat); at D = 3 64 nats (a wall), where compressing it cost 2.4 times
// the work on one seed. It is not the default: on a second D = 8 data set the
// compressed space lowered the proposal's importance ESS below
// MinProposalESS on one seed of two, and the fit fell back to HMC for 2.8
// times the work.
func VarianceSplitTail(ctx context.Context, t tempering.Target, mode, cov []float64) (tempering.Transform, int, error) {
	fall, evals, err := TailFall(ctx, t, mode, cov)
	if err != nil {
		return nil, evals, err
	}
	if !(fall < TailAt*TailAt/2) {
		return gp.VarianceSplit{}, evals, nil
	}
	tr, err := gp.NewVarianceSplitTail(mode, cov, TailScale)
	return tr, evals, err
}

// TailFall returns what VarianceSplitTail decides on: the fall of t's log
// posterior in gp.VarianceSplit's space from the mode to TailAt Laplace
// standard deviations of b below it (+Inf where the density there is
// zero), with the number of log densities computed.
func TailFall(ctx context.Context, t tempering.Target, mode, cov []float64) (fall float64, evals int, err error) {
	split := gp.VarianceSplit{}
	d := len(mode)
	if d < 2 || len(cov) != d*d || t.Dim() != d {
		return 0, 0, fmt.Errorf("subtemper: variance split tail: mode of length %d and covariance of %d entries for a target of dimension %d", d, len(cov), t.Dim())
	}
	v := make([]float64, d)
	split.FromTarget(mode, v)
	sd := math.Sqrt(tempering.CovInChainSpace(split, mode, cov)[d*d-1])
	rt := tempering.Reparam(t, split)
	lp := func(v []float64) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		ll, err := rt.LogLik(nil, v, nil)
		return ll + rt.LogPrior(v, nil), err
	}
	top, err := lp(v)
	if err != nil {
		return 0, 1, err
	}
	v[d-1] -= TailAt * sd
	low, err := lp(v)
	if err != nil {
		return 0, 2, err
	}
	return top - low, 2, nil
}

// GPFit is a fitted GP: the data, how they were transformed, the model's
// settings and the draws of u = log θ, with methods to summarise, predict
// and save. A GPFit holds a model on a backend (created on first use):
// Close releases it. Predict, Model and Close may be called from several
// goroutines at once (predictions on one fit are made one at a time, each
// using every core: the model's workspaces are shared); the other methods
// only read the fit. The fields must not be changed while methods run,
// and the *gp.Model that Model returns is not itself safe for concurrent
// use.
type GPFit struct {
	// Data are the data as given, in their own units.
	Data *gp.Data
	// Std is the standardisation applied before sampling (the zero value:
	// none). Draws are in the standardised units.
	Std gp.Standardization
	// Prior is the prior, with defaults filled in; Jitter the diagonal
	// jitter.
	Prior  gp.Prior
	Jitter float64
	// Kernel is the covariance family (zero value: gp.SE).
	Kernel gp.Kernel
	// Backend is the name of the backend the model runs on.
	Backend string
	// Settings are the sampler's settings as given to tempering.Run.
	Settings tempering.Settings
	// Draws[c][s] is draw s of chain c, u = log θ in the sampling units
	// (θ = (ℓ_1..ℓ_D, σf, σn) of the standardised data when Std is set);
	// for an importance-sampled fit, draws resampled from Weighted.
	Draws [][][]float64
	// Result is the sampler's full result (per-level statistics, swap
	// rates, times); nil for a fit read back by LoadGPFit. An
	// importance-sampled fit's holds the resampled draws, how sampling
	// ended and its times only.
	Result *tempering.Result
	// Wall is the sampling's wall-clock time (0 for a loaded fit).
	Wall time.Duration
	// Mode is the warm start the chains started from (or, with
	// GPOptions.MAP, the whole fit); nil without one.
	Mode *tempering.WarmStart
	// SamplingCPU is the process's CPU time during sampling (0 where it
	// cannot be read, and for a loaded fit).
	SamplingCPU time.Duration
	// StoppedByMaxTime reports that GPOptions.MaxTime ended sampling.
	StoppedByMaxTime bool
	// Weighted is the weighted sample of an importance-sampled fit (nil
	// for chains, GPOptions.Importance). Its Draws are then that many
	// draws resampled from it (one chain, copies of its draws in
	// proportion to their weights), which predictions and LOO use;
	// Summary, Verdict, Report and the draws' files use the weights.
	Weighted *WeightedSample
	// ImportanceSkipped says why a fit asked for importance sampling
	// (ImportanceOn) was sampled by chains ("" otherwise).
	ImportanceSkipped string

	mu    sync.Mutex // guards model and its use by Predict
	model *gp.Model
}

// FitGP samples the hyperparameters of GP regression on data (N×D inputs,
// one target) and returns the fit, which owns the model it sampled with
// (Close releases it). With the defaults it runs chains below
// WarmStartMinN observations and from there, on one mode, importance
// sampling from the warm start's fitted proposal (GPOptions.Importance:
// the fit's Weighted sample, Draws resampled from it).
//
// If ctx is cancelled during sampling, FitGP returns the fit of the
// draws made so far, with Result.Interrupted set, together with an error
// wrapping the context's cause (context.Canceled, or the cause given to
// context.WithCancelCause): a caller keeps the draws by using the fit
// when it is not nil. Cancelled before sampling (during the
// standardisation, the model's set-up or the search for the mode), it
// returns a nil fit and an error wrapping the cause. GPOptions.MaxTime is
// not a cancellation: sampling stops there and the fit is returned with
// no error, StoppedByMaxTime set, whatever draws it holds (with an
// error wrapping ErrMaxTime if it ran out before the chains' first
// iteration, or during the search for the mode, with a nil fit).
//
// The chains run in parallel, each locked to an OS thread: with
// GOMAXPROCS below the number of chains they wait for one another's
// processors (tempering.Run), so raise it as the CLI does when the
// machine has fewer cores than chains. On the openblas backend, unless
// OPENBLAS_NUM_THREADS is set, it sets OpenBLAS's threads to the cores
// divided by the chains, as the CLI does (a process-wide setting).
//
// Check the fit's Verdict before using it.
func FitGP(ctx context.Context, data *gp.Data, opt GPOptions) (*GPFit, error) {
	f, st, err := newGPFit(ctx, data, opt)
	if err != nil {
		return nil, err
	}
	opt.phase("the model's set-up")
	m, err := f.Model()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("subtemper: the model's set-up: %w", err)
	}
	pinChainThreads(f.Backend, st.Chains)
	sctx, cancel := maxTimeContext(ctx, opt.MaxTime)
	defer cancel()
	start := time.Now()
	t := m
	if opt.warm(data.N) {
		if err := f.warmStart(sctx, t, &st, opt); err != nil {
			return nil, err
		}
		if opt.MAP {
			f.Wall = time.Since(start)
			f.Draws = [][][]float64{{append([]float64(nil), f.Mode.Mode...)}}
			return f, nil
		}
	}
	switch why := opt.importanceReason(f.Mode); {
	case why == "":
		return f.fitImportance(ctx, sctx, t, st, opt, start)
	case opt.Importance == ImportanceOn:
		f.ImportanceSkipped = why
	}
	if rule, ok := st.Stop.(diag.StopRule); ok && rule.Transform == nil && opt.Settings != nil {
		rule.Transform = f.natural
		st.Stop = rule
	}
	if opt.BeforeSampling != nil {
		opt.BeforeSampling(f, &st)
	}
	f.Settings = st
	opt.phase("the chains' set-up")
	r := runChains(sctx, t, st)
	f.Wall, f.SamplingCPU = time.Since(start), r.cpu
	failed, maxTime, err := r.settle(ctx, sctx, t, st.Chains)
	if failed {
		f.Close()
		return nil, err
	}
	f.Result, f.Draws, f.StoppedByMaxTime = r.res, r.res.Draws, maxTime
	return f, err
}

// ErrMaxTime is the cause of the context that GPOptions.MaxTime ends;
// FitGP's error wraps it when the time runs out before the chains' first
// iteration.
var ErrMaxTime = errors.New("subtemper: the maximum time was reached")

// newGPFit checks the options and data and makes the fit before
// sampling: the prior with defaults, the standardisation and the
// backend's name.
func newGPFit(ctx context.Context, data *gp.Data, opt GPOptions) (*GPFit, tempering.Settings, error) {
	if err := data.Check(); err != nil {
		return nil, tempering.Settings{}, err
	}
	if opt.WarmStart != WarmStartAuto && opt.WarmStart != WarmStartOn && opt.WarmStart != WarmStartOff {
		return nil, tempering.Settings{}, fmt.Errorf("subtemper: unknown warm-start mode %d", int(opt.WarmStart))
	}
	st := DefaultGPSettings()
	if opt.Settings != nil {
		st = *opt.Settings
	}
	f := &GPFit{Data: data, Jitter: opt.Jitter, Kernel: opt.Kernel, Settings: st}
	pr, err := opt.Prior.WithDefaults()
	if err != nil {
		return nil, st, err
	}
	f.Prior = pr
	if opt.Standardize {
		opt.phase("standardisation")
		if _, f.Std, err = gp.StandardizeContext(ctx, data, true, true); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
			}
			return nil, st, fmt.Errorf("subtemper: standardisation: %w", err)
		}
	}
	if f.Backend = opt.Backend; f.Backend == "" {
		f.Backend = linalg.FastestName()
	}
	return f, st, nil
}

// warm reports whether the options start from the posterior mode for N
// observations.
func (o *GPOptions) warm(n int) bool {
	return o.WarmStart == WarmStartOn || o.MAP || o.Importance == ImportanceOn ||
		o.WarmStart == WarmStartAuto && o.Settings == nil && n >= WarmStartMinN
}

// phase reports a phase to OnPhase, if set.
func (o *GPOptions) phase(name string) {
	if o.OnPhase != nil {
		o.OnPhase(name)
	}
}

// warmStart finds the posterior mode (f.Mode) and, unless the options ask
// for the mode alone, makes *st start from it (WarmSettings, with what
// WarmKeep keeps).
func (f *GPFit) warmStart(ctx context.Context, t *gp.Model, st *tempering.Settings, opt GPOptions) error {
	opt.phase("the search for the posterior mode")
	keep := WarmKeep{Kernel: opt.Settings != nil, Driver: opt.Settings != nil, Warmup: opt.Settings != nil, Draws: opt.Settings != nil}
	if opt.WarmKeep != nil {
		keep = *opt.WarmKeep
	}
	ws := opt.Warm
	var err error
	switch {
	case ws == nil:
		split := opt.importanceWanted()
		ws, err = findWarm(ctx, t, st, warmCall{keep: keep, fitProposal: (!keep.Kernel || split) && !opt.MAP, split: split, modeOnly: opt.MAP,
			backend: f.Backend, progress: opt.OnWarm})
	case len(ws.Mode) != t.Dim():
		err = fmt.Errorf("subtemper: the warm start given has %d parameters, the model %d", len(ws.Mode), t.Dim())
	default:
		pinChainThreads(f.Backend, st.Chains)
		if !opt.MAP {
			*st = keep.Settings(*st, ws)
		}
	}
	if err != nil {
		f.Close()
		return err
	}
	f.Mode = ws
	if !opt.MAP {
		f.Settings = *st
	}
	return nil
}

// pinThreads sets OpenBLAS's threads to n on the openblas backend, unless
// OPENBLAS_NUM_THREADS is set: the chains (or prediction workers) each
// call OpenBLAS, and a multithreaded OpenBLAS in each would oversubscribe
// the cores.
func pinThreads(backend string, n int) {
	if backend == "openblas" && os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		openblas.SetThreads(n)
	}
}

// pinChainThreads gives each of the chains its share of the cores'
// OpenBLAS threads (pinThreads).
func pinChainThreads(backend string, chains int) {
	pinThreads(backend, max(1, runtime.NumCPU()/max(1, chains)))
}

// Verdict returns the convergence verdict on the fit's draws (diag.Judge):
// every hyperparameter's R-hat below diag.RhatMax (1.01) and its bulk- and
// tail-ESS at least diag.ESSPerChainMin (100) per chain, the criterion the
// CLI prints (the stop rule's MinESS decides when sampling ends, not the
// verdict). An importance-sampled fit's is on its weighted sample
// (diag.JudgeWeighted): the weights' Pareto k̂ at most diag.ParetoKMax
// and every bulk- and tail-ESS at least Weighted.MinESS. A fit of the
// mode alone (GPOptions.MAP) has no verdict: an error.
func (f *GPFit) Verdict() (diag.Verdict, error) {
	if len(f.Draws) == 1 && len(f.Draws[0]) == 1 && f.Weighted == nil {
		return diag.Verdict{}, errors.New("subtemper: a fit of one point (the mode) has no convergence verdict")
	}
	sum, err := f.Summary()
	if err != nil {
		return diag.Verdict{}, err
	}
	if f.Weighted != nil {
		return diag.JudgeWeighted(sum, f.Weighted.K, f.Weighted.MinESS), nil
	}
	return diag.Judge(sum, len(f.Draws)), nil
}

// Model returns the GP model the draws belong to (on the standardised
// data when Std is set), creating it on the fit's backend on first use.
func (f *GPFit) Model() (*gp.Model, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.modelLocked()
}

// modelLocked is Model, with f.mu held.
func (f *GPFit) modelLocked() (*gp.Model, error) {
	if f.model != nil {
		return f.model, nil
	}
	be, err := linalg.Get(f.Backend)
	if err != nil {
		return nil, err
	}
	data := f.Data
	if f.standardized() {
		d, std, err := gp.Standardize(f.Data, true, true)
		if err != nil {
			return nil, err
		}
		if !sameStd(std, f.Std) {
			return nil, errors.New("subtemper: the data do not give the fit's standardisation")
		}
		data = d
	}
	m, err := gp.New(be, data, gp.Options{Prior: f.Prior, Jitter: f.Jitter, Kernel: f.Kernel})
	if err != nil {
		return nil, err
	}
	f.model = m
	return m, nil
}

func (f *GPFit) standardized() bool { return f.Std.XSD != nil || f.Std.YSD != 0 }

func sameStd(a, b gp.Standardization) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return eq(a.XMean, b.XMean) && eq(a.XSD, b.XSD) && a.YMean == b.YMean && a.YSD == b.YSD
}

// Close releases the model's backend handle.
func (f *GPFit) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.model == nil {
		return nil
	}
	err := f.model.Close()
	f.model = nil
	return err
}

// Names returns the hyperparameters' names: ell_<input> for each input,
// then sf and sn (the columns of the CLI's draws.csv).
func (f *GPFit) Names() []string {
	names := make([]string, 0, f.Data.D+2)
	for j := range f.Data.D {
		names = append(names, "ell_"+f.Data.InputName(j))
	}
	return append(names, "sf", "sn")
}

// Theta returns the draws in natural units θ = exp(u), mapped back to the
// data's units: [chain][draw][parameter].
func (f *GPFit) Theta() [][][]float64 {
	out := make([][][]float64, len(f.Draws))
	for c, ch := range f.Draws {
		out[c] = make([][]float64, len(ch))
		for s, u := range ch {
			out[c][s] = f.Std.Original(nil, gp.Theta(nil, u))
		}
	}
	return out
}

// Summary returns each hyperparameter's posterior summary and
// convergence diagnostics (rank-normalised R-hat, bulk and tail ESS, the
// paper's R-hat and ESS), in natural units and the data's units, over the
// first n draws of every chain, n the shortest chain's length; an
// importance-sampled fit's are its weighted sample's
// (diag.SummarizeWeighted).
func (f *GPFit) Summary() ([]diag.Summary, error) {
	if f.Weighted != nil {
		return f.weightedSummary()
	}
	th := f.Theta()
	n := -1
	for _, ch := range th {
		if n < 0 || len(ch) < n {
			n = len(ch)
		}
	}
	if n <= 0 {
		return nil, errors.New("subtemper: the fit holds no draws")
	}
	names := f.Names()
	out := make([]diag.Summary, len(names))
	for v, name := range names {
		chains := make([][]float64, len(th))
		for c := range th {
			chains[c] = make([]float64, n)
			for s := range n {
				chains[c][s] = th[c][s][v]
			}
		}
		sm, err := diag.SummarizeChains(name, chains)
		if err != nil {
			return nil, err
		}
		out[v] = sm
	}
	return out, nil
}

// PooledDraws returns k draws (u = log θ, sampling units) evenly spaced
// over the chains' draws taken in order (chain 1's, then chain 2's, …):
// all of them if k exceeds their number; k ≤ 0 takes
// DefaultPredictDraws.
func (f *GPFit) PooledDraws(k int) [][]float64 {
	var all [][]float64
	for _, ch := range f.Draws {
		all = append(all, ch...)
	}
	if k <= 0 {
		k = f.DefaultPredictDraws()
	}
	if k >= len(all) {
		return all
	}
	out := make([][]float64, k)
	for i := range out {
		out[i] = all[i*len(all)/k]
	}
	return out
}

// PredictOptions configures GPFit.Predict. The zero value is valid.
type PredictOptions struct {
	// Draws is the number of draws the predictions average over, evenly
	// spaced (see PooledDraws); 0 means all, up to DefaultPredictDraws.
	Draws int
	// Y, if non-nil, holds the targets observed at the test inputs (data
	// units): the Predictive then carries their log densities and CDF
	// values, and its Metrics method gives RMSE, MLPD and coverage.
	Y []float64
	// Probs are the quantile probabilities; nil means 5%, 50%, 95%.
	Probs []float64
	// Workers is the number of goroutines (0: GOMAXPROCS); see
	// gp.PredictOptions.Workers.
	Workers int
	// OnDraw, if set, is told after each draw's predictions how many of
	// how many are done (gp.PredictOptions.OnDraw): at large N each draw
	// takes seconds.
	OnDraw func(done, total int)
}

// Predict returns the posterior predictive at the n test inputs x (n×D,
// row-major, in the data's units and input order): for each draw used,
// the GP's Gaussian predictive of the latent f* and of a new observation
// y* = f* + noise, and their mixture over the draws — mean, standard
// deviation and quantiles, in the data's units. The cost is one kernel
// factorisation and the solves with its factor per distinct draw,
// O(S·(N³/3 + n·N·D + n·N²)) for S distinct draws and N observations
// (see gp.Model.PredictDraws; an importance-sampled fit's resampled
// draws repeat).
func (f *GPFit) Predict(ctx context.Context, x []float64, n int, opt PredictOptions) (*gp.Predictive, error) {
	// One prediction at a time: they share the model's workspaces (and
	// each already uses every core).
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.modelLocked()
	if err != nil {
		return nil, err
	}
	// One draw per worker goroutine, each calling OpenBLAS (as the CLI).
	pinThreads(f.Backend, 1)
	draws := f.PooledDraws(opt.Draws)
	if len(draws) == 0 {
		return nil, errors.New("subtemper: predict: the fit holds no draws")
	}
	p, err := m.PredictDraws(ctx, x, n, draws, gp.PredictOptions{Std: f.Std, Y: opt.Y, Probs: opt.Probs, Workers: opt.Workers, OnDraw: opt.OnDraw})
	if err != nil {
		return nil, fmt.Errorf("subtemper: %w", err)
	}
	return p, nil
}

// maxTimeContext returns ctx ended after d with the cause ErrMaxTime
// (GPOptions.MaxTime, MVNOptions.MaxTime), or ctx itself if d is zero,
// with the function that releases it.
func maxTimeContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, ErrMaxTime)
}
