package subtemper

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg/openblas"
	"github.com/subtemper/subtemper/tempering"
)

// ESSPerSecondDefinition defines ESS per second wherever a Report gives
// it (TimingsReport.ESSPerSecond, VariableReport.ESSBulkPerSecond).
const ESSPerSecondDefinition = "bulk-ESS of all chains / CPU-seconds of all chains, warm-up included (total_chain_cpu_seconds)"

// SampledRun is what NewReport reports on: a sampler's result, the
// settings it ran with and how its draws map to the variables reported.
type SampledRun struct {
	// Result is tempering.Run's result.
	Result *tempering.Result
	// Settings are the settings as given to tempering.Run.
	Settings tempering.Settings
	// Names are the variables' names; Natural maps a draw u to them in
	// dst (nil: the identity).
	Names   []string
	Natural func(dst, u []float64)
	// Backend is the name of the backend the model ran on.
	Backend string
	// Wall is the run's wall-clock time; ProcessCPU the process's CPU
	// time during sampling (0 where it could not be read).
	Wall, ProcessCPU time.Duration
}

// ReportOptions configures GPFit.Report and NewReport. The zero value is
// valid.
type ReportOptions struct {
	// Summarize computes one variable's diagnostics from its chains;
	// nil means diag.SummarizeChains. Where it fails the variable's
	// figures are NaN (null in JSON): a caller may give up on slow
	// diagnostics this way (the CLI does after a Ctrl-C).
	Summarize func(name string, chains [][]float64) (diag.Summary, error)
}

// NewReport describes any tempering run: its verdict (diag.Judge; the
// MinESS of Settings.Stop, when it is a diag.StopRule, is recorded in
// Draws.MinESS but does not change it),
// each variable's diagnostics over the first n draws of every chain (n
// the shortest chain's length), per-level statistics, swaps, the ladder,
// the adapted tuning, and timings. Command, Units, Data, Warnings and the
// GP's parts are left empty: GPFit.Report fills them for a GP fit.
func NewReport(r SampledRun, opt ReportOptions) *Report {
	res, st := r.Result, r.Settings
	nat := naturalDraws(res.Draws, r.Natural)
	per := make([]int, len(nat))
	common := math.MaxInt
	for c := range nat {
		per[c] = len(nat[c])
		common = min(common, per[c])
	}
	if len(nat) == 0 {
		common = 0
	}
	minESS := 0.0
	if rule, ok := st.Stop.(diag.StopRule); ok {
		minESS = rule.MinESS
	}
	s := &Report{
		Interrupted: res.Interrupted,
		Status:      res.Status.String(),
		Settings:    settingsMap(st),
		Seed:        st.Seed,
		Backend:     r.Backend,
		BLASThreads: blasThreads(r.Backend),
		Sampler:     strings.ToLower(st.Driver.String()),
		Data:        map[string]any{},
		Ladder:      newLadderReport(res),
		Draws: DrawsReport{
			Warmup: resolvedWarmup(st.Warmup), Requested: st.Draws, Thin: max(st.Thin, 1), PerChain: per, Summarized: common,
			MinESS: minESS, StoppedAt: res.StoppedAt,
		},
		Timings:    newTimingsReport(res, r.Wall, r.ProcessCPU),
		Variables:  []VariableReport{},
		RoundTrips: res.Stats.RoundTrips,
		Warnings:   []string{},
	}
	s.describeKernels(st)
	s.Tuning = newTuningReport(res, s.Inner)
	if common < len(nat) && common >= 0 {
		for _, p := range per {
			if p != common {
				s.Draws.Note = fmt.Sprintf("interrupted chains hold different numbers of draws; diagnostics use the first %s of each, draws.csv holds all", plural.Count(common, "draw", "draws"))
				break
			}
		}
	}
	s.summarizeVariables(nat, r.Names, common, opt)
	for c, ch := range res.Draws {
		if stuck(ch) {
			s.StuckChains = append(s.StuckChains, c+1)
		}
	}
	s.addLevels(res)
	for _, e := range res.Energy {
		s.EBFMI = append(s.EBFMI, Float(diag.EBFMI(e)))
	}
	return s
}

