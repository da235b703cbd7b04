package subtemper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// ImportanceMode says whether FitGP samples by importance sampling from
// the warm start's fitted proposal (tempering.ImportanceSample) rather
// than by running chains. Its stop rule (every ESS and the Pareto k̂)
// cannot see posterior mass that every proposal misses: on a posterior
// where one hyperparameter's spread grows in a corner of another's
// range, the proposal fitted around the mode stopped with that
// hyperparameter's mean 5 to 7 standard errors off. Where the warm start
// finds a parameter non-Gaussian it fits Gaussians away from the mode
// along it (tempering.WarmStart.Corners), which every proposal then
// mixes in; on that posterior the estimates were then calibrated, for
// about the same number of draws (docs/LARGE.md). A mode that the warm
// start's search missed shows as heavy weights once a draw lands in it:
// the sampling then climbs from the heaviest draws (ImportanceClimbs)
// and mixes the Laplace approximation at each mode it finds into every
// later proposal. A mode that no draw reaches stays unseen.
type ImportanceMode int

const (
	// ImportanceAuto samples by importance sampling where the warm start
	// runs with the default settings (GPOptions.Settings nil, at least
	// WarmStartMinN observations) and fitted a proposal (at the best
	// mode where it found several, the Laplace approximation at each
	// other then mixed into every proposal:
	// tempering.WarmStartOptions.AllModes); by chains otherwise.
	// Measured (docs/LARGE.md): on the GP at N = 1024–4096, D = 3 and 8,
	// and on 2048 rows of diamonds, it converged for a third to a ninth
	// of the chains' work.
	ImportanceAuto ImportanceMode = iota
	// ImportanceOn samples by importance sampling wherever the warm
	// start (made whatever WarmStart says) fitted a proposal; by chains
	// otherwise, GPFit.ImportanceSkipped saying why.
	ImportanceOn
	// ImportanceOff always runs chains.
	ImportanceOff
)

// WeightedSample is the weighted sample of an importance-sampled fit.
type WeightedSample struct {
	// Draws are the draws of u = log θ (sampling units) and LogWeights
	// their Pareto-smoothed log importance weights, all finite: the
	// draws whose log density could not be evaluated, of weight zero,
	// are left out (Failed counts them).
	Draws      [][]float64
	LogWeights []float64
	// K is the Pareto k̂ of the raw log weights (trusted up to
	// diag.ParetoKMax).
	K float64
	// MinESS is the ESS each parameter's mean and tails needed (the
	// stop rule's: diag.StopRule.MinESS of the settings, else
	// DefaultMinESS).
	MinESS float64
	// Reused is the number of Draws, the first, that the proposal's fit
	// drew and evaluated; Proposals the number of proposals the others
	// came from (the fitted one, then one per refit); Failed the
	// evaluations that failed.
	Reused, Proposals, Failed int
	// Climbs is the number of climbs from heavy draws to a local mode
	// (tempering.ImportanceOptions.Climbs), ClimbEvals the log densities
	// with gradient on all observations they made, and Modes the modes in
	// u they found that the warm start's search missed, whose Laplace
	// approximations joined the proposals.
	Climbs, ClimbEvals int
	Modes              [][]float64
}

// Weights returns the sample's normalised weights (summing to one).
func (w *WeightedSample) Weights() []float64 { return tempering.NormalisedWeights(w.LogWeights) }

