package subtemper

import (
	"encoding/json"
	"math"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// Float is a float64 that JSON-encodes NaN and ±Inf (which JSON cannot
// represent) as null, as diag.Summary does.
type Float float64

// MarshalJSON writes non-finite values as null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// Report describes a sampling run: the verdict, the settings, each
// variable's diagnostics, per-level statistics, timings and, for a GP
// fit, the data, the warm start and the evidence. It marshals to the
// CLI's summary.json (encoding/json; NaN and ±Inf as null). GPFit.Report
// and NewReport build it; Warnings, PlotError, InterruptedDuring and LOO
// are for the caller to fill (the CLI adds its advice, the figures'
// failures and --loo).
type Report struct {
	// Command names what ran ("gp" for GPFit.Report); Interrupted
	// reports that sampling was cut short and the draws are those made
	// so far.
	Command     string `json:"command"`
	Interrupted bool   `json:"interrupted"`
	// Status says how sampling ended, as tempering.Result.Status in
	// words: "completed" (every draw made), "stopped by the rule" (the
	// --min-ess stop), "interrupted" or "time limit" (a context's
	// deadline, GPOptions.MaxTime's included).
	Status string `json:"status"`
	// InterruptedDuring names the phase after sampling that a Ctrl-C cut
	// short ("prediction": every draw was made, the predictions were
	// not; "figures": every file but some figures was written); empty
	// when sampling itself was interrupted, or nothing was.
	InterruptedDuring string `json:"interrupted_during,omitempty"`
	// Converged is the verdict of current practice (Vehtari et al. 2021):
	// every variable's R-hat < 1.01 and bulk- and tail-ESS ≥ 100 per
	// chain. ConvergedPaper is the paper's criterion, median R-hat < 1.1.
	Converged      bool   `json:"converged"`
	ConvergedPaper bool   `json:"converged_paper"`
	Verdict        string `json:"verdict"`
	// Warnings are problems the verdict alone does not show (divergent
	// trajectories, chains that never moved, ...), one sentence each.
	Warnings []string `json:"warnings"`
	// Settings describe the sampler's settings (as GPFit.Save records
	// them); the CLI replaces them by every flag's value, given or default.
	Settings map[string]any `json:"settings"`
	// WarmStart describes the search for the posterior mode that the
	// chains started from (--warm-start); absent without one.
	WarmStart *WarmStartReport `json:"warm_start,omitempty"`
	// StoppedByMaxTime reports that GPOptions.MaxTime (--max-time) ended sampling.
	StoppedByMaxTime bool   `json:"stopped_by_max_time,omitempty"`
	Seed             uint64 `json:"seed"`
	Backend          string `json:"backend"`
	// BLASThreads is the number of OpenBLAS threads (openblas backend only).
	BLASThreads int    `json:"openblas_threads,omitempty"`
	Sampler     string `json:"sampler"`
	Inner       string `json:"inner"`
	// Hot is the kernel of the levels above the target ("mh", "hmc",
	// "nuts"; the inner kernel with --hot same); absent without tempering.
	Hot string `json:"hot,omitempty"`
	// Hot levels' MH proposals per transition (--mh-steps), when Hot is mh.
	HotMHSteps int `json:"hot_mh_steps,omitempty"`
	// Adapt is what warm-up tuned ("diag", "dense", "step" or "none"),
	// towards TargetAccept in hmc and nuts (mh aims at 0.3 and adapts a
	// diagonal proposal sd with diag or dense).
	Adapt        string  `json:"adapt"`
	TargetAccept float64 `json:"target_accept,omitempty"`
	// Tuning holds each level's adapted step size and inverse metric,
	// per chain (frozen since the end of warm-up).
	Tuning []TuningReport `json:"tuning,omitempty"`
	Units  string         `json:"units"`
	Data   map[string]any `json:"data"`

	// Importance describes an importance-sampled fit's weighted sample
	// (sampler "importance"); absent for chains.
	Importance *ImportanceReport `json:"importance,omitempty"`

	Ladder  LadderReport  `json:"ladder"`
	Draws   DrawsReport   `json:"draws"`
	Timings TimingsReport `json:"timings"`

	MaxRhat                Float            `json:"max_rhat"`
	MinESSBulk             Float            `json:"min_ess_bulk"`
	MinESSTail             Float            `json:"min_ess_tail"`
	MedianRhat             Float            `json:"median_rhat"`
	MedianRhatPaper        Float            `json:"median_rhat_paper"`
	MedianESSBulk          Float            `json:"median_ess_bulk"`
	MedianESSBulkPerSecond Float            `json:"median_ess_bulk_per_second"`
	Variables              []VariableReport `json:"variables"`

	Levels     []LevelReport `json:"levels"`
	Swaps      []SwapReport  `json:"swaps"`
	TT         *TTReport     `json:"tempered_transitions,omitempty"`
	RoundTrips int64         `json:"round_trips"`
	Failed     int64         `json:"failed_evaluations"`
	// Divergent counts the divergent transitions after warm-up, as the
	// level table and the warnings do; DivergentWarmup those of warm-up,
	// which adaptation causes and discards.
	Divergent       int64 `json:"divergent_transitions"`
	DivergentWarmup int64 `json:"divergent_transitions_warmup"`
	// EBFMI is each chain's E-BFMI (diag.EBFMI) of the target level's
	// Hamiltonian energies at its draws, when that level's kernel is hmc
	// or nuts (absent otherwise); below diag.EBFMIMin (0.3), Stan's
	// threshold, the momentum resampling explores the energy
	// distribution poorly. With pt and spt, swaps into the target level
	// between its transitions move the energy too (tempering.Result.Energy).
	EBFMI []Float `json:"e_bfmi,omitempty"`
	// StuckChains lists the chains (from 1) whose kept draws are all the
	// same point: every proposal after warm-up was rejected.
	StuckChains []int  `json:"stuck_chains,omitempty"`
	PlotError   string `json:"plot_error,omitempty"`
	// Evidence and LOO are the gp command's --evidence and --loo.
	Evidence *EvidenceReport `json:"evidence,omitempty"`
	LOO      *LOOReport      `json:"loo,omitempty"`

	// ResumedFrom describes the checkpoint the run went on from
	// (tempering.Control.Resume); absent for a run made in one go.
	ResumedFrom *ResumeReport `json:"resumed_from,omitempty"`
}

// LadderReport is the ladder sampled with and how it communicated.
type LadderReport struct {
	Betas       []float64 `json:"betas"`
	SubsetSizes []int     `json:"subset_sizes"`
	// Adaptive reports that warm-up placed the levels (in Rounds rounds).
	Adaptive bool `json:"adaptive"`
	Rounds   int  `json:"rounds,omitempty"`
	// Barrier is the global communication barrier Λ = Σ_m (1 − a_m)
	// estimated from the sampling phase's swap rates a_m (pt, spt);
	// WarmupBarrier the last adaptation round's estimate (for tt and stt:
	// Σ_m sd of the levels' log-ratio terms).
	Barrier       Float `json:"barrier"`
	WarmupBarrier Float `json:"warmup_barrier"`
	// SwapRates (pt, spt) and TTRate (tt, stt) are the sampling phase's
	// acceptance rates; RoundTrips and RoundTripsPerSecond the sampling
	// phase's round trips, per second of one chain's wall time.
	SwapRates           []float64 `json:"swap_rates,omitempty"`
	TTRate              Float     `json:"tt_rate,omitempty"`
	RoundTrips          int64     `json:"round_trips"`
	RoundTripsPerSecond Float     `json:"round_trips_per_second"`
}

// TuningReport is one level's adapted kernel, per chain.
type TuningReport struct {
	Level     int         `json:"level"`
	StepSize  []float64   `json:"step_size"`
	InvMetric [][]float64 `json:"inv_metric_diagonal,omitempty"`
}

// DrawsReport counts the draws.
type DrawsReport struct {
	Warmup     int   `json:"warmup"`
	Requested  int   `json:"requested_per_chain"`
	Thin       int   `json:"thin"`
	PerChain   []int `json:"per_chain"`
	Summarized int   `json:"summarized_per_chain"`
	// MinESS is --min-ess, the stop rule's target (0: no early stop; the
	// verdict's criterion is diag.ESSPerChainMin per chain whatever it
	// is), and StoppedAt the draws per chain after which its rule ended
	// sampling (0: it did not).
	MinESS    float64 `json:"min_ess"`
	StoppedAt int     `json:"stopped_at_per_chain,omitempty"`
	Note      string  `json:"note,omitempty"`
}

// TimingsReport holds the run's times.
type TimingsReport struct {
	WallSeconds  float64   `json:"wall_seconds"`
	ChainSeconds []float64 `json:"chain_seconds"` // each chain's wall time, warm-up included
	// ChainCPUSeconds is each chain's CPU time, warm-up included: its own
	// thread's, scaled up by the process's CPU time beyond the chains'
	// threads (BLAS helper threads, garbage collection). It equals
	// ChainSeconds where the CPU time cannot be read.
	ChainCPUSeconds     []float64 `json:"chain_cpu_seconds"`
	MeanChainCPUSeconds float64   `json:"mean_chain_cpu_seconds"`
	// TotalChainCPUSeconds is the sum of ChainCPUSeconds: every ESS per
	// second divides by it (ESSPerSecond says so).
	TotalChainCPUSeconds float64 `json:"total_chain_cpu_seconds"`
	ProcessCPUSeconds    float64 `json:"process_cpu_seconds,omitempty"`
	ESSPerSecond         string  `json:"ess_per_second_is"`
}

// LevelReport is one level's statistics over the run.
type LevelReport struct {
	Level       int     `json:"level"`
	Beta        float64 `json:"beta"`
	SubsetSize  int     `json:"subset_size"`
	Transitions int64   `json:"transitions"`
	Accepted    int64   `json:"accepted"`
	AcceptRate  Float   `json:"accept_rate"`
	Evals       int64   `json:"evals"`
	EvalsGrad   int64   `json:"evals_grad"`
	// PrefixReuses counts values taken free from an evaluation on a
	// colder level's subset (SPT, STT; see tempering.PrefixLiker).
	PrefixReuses int64 `json:"prefix_reuses"`
	// GradResumes counts gradients completed from the evaluation without
	// gradient before them (SPT with HMC; see tempering.GradResumer), not
	// counted in EvalsGrad.
	GradResumes int64 `json:"grad_resumes"`
	Failed      int64 `json:"failed"`
	Invalid     int64 `json:"invalid"`
	// Divergent counts the divergent transitions after warm-up (as
	// everywhere else), DivergentWarmup those of warm-up.
	Divergent       int64 `json:"divergent"`
	DivergentWarmup int64 `json:"divergent_warmup"`
	// SamplingAccept is the sampling phase's mean acceptance statistic
	// (what the step size was adapted for); LeapfrogSteps and
	// MaxTreeDepthHits (hmc, nuts) count the leapfrog steps and the nuts
	// trajectories stopped at --max-depth over the whole run.
	SamplingAccept   Float `json:"sampling_accept"`
	LeapfrogSteps    int64 `json:"leapfrog_steps"`
	MaxTreeDepthHits int64 `json:"max_tree_depth_hits"`
}

// SwapReport counts the swaps between two adjacent levels.
type SwapReport struct {
	Levels   [2]int `json:"levels"`
	Proposed int64  `json:"proposed"`
	Accepted int64  `json:"accepted"`
	Rate     Float  `json:"rate"`
}

// TTReport counts the tempered transitions (tt, stt).
type TTReport struct {
	Proposed int64 `json:"proposed"`
	Accepted int64 `json:"accepted"`
	Aborted  int64 `json:"aborted"`
	Rate     Float `json:"rate"`
}

// VariableReport is one variable's diagnostics: diag.Summary's fields plus
// bulk-ESS per second.
type VariableReport struct {
	Name             string `json:"name"`
	Mean             Float  `json:"mean"`
	Median           Float  `json:"median"`
	SD               Float  `json:"sd"`
	MAD              Float  `json:"mad"`
	Q5               Float  `json:"q5"`
	Q95              Float  `json:"q95"`
	Rhat             Float  `json:"rhat"`
	RhatBulk         Float  `json:"rhat_bulk"`
	RhatTail         Float  `json:"rhat_tail"`
	ESSBulk          Float  `json:"ess_bulk"`
	ESSTail          Float  `json:"ess_tail"`
	ESSMean          Float  `json:"ess_mean"`
	MCSEMean         Float  `json:"mcse_mean"`
	RhatPaper        Float  `json:"rhat_paper"`
	ESSPaper         Float  `json:"ess_paper"`
	ESSBulkPerSecond Float  `json:"ess_bulk_per_second,omitzero"`
}

func newVariableReport(d diag.Summary) VariableReport {
	return VariableReport{
		Name: d.Name, Mean: Float(d.Mean), Median: Float(d.Median), SD: Float(d.SD), MAD: Float(d.MAD),
		Q5: Float(d.Q5), Q95: Float(d.Q95), Rhat: Float(d.Rhat), RhatBulk: Float(d.RhatBulk), RhatTail: Float(d.RhatTail),
		ESSBulk: Float(d.ESSBulk), ESSTail: Float(d.ESSTail), ESSMean: Float(d.ESSMean), MCSEMean: Float(d.MCSEMean),
		RhatPaper: Float(d.RhatPaper), ESSPaper: Float(d.ESSPaper),
	}
}

// EvidenceReport is summary.json's "evidence", in the data's units.
type EvidenceReport struct {
	// LogZ is the forward stepping-stone estimate of log p(y) and SE its
	// Monte Carlo standard error; Backward and BackwardSE the backward
	// one (biased the other way: their gap shows the ladder's bias).
	LogZ       Float `json:"log_z"`
	SE         Float `json:"se"`
	Backward   Float `json:"backward"`
	BackwardSE Float `json:"backward_se"`
	// ChainSD is the standard deviation of the chains' estimates.
	ChainSD Float `json:"chain_sd"`
	// Leg is the annealed importance sampling from the prior to the
	// hottest level (log Z_M), Stages the stages from the hottest level
	// down to the target.
	Leg    EvidenceLegReport     `json:"leg"`
	Stages []EvidenceStageReport `json:"stages"`
	Method string                `json:"method"`
}

// EvidenceLegReport is the annealed importance sampling from the prior
// to the hottest level.
type EvidenceLegReport struct {
	LogZ         Float `json:"log_z"`
	SE           Float `json:"se"`
	ESS          Float `json:"ess"`
	Particles    int   `json:"particles"`
	Temperatures int   `json:"temperatures"`
	Evals        int64 `json:"evaluations"`
}

// EvidenceStageReport is one stage log Z_{m−1}/Z_m: for spt, log p(y of the
// observations added | y of the hotter level's subset), a point of the
// learning curve.
type EvidenceStageReport struct {
	Level      int     `json:"level"`
	Beta       float64 `json:"beta"`
	BetaColder float64 `json:"beta_colder"`
	Size       int     `json:"n_m"`
	SizeColder int     `json:"n_colder"`
	Forward    Float   `json:"forward"`
	ForwardSE  Float   `json:"forward_se"`
	Backward   Float   `json:"backward"`
	BackwardSE Float   `json:"backward_se"`
	Terms      int     `json:"terms"`
}

// LOOReport is summary.json's "loo".
type LOOReport struct {
	ELPD    Float `json:"elpd_loo"`
	SE      Float `json:"se"`
	PLOO    Float `json:"p_loo"`
	N       int   `json:"n"`
	Draws   int   `json:"draws"`
	KOver07 int   `json:"k_over_0_7"`
	KOver1  int   `json:"k_over_1"`
	MaxK    Float `json:"max_k"`
	// MinREff is the smallest relative efficiency of a point's draws
	// (diag.RelativeEff), which sized its PSIS tail; absent for
	// independent draws.
	MinREff *Float `json:"min_r_eff,omitempty"`
	File    string `json:"file,omitempty"`
	Method  string `json:"method"`
}

// WarmStartReport describes the search for the posterior mode that the
// chains started from (tempering.FindMode).
type WarmStartReport struct {
	// Stages is the work of each stage of the search; GradEquivalents
	// their gradients (the Laplace step's and the corners' included) in
	// full-data gradients, each stage's priced at (Size/N)³. The
	// proposal's evaluations are Proposal.GradEquivalents.
	Stages          []tempering.StageWork `json:"stages"`
	GradEquivalents float64               `json:"grad_equivalents"`
	Modes           int                   `json:"modes"`
	Mode            []float64             `json:"mode_u"`
	LaplaceSD       []float64             `json:"laplace_sd_u"`
	LogPost         float64               `json:"log_posterior"`
	SecondsPerGrad  float64               `json:"seconds_per_full_gradient"`
	GradsAtOnce     int                   `json:"gradients_at_once"`
	WallSeconds     float64               `json:"wall_seconds"`
	CPUSeconds      float64               `json:"cpu_seconds"`
	EstimateSeconds float64               `json:"estimated_sampling_seconds"`
	// NonGaussian names the parameters along which the log density
	// falls very unequally at ∓2 Laplace sd (tempering.WarmStart.Drops).
	NonGaussian []string `json:"non_gaussian"`
	// Corners is the number of Gaussian approximations fitted away from
	// the mode along those parameters (tempering.WarmStart.Corners).
	Corners int `json:"corners"`
	// Proposal describes the independence proposal fitted by importance
	// sampling (absent when none was fitted).
	Proposal *ProposalReport `json:"proposal,omitempty"`
}

// ProposalReport describes the independence proposal a warm start fitted
// (tempering.Proposal).
type ProposalReport struct {
	Rounds         []tempering.ProposalRound `json:"rounds"`
	ImportanceESS  float64                   `json:"importance_ess"`
	SecondsPerEval float64                   `json:"seconds_per_full_evaluation"`
	EvalsAtOnce    int                       `json:"evaluations_at_once"`
	// GradEquivalents is the fit's full-data log densities (its rounds'
	// draws and the evaluations that set its split and space) in
	// full-data gradients, each priced at SecondsPerEval over the warm
	// start's measured seconds per gradient (0 where either is unknown).
	GradEquivalents float64 `json:"grad_equivalents"`
	// EvalsPerIteration is the expected number of full-data log densities
	// per chain per iteration of sampling: 1 + Local without a screen,
	// fewer with one (tempering.Independence.EvalsPerTransition); 0 where
	// not estimated.
	EvalsPerIteration float64 `json:"evaluations_per_iteration,omitempty"`
	// Used says whether sampling used it: importance sampling drew from
	// it, or the chains did (its importance ESS reached MinProposalESS
	// and the kernel was not kept from the settings).
	Used bool `json:"used"`
}

// ResumeReport is Report.ResumedFrom: the iteration of every chain at
// which the checkpoint was taken, the draws per chain it held, and the
// draws per chain of the run that took it (fewer than the run's Draws
// when the run extended a completed one).
type ResumeReport struct {
	Iteration int `json:"iteration"`
	Draws     int `json:"draws"`
	RunDraws  int `json:"run_draws"`
}

// ImportanceReport describes the weighted sample of an importance-sampled
// fit (GPFit.Weighted).
type ImportanceReport struct {
	// Draws is the number of weighted draws; Reused those the proposal's
	// fit drew; Proposals the number of proposals the others came from;
	// Failed the evaluations that failed (left out).
	Draws     int `json:"draws"`
	Reused    int `json:"reused"`
	Proposals int `json:"proposals"`
	Failed    int `json:"failed"`
	// Climbs is the number of climbs from heavy draws to a local mode and
	// ModesFound the modes in u they found that the warm start's search
	// missed, whose Laplace approximations joined the proposals.
	Climbs     int         `json:"climbs"`
	ModesFound [][]float64 `json:"modes_found_u"`
	// ClimbGradients is the climbs' full-data log densities with
	// gradient; GradEquivalents the sampling's work in full-data
	// gradients: its fresh draws' log densities (not Reused, whose work
	// is the proposal's) priced as the proposal's are
	// (ProposalReport.GradEquivalents), and the climbs' gradients (0
	// where the prices are unknown).
	ClimbGradients  int     `json:"climb_gradients"`
	GradEquivalents float64 `json:"grad_equivalents"`
	// ParetoK is the Pareto k̂ of the raw log weights, trusted up to
	// ParetoKMax; ESS the weights' (Σw)²/Σw²; Needed the ESS each
	// hyperparameter's mean and tails needed.
	ParetoK    Float   `json:"pareto_k"`
	ParetoKMax float64 `json:"pareto_k_max"`
	ESS        Float   `json:"ess"`
	Needed     float64 `json:"ess_needed"`
}