// LowEBFMI returns the chains (from 1) whose E-BFMI is below
// diag.EBFMIMin (a NaN one, not estimable, is not among them).
func (s *Report) LowEBFMI() []int {
	var low []int
	for c, b := range s.EBFMI {
		if float64(b) < diag.EBFMIMin {
			low = append(low, c+1)
		}
	}
	return low
}

// resolvedWarmup is the number of warm-up iterations Settings.Warmup
// means.
func resolvedWarmup(w int) int {
	switch {
	case w < 0:
		return 0
	case w == 0:
		return tempering.DefaultWarmup
	}
	return w
}

// naturalDraws maps draws to the reported variables: [chain][draw][var].
func naturalDraws(draws [][][]float64, natural func(dst, u []float64)) [][][]float64 {
	nat := make([][][]float64, len(draws))
	for c, ch := range draws {
		nat[c] = make([][]float64, len(ch))
		for s, u := range ch {
			v := make([]float64, len(u))
			if natural == nil {
				copy(v, u)
			} else {
				natural(v, u)
			}
			nat[c][s] = v
		}
	}
	return nat
}

// summarizeVariables computes each variable's diagnostics over the first
// n draws of each chain, their medians and the verdict.
func (s *Report) summarizeVariables(nat [][][]float64, names []string, n int, opt ReportOptions) {
	nan := Float(math.NaN())
	s.MaxRhat, s.MinESSBulk, s.MinESSTail = nan, nan, nan
	s.Verdict = "NOT converged: no draws after warm-up"
	if n <= 0 {
		s.MedianRhat, s.MedianRhatPaper, s.MedianESSBulk, s.MedianESSBulkPerSecond = nan, nan, nan, nan
		return
	}
	summarize := opt.Summarize
	if summarize == nil {
		summarize = diag.SummarizeChains
	}
	totalSec := s.Timings.TotalChainCPUSeconds
	var rh, rhp, eb, eps []float64
	var sums []diag.Summary
	for v, name := range names {
		chains := make([][]float64, len(nat))
		for c := range nat {
			x := make([]float64, n)
			for i := range n {
				x[i] = nat[c][i][v]
			}
			chains[c] = x
		}
		d, err := summarize(name, chains)
		if err != nil {
			d = nanSummary(name)
		}
		sums = append(sums, d)
		vj := newVariableReport(d)
		vj.ESSBulkPerSecond = Float(d.ESSBulk / totalSec)
		s.Variables = append(s.Variables, vj)
		rh = append(rh, d.Rhat)
		rhp = append(rhp, d.RhatPaper)
		eb = append(eb, d.ESSBulk)
		eps = append(eps, d.ESSBulk/totalSec)
	}
	s.MedianRhat = Float(NaNMedian(rh))
	s.MedianRhatPaper = Float(NaNMedian(rhp))
	s.MedianESSBulk = Float(NaNMedian(eb))
	s.MedianESSBulkPerSecond = Float(NaNMedian(eps))
	s.ConvergedPaper = float64(s.MedianRhat) < 1.1
	v := diag.Judge(sums, len(nat))
	s.Converged, s.Verdict = v.Converged, v.String()
	s.MaxRhat, s.MinESSBulk, s.MinESSTail = Float(v.MaxRhat), Float(v.MinESSBulk), Float(v.MinESSTail)
}

// nanSummary is the summary of a variable whose diagnostics failed.
func nanSummary(name string) diag.Summary {
	n := math.NaN()
	return diag.Summary{Name: name, Mean: n, Median: n, SD: n, MAD: n, Q5: n, Q95: n,
		Rhat: n, RhatBulk: n, RhatTail: n, ESSBulk: n, ESSTail: n, ESSMean: n, MCSEMean: n, RhatPaper: n, ESSPaper: n}
}