// ImportanceProgress is an importance-sampled fit's state after a batch
// (GPOptions.OnBatch).
type ImportanceProgress struct {
	// Draws is the number of weighted draws so far, Fresh those the
	// sampling made (the proposal fit's reused ones not counted), at
	// most MaxDraws.
	Draws, Fresh, MaxDraws int
	// K is the Pareto k̂ of the weights; LeastESS the smallest ESS of a
	// parameter's mean or tails, and Needed what the stop rule asks.
	K, LeastESS, Needed float64
	// Least names the parameter of LeastESS (GPFit.Names) and LeastTail
	// says whether that ESS is of its tails rather than its mean.
	Least     string
	LeastTail bool
	// Proposals is the number of proposals drawn from so far; Modes the
	// number of modes the climbs from heavy draws found so far
	// (WeightedSample.Modes).
	Proposals, Modes int
	// Elapsed is the time since the sampling began; Remaining an
	// estimate of the time to the stop (the ESS grows in proportion to
	// the draws), at most that of MaxDraws.
	Elapsed, Remaining time.Duration
	// Bound says that Remaining is the time of the draws left to
	// MaxDraws, an upper bound rather than an estimate: K is above
	// diag.ParetoKMax or no ESS is seen yet, so the ESS says nothing of
	// when the stop rule will hold.
	Bound bool
}

// remaining estimates the time left after draws weighted draws, fresh
// of them made by the sampling in elapsed, the least ESS least of
// needed: the ESS grows in proportion to the draws (the sampling's
// batches shrink to what that predicts), at most maxDraws fresh ones.
// It reports bound where that most is all it can say (k above
// diag.ParetoKMax, or no ESS).
func remaining(draws, fresh, maxDraws int, least, needed, k float64, elapsed time.Duration) (left time.Duration, bound bool) {
	if fresh <= 0 || least >= needed && k <= diag.ParetoKMax {
		return 0, false
	}
	more := float64(maxDraws - fresh)
	bound = !(least > 0 && k <= diag.ParetoKMax)
	if !bound {
		more = min(more, math.Ceil(float64(draws)*needed/least)-float64(draws))
	}
	return time.Duration(max(0, more) * float64(elapsed) / float64(fresh)), bound
}

// importanceWanted reports whether the options ask for importance
// sampling should the warm start find one mode: its proposal is then
// fitted as a split-t (tempering.ProposalOptions.Split), which measured
// better for the weights (docs/LARGE.md: at N = 1024, D = 8, 977–1 187
// gradient-equivalents per converged fit against 3 480–4 864 from the
// plain t) though worse for the chains.
func (o *GPOptions) importanceWanted() bool {
	return !o.MAP && (o.Importance == ImportanceOn || o.Importance == ImportanceAuto && o.Settings == nil)
}

// importanceReason says why a fit with opt and warm start ws is sampled
// by chains rather than by importance sampling ("" if it is not).
func (o *GPOptions) importanceReason(ws *tempering.WarmStart) string {
	switch {
	case o.Importance == ImportanceOff:
		return "importance sampling is off"
	case o.MAP:
		return "the fit is of the mode alone"
	case ws == nil:
		return "no warm start was made"
	case o.Importance == ImportanceAuto && o.Settings != nil:
		return "the settings were given"
	case ws.Proposal == nil && !ws.Unimodal():
		return fmt.Sprintf("the warm start found %d modes and fitted no proposal; chains with tempering sample them", ws.Modes)
	case ws.Proposal == nil:
		return "the warm start fitted no proposal"
	}
	return ""
}