// addLevels adds the per-level statistics, the swaps and the tempered
// transitions' counts.
func (s *Report) addLevels(res *tempering.Result) {
	for m, l := range res.Stats.Levels {
		s.Levels = append(s.Levels, LevelReport{
			Level: m, Beta: l.Beta, SubsetSize: l.SubsetSize, Transitions: l.Transitions, Accepted: l.Accepted,
			AcceptRate: Float(rateOrNaN(l.Accepted, l.Transitions)), Evals: l.Evals, EvalsGrad: l.EvalsGrad,
			PrefixReuses: l.PrefixReuses, GradResumes: l.GradResumes, Failed: l.Failed, Invalid: l.Invalid,
			Divergent: l.SamplingDivergent, DivergentWarmup: l.Divergent - l.SamplingDivergent,
			SamplingAccept: Float(l.SamplingAcceptStat()),
			LeapfrogSteps:  l.LeapfrogSteps, MaxTreeDepthHits: l.MaxTreeDepthHits,
		})
		s.Failed += l.Failed
		s.Divergent += l.SamplingDivergent
		s.DivergentWarmup += l.Divergent - l.SamplingDivergent
	}
	for i := range res.Stats.SwapProposed {
		s.Swaps = append(s.Swaps, SwapReport{
			Levels: [2]int{i, i + 1}, Proposed: res.Stats.SwapProposed[i], Accepted: res.Stats.SwapAccepted[i],
			Rate: Float(rateOrNaN(res.Stats.SwapAccepted[i], res.Stats.SwapProposed[i])),
		})
	}
	if s.Swaps == nil {
		s.Swaps = []SwapReport{}
	}
	if s.Sampler == "tt" || s.Sampler == "stt" {
		s.TT = &TTReport{Proposed: res.Stats.TTProposed, Accepted: res.Stats.TTAccepted, Aborted: res.Stats.TTAborted,
			Rate: Float(rateOrNaN(res.Stats.TTAccepted, res.Stats.TTProposed))}
	}
}

// describeKernels names the kernels of the settings: Inner (the target
// level's), Hot (the hotter levels', "" without tempering), what warm-up
// adapted, the target acceptance of a gradient kernel and the hot MH
// kernel's proposals per transition.
func (s *Report) describeKernels(st tempering.Settings) {
	k := st.Kernel
	if k == nil {
		k = tempering.DefaultKernel()
	}
	target, hot := k, k
	if pl, ok := k.(tempering.PerLevel); ok {
		target, hot = pl.Target, pl.Target
		if pl.Hot != nil {
			hot = pl.Hot
		}
	}
	s.Inner = kernelName(target)
	if st.Driver != tempering.None {
		s.Hot = kernelName(hot)
	}
	s.Adapt = "none"
	if resolvedWarmup(st.Warmup) > 0 {
		s.Adapt = kernelAdapt(target)
	}
	if s.Inner != "mh" || (s.Hot != "" && s.Hot != "mh") {
		s.TargetAccept = targetAccept(target)
		if s.Inner == "mh" {
			s.TargetAccept = targetAccept(hot)
		}
	}
	if s.Hot == "mh" {
		s.HotMHSteps = 1
		if m, ok := hot.(tempering.MH); ok && m.Steps > 0 {
			s.HotMHSteps = m.Steps
		}
	}
}

// kernelName names a kernel: "hmc", "nuts", "mh", or its Go type.
func kernelName(k tempering.Kernel) string {
	switch k.(type) {
	case tempering.HMC:
		return "hmc"
	case tempering.NUTS:
		return "nuts"
	case tempering.MH:
		return "mh"
	case tempering.Independence:
		return "imh"
	}
	return fmt.Sprintf("%T", k)
}