// fitImportance samples the fit by importance sampling from its warm
// start's proposal (tempering.ImportanceSample, reusing the proposal
// fit's draws and refitting after each batch) under sctx (ctx with
// MaxTime's limit), as FitGP returns it.
func (f *GPFit) fitImportance(ctx, sctx context.Context, t *gp.Model, st tempering.Settings, opt GPOptions, start time.Time) (*GPFit, error) {
	p := f.Mode.Proposal
	need := float64(DefaultMinESS)
	if rule, ok := st.Stop.(diag.StopRule); ok && rule.MinESS > 0 {
		need = rule.MinESS
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU()))
	pinThreads(f.Backend, max(1, runtime.NumCPU()/workers))
	f.Settings = st
	f.Weighted = &WeightedSample{MinESS: need}
	if opt.BeforeSampling != nil {
		opt.BeforeSampling(f, &st)
		f.Settings = st
	}
	io := tempering.ImportanceOptions{Seed: st.Seed, MinESS: need, Workers: workers, Reuse: p, Adapt: true, Batch: ImportanceBatch,
		Mixture: ImportanceRefits(f.Mode), Corners: f.Mode.Corners, Climbs: ImportanceClimbs, Mode: f.Mode.Mode,
		// The stop rule asks of θ's means the ESS the verdict asks
		// (weightedSummary); u's alone let a fit stop unconverged.
		Reported: f.natural}
	io.MaxDraws = ImportanceMaxDraws
	began := time.Now()
	if opt.OnBatch != nil {
		names := f.Names()
		io.Batched = func(r *tempering.ImportanceResult) {
			fresh, el, minESS := len(r.Draws)-r.Reused, time.Since(began), r.MinESS()
			param, tail := r.Least()
			left, bound := remaining(len(r.Draws), fresh, io.MaxDraws, minESS, need, r.K, el)
			opt.OnBatch(ImportanceProgress{Draws: len(r.Draws), Fresh: fresh, MaxDraws: io.MaxDraws, K: r.K, LeastESS: minESS,
				Needed: need, Least: names[param], LeastTail: tail, Proposals: r.Components, Modes: len(r.Modes), Elapsed: el,
				Remaining: left, Bound: bound})
		}
	}
	cpu0, cpuOK := tempering.ProcessCPU()
	res, err := tempering.ImportanceSample(sctx, t, IndependenceKernel(p), p.Transform, io)
	f.Wall = time.Since(start)
	if cpu1, ok := tempering.ProcessCPU(); ok && cpuOK {
		f.SamplingCPU = cpu1 - cpu0
	}
	timedOut := ctx.Err() == nil && errors.Is(context.Cause(sctx), ErrMaxTime)
	switch {
	case err != nil && sctx.Err() == nil:
		f.Close()
		return nil, fmt.Errorf("subtemper: importance sampling: %w", err)
	case res == nil && timedOut:
		f.Close()
		return nil, fmt.Errorf("subtemper: the maximum time was reached before the first batch of importance sampling: %w", ErrMaxTime)
	case res == nil:
		f.Close()
		return nil, fmt.Errorf("subtemper: importance sampling interrupted before its first batch: %w", context.Cause(ctx))
	}
	f.adoptWeighted(res, time.Since(began), f.SamplingCPU)
	switch {
	case timedOut:
		f.StoppedByMaxTime, f.Result.Status = true, tempering.StatusTimeLimit
	case err != nil:
		f.Result.Status, f.Result.Interrupted = tempering.StatusInterrupted, true
		return f, fmt.Errorf("subtemper: importance sampling interrupted with %d weighted draws (the fit holds them): %w", len(f.Weighted.Draws), context.Cause(ctx))
	}
	return f, nil
}

// ImportanceBatch is the most draws between two checks of an
// importance-sampled fit's stop rule (tempering.ImportanceOptions.Batch;
// a batch is shorter where the ESS predicts fewer are left): batches of
// 250 throughout saved work at D = 3 but not at D = 8 (docs/LARGE.md).
const ImportanceBatch = 500

// ImportanceMixture is the number of t's in each refit of an
// importance-sampled fit's proposal (tempering.ImportanceOptions.Mixture),
// beside the kernel's own and the single refitted split-t: a posterior along a
// bent ridge that one t fits poorly (a length scale the data barely fix)
// is followed by several. On 2048 rows of diamonds five needed 2 500–3 000
// fresh draws, three 3 500 and the single t 4 000 (docs/LARGE.md).
// Where the warm start found corners (tempering.WarmStart.Corners, mixed
// into every proposal) each refit is the single split-t instead: on a
// posterior with a corner the mixture's refits, corners and all, still
// stopped with the bending parameter's mean 2.3 standard errors off (root
// mean square over 200 seeds) where the single split-t's were within
// 1.04 (docs/LARGE.md).
const ImportanceMixture = 5

// ImportanceRefits returns the number of t's in each refit of an
// importance-sampled fit from the warm start ws
// (tempering.ImportanceOptions.Mixture): ImportanceMixture, or 1 where ws
// found corners (tempering.WarmStart.Corners).
func ImportanceRefits(ws *tempering.WarmStart) int {
	if len(ws.Corners) > 0 {
		return 1
	}
	return ImportanceMixture
}

// ImportanceClimbs is the most climbs from heavy draws to a local mode
// that an importance-sampled fit makes (tempering.ImportanceOptions.Climbs):
// two rounds of two. On diamonds at N_train = 4096 the warm start's
// search found one mode of two about as high (their log densities 0.18
// apart, the straight path between them 2.35 below the lower); its
// proposal missed the other, and the fit had not converged after 38
// minutes of sampling (k̂ 0.83 at the stop). With the climbs it converged
// after 2 000–3 000 fresh draws; where they find nothing (diamonds at
// N_train = 2048, 4 climbs) they cost 3% of the fit (docs/LARGE.md).
const ImportanceClimbs = 4

// ImportanceMaxDraws is the most draws an importance-sampled fit makes
// (tempering.ImportanceOptions.MaxDraws; the proposal fit's reused draws
// not counted).
const ImportanceMaxDraws = 20000

// adoptWeighted makes res the fit's sample: Weighted holds its draws of
// finite weight, Draws as many draws resampled from them (systematic
// resampling, seeded by the settings' seed) in one chain, and Result a
// result that holds those with how sampling ended, its wall and CPU time.
func (f *GPFit) adoptWeighted(res *tempering.ImportanceResult, wall, cpu time.Duration) {
	ws := f.Weighted
	ws.K, ws.Failed, ws.Proposals = res.K, res.Failed, res.Components
	ws.Climbs, ws.ClimbEvals, ws.Modes = res.Climbs, res.ClimbEvals, res.Modes
	for i, lw := range res.LogWeights {
		if math.IsInf(lw, -1) {
			continue
		}
		if i < res.Reused {
			ws.Reused++
		}
		ws.Draws = append(ws.Draws, res.Draws[i])
		ws.LogWeights = append(ws.LogWeights, lw)
	}
	f.Draws = [][][]float64{ws.resample(f.Settings.Seed, len(ws.Draws))}
	f.Result = &tempering.Result{Draws: f.Draws, Status: tempering.StatusCompleted,
		ChainTimes: []time.Duration{wall}, ChainCPU: []time.Duration{cpu}}
	if res.Converged {
		f.Result.Status, f.Result.StoppedAt = tempering.StatusStopped, len(ws.Draws)
	}
}

// resample returns m draws of the sample by systematic resampling, seeded
// by seed.
func (w *WeightedSample) resample(seed uint64, m int) [][]float64 {
	r := tempering.ImportanceResult{Draws: w.Draws, LogWeights: w.LogWeights}
	return r.Resample(rand.New(rand.NewPCG(seed, 0x5e5a)), m)
}

// weightedTheta returns the weighted sample's draws in natural units θ =
// exp(u), in the data's units: [draw][parameter].
func (f *GPFit) weightedTheta() [][]float64 {
	th := make([][]float64, len(f.Weighted.Draws))
	for i, u := range f.Weighted.Draws {
		th[i] = make([]float64, len(u))
		f.natural(th[i], u)
	}
	return th
}

// weightedSummary returns each hyperparameter's weighted summary
// (diag.SummarizeWeighted) in natural units, in the data's units.
func (f *GPFit) weightedSummary() ([]diag.Summary, error) {
	ws := f.Weighted
	if len(ws.Draws) == 0 {
		return nil, errors.New("subtemper: the fit holds no draws")
	}
	w := ws.Weights()
	th := f.weightedTheta()
	names := f.Names()
	out := make([]diag.Summary, len(names))
	x := make([]float64, len(th))
	for v, name := range names {
		for i := range th {
			x[i] = th[i][v]
		}
		sm, err := diag.SummarizeWeighted(name, x, w)
		if err != nil {
			return nil, err
		}
		out[v] = sm
	}
	return out, nil
}