// kernelAdapt names what warm-up adapts in k ("diag", "dense", "step",
// "none").
func kernelAdapt(k tempering.Kernel) string {
	switch k := k.(type) {
	case tempering.HMC:
		return strings.ToLower(k.Adapt.String())
	case tempering.NUTS:
		return strings.ToLower(k.Adapt.String())
	case tempering.MH:
		return strings.ToLower(k.Adapt.String())
	}
	return "none"
}

// defaultTargetAccept is what HMC's and NUTS's zero TargetAccept means.
const defaultTargetAccept = 0.8

// targetAccept is the acceptance rate a gradient kernel's step-size
// adaptation aims at (0 for others).
func targetAccept(k tempering.Kernel) float64 {
	var t float64
	switch k := k.(type) {
	case tempering.HMC:
		t = k.TargetAccept
	case tempering.NUTS:
		t = k.TargetAccept
	default:
		return 0
	}
	if t == 0 {
		t = defaultTargetAccept
	}
	return t
}

// newLadderReport reports the ladder sampled with and how it
// communicated.
func newLadderReport(res *tempering.Result) LadderReport {
	l := res.Ladder
	j := LadderReport{
		Betas: res.Betas, SubsetSizes: res.SubsetSizes, Adaptive: l.Adaptive, Rounds: l.Rounds,
		Barrier: Float(math.NaN()), WarmupBarrier: Float(math.NaN()), TTRate: Float(math.NaN()),
		RoundTrips: l.RoundTrips, RoundTripsPerSecond: Float(l.RoundTripsPerSecond),
	}
	if len(l.SwapRates) > 0 {
		j.Barrier, j.SwapRates = Float(l.Barrier), l.SwapRates
	}
	if l.Adaptive {
		j.WarmupBarrier = Float(l.WarmupBarrier)
	}
	if len(res.Betas) > 1 && len(l.SwapRates) == 0 {
		j.TTRate = Float(l.TTRate)
	}
	return j
}

// newTuningReport reports each level's adapted step size and diagonal
// inverse metric (of a dense one, its diagonal), per chain; nil when the
// target level's kernel is mh.
func newTuningReport(res *tempering.Result, inner string) []TuningReport {
	if inner == "mh" || len(res.Tunings) == 0 {
		return nil
	}
	var out []TuningReport
	for m := range res.Tunings[0] {
		t := TuningReport{Level: m}
		for c := range res.Tunings {
			if m >= len(res.Tunings[c]) {
				continue
			}
			tu := res.Tunings[c][m]
			t.StepSize = append(t.StepSize, tu.StepSize)
			switch d := len(tu.InvMetric); {
			case d > 0:
				t.InvMetric = append(t.InvMetric, tu.InvMetric)
			case len(tu.InvMetricDense) > 0:
				n := int(math.Round(math.Sqrt(float64(len(tu.InvMetricDense)))))
				diag := make([]float64, n)
				for i := range diag {
					diag[i] = tu.InvMetricDense[i*n+i]
				}
				t.InvMetric = append(t.InvMetric, diag)
			}
		}
		out = append(out, t)
	}
	return out
}

// newTimingsReport reports the run's times; every ESS per second divides
// by the chains' total CPU time.
func newTimingsReport(res *tempering.Result, wall, procCPU time.Duration) TimingsReport {
	chainSec := make([]float64, len(res.ChainTimes))
	for c, t := range res.ChainTimes {
		chainSec[c] = t.Seconds()
	}
	cpuSec := ChainCPUSeconds(res, procCPU)
	var totalSec, meanSec float64
	for _, t := range cpuSec {
		totalSec += t
	}
	if len(cpuSec) > 0 {
		meanSec = totalSec / float64(len(cpuSec))
	}
	return TimingsReport{
		WallSeconds: wall.Seconds(), ChainSeconds: chainSec, ChainCPUSeconds: cpuSec, MeanChainCPUSeconds: meanSec,
		TotalChainCPUSeconds: totalSec, ProcessCPUSeconds: procCPU.Seconds(), ESSPerSecond: ESSPerSecondDefinition,
	}
}

// ChainCPUSeconds returns each chain's CPU seconds: its thread's CPU
// time, scaled so that the chains together account for the process's CPU
// time procCPU during the run when that is larger (work on helper threads
// of a multithreaded BLAS, garbage collection). Without CPU times it
// returns the chains' wall times.
func ChainCPUSeconds(res *tempering.Result, procCPU time.Duration) []float64 {
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

// NaNMedian is the median of the values that are not NaN (NaN if none),
// as a Report's medians are computed.
func NaNMedian(x []float64) float64 {
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

// blasThreads returns the OpenBLAS thread count for the openblas backend,
// 0 otherwise.
func blasThreads(backend string) int {
	if backend != "openblas" {
		return 0
	}
	return openblas.Threads()
}

// Report describes the fit's run as NewReport does, with the GP's parts:
// the command "gp", the units of the variables (θ = exp(u), in the data's
// units), the data (DataReport), the warm start, whether MaxTime stopped
// sampling, and the log evidence when the settings asked for it. It needs
// the sampler's result: a fit read back by LoadGPFit or made with
// GPOptions.MAP has none (an error).
func (f *GPFit) Report(opt ReportOptions) (*Report, error) {
	if f.Result == nil {
		return nil, errors.New("subtemper: report: the fit holds no sampler result (a saved fit read back, or the mode alone)")
	}
	names := f.Names()
	var weighted []diag.Summary
	if f.Weighted != nil {
		var err error
		if weighted, err = f.weightedSummary(); err != nil {
			return nil, err
		}
		opt.Summarize = func(name string, _ [][]float64) (diag.Summary, error) {
			return weighted[slices.Index(names, name)], nil
		}
	}
	r := NewReport(SampledRun{Result: f.Result, Settings: f.Settings, Names: names, Natural: f.natural,
		Backend: f.Backend, Wall: f.Wall, ProcessCPU: f.SamplingCPU}, opt)
	if f.Weighted != nil {
		r.weighted(f.Weighted, weighted)
		r.Settings = f.settingsMap()
	}
	r.Command = "gp"
	r.Units = "natural units θ = exp(u)"
	if f.standardized() {
		r.Units += ", mapped back to the data's original units"
	}
	r.Data = f.DataReport()
	if f.Mode != nil {
		r.WarmStart = NewWarmStartReport(f.Mode, names, f.Data.N)
		_, chains := f.Settings.Kernel.(tempering.Independence)
		if pr := r.WarmStart.Proposal; pr != nil && (chains || f.Weighted != nil) {
			pr.Used = true
		}
		if imp, price := r.Importance, evalPrice(f.Mode); imp != nil && price > 0 {
			fresh := imp.Draws + imp.Failed - imp.Reused
			imp.GradEquivalents = float64(fresh)*price + float64(imp.ClimbGradients)
		}
	}
	r.StoppedByMaxTime = f.StoppedByMaxTime
	if cp := f.Settings.Resume; cp != nil {
		r.ResumedFrom = &ResumeReport{Iteration: cp.Iteration, Draws: cp.Draws, RunDraws: cp.RunDraws}
	}
	if e := f.LogEvidence(); e != nil {
		r.Evidence = NewEvidenceReport(e, f.Settings.Driver.String())
	}
	return r, nil
}

// weighted makes r the report of an importance-sampled fit: sampler
// "importance", the verdict on the weighted sample (diag.JudgeWeighted),
// no R-hat, and ws described in Importance.
func (r *Report) weighted(ws *WeightedSample, sums []diag.Summary) {
	v := diag.JudgeWeighted(sums, ws.K, ws.MinESS)
	nan := Float(math.NaN())
	r.Sampler, r.Inner, r.Adapt = "importance", "", "none"
	r.Converged, r.ConvergedPaper, r.Verdict = v.Converged, false, v.String()
	r.MaxRhat, r.MedianRhat, r.MedianRhatPaper = nan, nan, nan
	r.MinESSBulk, r.MinESSTail = Float(v.MinESSBulk), Float(v.MinESSTail)
	r.Draws.Warmup, r.Draws.Requested, r.Draws.MinESS = 0, ImportanceMaxDraws, ws.MinESS
	r.Draws.Note = fmt.Sprintf("importance sampling: %s with Pareto-smoothed weights, which the summary uses; the diagnostics' draws are as many resampled from them", plural.Count(len(ws.Draws), "weighted draw", "weighted draws"))
	r.StuckChains = nil
	r.Importance = &ImportanceReport{Draws: len(ws.Draws), Reused: ws.Reused, Proposals: ws.Proposals, Failed: ws.Failed,
		Climbs: ws.Climbs, ModesFound: append([][]float64{}, ws.Modes...), ClimbGradients: ws.ClimbEvals, ParetoK: Float(ws.K), ParetoKMax: diag.ParetoKMax, ESS: Float(weightsESS(ws.Weights())), Needed: ws.MinESS}
}

// weightsESS is the ESS of normalised weights w, 1/Σw².
func weightsESS(w []float64) float64 {
	var s float64
	for _, x := range w {
		s += x * x
	}
	return 1 / s
}

// natural maps a draw u to θ = exp(u) in the data's units.
func (f *GPFit) natural(dst, u []float64) {
	gp.Theta(dst, u)
	f.Std.Original(dst, dst)
}

// DataReport describes the data and the model for a Report: n, d, the
// inputs' and the target's names, the SHA-256 of the data as FitDataFile
// holds them (what tells two fits' data apart, whatever their paths), the standardisation, the kernel family
// and the prior (lognormal μ, σ or inverse half-t ν, scale of every ℓ_d;
// gamma shape and rate of σf and σn).
func (f *GPFit) DataReport() map[string]any {
	inputs := make([]string, f.Data.D)
	for j := range inputs {
		inputs[j] = f.Data.InputName(j)
	}
	p := f.Prior
	ell := map[string]any{"family": "lognormal", "mu": p.Mu0(), "sigma": p.LengthSigma}
	if p.LengthFamily == gp.LengthInvHalfT {
		ell = map[string]any{"family": string(gp.LengthInvHalfT), "df": p.LengthDF, "scale": p.LengthScale}
	}
	m := map[string]any{
		"n": f.Data.N, "d": f.Data.D, "inputs": inputs, "target": f.Data.TargetName(), "sha256": dataSHA256(f.Data),
		"standardized": f.standardized(), "kernel": f.Kernel.String(),
		"prior": map[string]any{
			"ell": ell,
			"sf":  map[string]any{"family": "gamma", "shape": p.SignalShape, "rate": p.SignalRate},
			"sn":  map[string]any{"family": "gamma", "shape": p.NoiseShape, "rate": p.NoiseRate},
		},
	}
	if f.standardized() {
		s := f.Std
		m["standardization"] = map[string]any{"x_mean": s.XMean, "x_sd": s.XSD, "y_mean": s.YMean, "y_sd": s.YSD}
	}
	return m
}

// NewWarmStartReport describes a warm start found on n observations for
// variables named names (those of its mode's coordinates).
func NewWarmStartReport(ws *tempering.WarmStart, names []string, n int) *WarmStartReport {
	w := &WarmStartReport{
		Stages: ws.Stages, GradEquivalents: ws.GradEquivalents(n), Modes: ws.Modes,
		Mode: ws.Mode, LaplaceSD: ws.SD(), LogPost: ws.LogPost, SecondsPerGrad: ws.SecondsPerGrad, GradsAtOnce: ws.GradsAtOnce,
		WallSeconds: ws.Wall.Seconds(), CPUSeconds: ws.CPU.Seconds(), NonGaussian: []string{}, Corners: len(ws.Corners),
	}
	for _, i := range ws.NonGaussian {
		w.NonGaussian = append(w.NonGaussian, names[i])
	}
	if p := ws.Proposal; p != nil {
		w.Proposal = &ProposalReport{Rounds: p.Rounds, ImportanceESS: p.ESS(), SecondsPerEval: p.SecondsPerEval, EvalsAtOnce: p.EvalsAtOnce,
			GradEquivalents: float64(p.Evals()) * evalPrice(ws)}
	}
	return w
}

// evalPrice is the measured cost of a full-data log density without
// gradient in full-data gradients (the proposal's seconds per evaluation
// over the warm start's per gradient), or 0 where either is unknown.
func evalPrice(ws *tempering.WarmStart) float64 {
	if p := ws.Proposal; p != nil && p.SecondsPerEval > 0 && ws.SecondsPerGrad > 0 {
		return p.SecondsPerEval / ws.SecondsPerGrad
	}
	return 0
}

// NewEvidenceReport describes a log-evidence estimate made along the
// ladder of the sampler named (the driver's name).
func NewEvidenceReport(e *tempering.Evidence, sampler string) *EvidenceReport {
	j := &EvidenceReport{
		LogZ: Float(e.LogZ), SE: Float(e.SE), Backward: Float(e.Backward), BackwardSE: Float(e.BackwardSE), ChainSD: Float(e.ChainSD),
		Leg: EvidenceLegReport{LogZ: Float(e.Leg.LogZ), SE: Float(e.Leg.SE), ESS: Float(e.Leg.ESS), Particles: e.Leg.Particles, Temperatures: e.Leg.Temperatures, Evals: e.Leg.Evals},
		Method: "stepping stone along the " + sampler + " ladder (forward: ratios from the hotter level's states; backward: from the colder level's), " +
			"annealed importance sampling from the prior to the hottest level; standard errors from the effective sample size of each stage's terms",
	}
	for i := len(e.Stages) - 1; i >= 0; i-- {
		s := e.Stages[i]
		j.Stages = append(j.Stages, EvidenceStageReport{
			Level: i + 1, Beta: s.Beta, BetaColder: s.BetaColder, Size: s.Size, SizeColder: s.SizeColder,
			Forward: Float(s.Forward), ForwardSE: Float(s.ForwardSE), Backward: Float(s.Backward), BackwardSE: Float(s.BackwardSE), Terms: s.Terms,
		})
	}
	return j
}

// NewLOOReport describes a PSIS-LOO estimate.
func NewLOOReport(l *diag.LOO) *LOOReport {
	mk := math.Inf(-1)
	for _, v := range l.K {
		mk = math.Max(mk, v)
	}
	r := &LOOReport{
		ELPD: Float(l.ELPD), SE: Float(l.SE), PLOO: Float(l.PLOO), N: len(l.K), Draws: l.Draws,
		KOver07: l.KOver07, KOver1: l.KOver1, MaxK: Float(mk),
		Method: "PSIS-LOO (Vehtari, Gelman & Gabry 2017) with the GP's closed-form log p(y_i | y_-i, θ) at each draw",
	}
	if len(l.REff) > 0 {
		m := Float(slices.Min(l.REff))
		r.MinREff = &m
		r.Method += ", each point's Pareto tail sized by its draws' relative efficiency (loo's r_eff)"
	}
	return r
}

// dataSHA256 returns the SHA-256, in hexadecimal, of d written as
// gp.WriteCSV writes it (the bytes of a saved fit's FitDataFile), or ""
// if it cannot be written.
// DataSHA256 returns the SHA-256 checksum of d as CSV (gp.WriteCSV), in
// hexadecimal: what Report records as data.sha256.
func DataSHA256(d *gp.Data) string { return dataSHA256(d) }

func dataSHA256(d *gp.Data) string {
	var b bytes.Buffer
	if err := gp.WriteCSV(&b, d); err != nil {
		return ""
	}
	return sha256Hex(b.Bytes())
}
