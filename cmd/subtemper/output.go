package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/netcdf"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/tempering"
)

// num is a float64 that JSON-encodes NaN and ±Inf (which JSON cannot
// represent) as null, as diag.Summary does.
type num float64

// MarshalJSON writes non-finite values as null.
func (f num) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// runSummary is summary.json.
type runSummary struct {
	Command     string `json:"command"`
	Interrupted bool   `json:"interrupted"`
	// InterruptedDuring names the phase after sampling that a Ctrl-C cut
	// short ("prediction": every draw was made, the predictions were
	// not); empty when sampling itself was interrupted, or nothing was.
	InterruptedDuring string `json:"interrupted_during,omitempty"`
	// Converged is the verdict of current practice (Vehtari et al. 2021):
	// every variable's R-hat < 1.01 and bulk- and tail-ESS ≥ 100 per
	// chain. ConvergedPaper is the paper's criterion, median R-hat < 1.1.
	Converged      bool   `json:"converged"`
	ConvergedPaper bool   `json:"converged_paper"`
	Verdict        string `json:"verdict"`
	// Warnings are problems the verdict alone does not show (divergent
	// trajectories, chains that never moved, ...), one sentence each.
	Warnings []string       `json:"warnings"`
	Settings map[string]any `json:"settings"` // every flag's value, given or default
	// WarmStart describes the search for the posterior mode that the
	// chains started from (--warm-start); absent without one.
	WarmStart *warmInfo `json:"warm_start,omitempty"`
	// StoppedByMaxTime reports that --max-time ended sampling.
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
	Tuning []tuningJSON   `json:"tuning,omitempty"`
	Units  string         `json:"units"`
	Data   map[string]any `json:"data"`

	Ladder  ladderJSON  `json:"ladder"`
	Draws   drawsJSON   `json:"draws"`
	Timings timingsJSON `json:"timings"`

	MaxRhat                num            `json:"max_rhat"`
	MinESSBulk             num            `json:"min_ess_bulk"`
	MinESSTail             num            `json:"min_ess_tail"`
	MedianRhat             num            `json:"median_rhat"`
	MedianRhatPaper        num            `json:"median_rhat_paper"`
	MedianESSBulk          num            `json:"median_ess_bulk"`
	MedianESSBulkPerSecond num            `json:"median_ess_bulk_per_second"`
	Variables              []variableJSON `json:"variables"`

	Levels     []levelJSON `json:"levels"`
	Swaps      []swapJSON  `json:"swaps"`
	TT         *ttJSON     `json:"tempered_transitions,omitempty"`
	RoundTrips int64       `json:"round_trips"`
	Failed     int64       `json:"failed_evaluations"`
	// Divergent counts the divergent transitions after warm-up, as the
	// level table and the warnings do; DivergentWarmup those of warm-up,
	// which adaptation causes and discards.
	Divergent       int64 `json:"divergent_transitions"`
	DivergentWarmup int64 `json:"divergent_transitions_warmup"`
	// StuckChains lists the chains (from 1) whose kept draws are all the
	// same point: every proposal after warm-up was rejected.
	StuckChains []int  `json:"stuck_chains,omitempty"`
	PlotError   string `json:"plot_error,omitempty"`
	// Evidence and LOO are the gp command's --evidence and --loo.
	Evidence *evidenceJSON `json:"evidence,omitempty"`
	LOO      *looJSON      `json:"loo,omitempty"`
}

type ladderJSON struct {
	Betas       []float64 `json:"betas"`
	SubsetSizes []int     `json:"subset_sizes"`
	// Adaptive reports that warm-up placed the levels (in Rounds rounds).
	Adaptive bool `json:"adaptive"`
	Rounds   int  `json:"rounds,omitempty"`
	// Barrier is the global communication barrier Λ = Σ_m (1 − a_m)
	// estimated from the sampling phase's swap rates a_m (pt, spt);
	// WarmupBarrier the last adaptation round's estimate (for tt and stt:
	// Σ_m sd of the levels' log-ratio terms).
	Barrier       num `json:"barrier"`
	WarmupBarrier num `json:"warmup_barrier"`
	// SwapRates (pt, spt) and TTRate (tt, stt) are the sampling phase's
	// acceptance rates; RoundTrips and RoundTripsPerSecond the sampling
	// phase's round trips, per second of one chain's wall time.
	SwapRates           []float64 `json:"swap_rates,omitempty"`
	TTRate              num       `json:"tt_rate,omitempty"`
	RoundTrips          int64     `json:"round_trips"`
	RoundTripsPerSecond num       `json:"round_trips_per_second"`
}

// tuningJSON is one level's adapted kernel, per chain.
type tuningJSON struct {
	Level     int         `json:"level"`
	StepSize  []float64   `json:"step_size"`
	InvMetric [][]float64 `json:"inv_metric_diagonal,omitempty"`
}

type drawsJSON struct {
	Warmup     int   `json:"warmup"`
	Requested  int   `json:"requested_per_chain"`
	Thin       int   `json:"thin"`
	PerChain   []int `json:"per_chain"`
	Summarized int   `json:"summarized_per_chain"`
	// MinESS is --min-ess (0: no early stop) and StoppedAt the draws per
	// chain after which its rule ended sampling (0: it did not).
	MinESS    float64 `json:"min_ess"`
	StoppedAt int     `json:"stopped_at_per_chain,omitempty"`
	Note      string  `json:"note,omitempty"`
}

type timingsJSON struct {
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

type levelJSON struct {
	Level       int     `json:"level"`
	Beta        float64 `json:"beta"`
	SubsetSize  int     `json:"subset_size"`
	Transitions int64   `json:"transitions"`
	Accepted    int64   `json:"accepted"`
	AcceptRate  num     `json:"accept_rate"`
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
	SamplingAccept   num   `json:"sampling_accept"`
	LeapfrogSteps    int64 `json:"leapfrog_steps"`
	MaxTreeDepthHits int64 `json:"max_tree_depth_hits"`
}

type swapJSON struct {
	Levels   [2]int `json:"levels"`
	Proposed int64  `json:"proposed"`
	Accepted int64  `json:"accepted"`
	Rate     num    `json:"rate"`
}

type ttJSON struct {
	Proposed int64 `json:"proposed"`
	Accepted int64 `json:"accepted"`
	Aborted  int64 `json:"aborted"`
	Rate     num   `json:"rate"`
}

// variableJSON is one variable's diagnostics: diag.Summary's fields plus
// bulk-ESS per second.
type variableJSON struct {
	Name             string `json:"name"`
	Mean             num    `json:"mean"`
	Median           num    `json:"median"`
	SD               num    `json:"sd"`
	MAD              num    `json:"mad"`
	Q5               num    `json:"q5"`
	Q95              num    `json:"q95"`
	Rhat             num    `json:"rhat"`
	RhatBulk         num    `json:"rhat_bulk"`
	RhatTail         num    `json:"rhat_tail"`
	ESSBulk          num    `json:"ess_bulk"`
	ESSTail          num    `json:"ess_tail"`
	ESSMean          num    `json:"ess_mean"`
	MCSEMean         num    `json:"mcse_mean"`
	RhatPaper        num    `json:"rhat_paper"`
	ESSPaper         num    `json:"ess_paper"`
	ESSBulkPerSecond num    `json:"ess_bulk_per_second,omitzero"`
}

func newVariableJSON(d diag.Summary) variableJSON {
	return variableJSON{
		Name: d.Name, Mean: num(d.Mean), Median: num(d.Median), SD: num(d.SD), MAD: num(d.MAD),
		Q5: num(d.Q5), Q95: num(d.Q95), Rhat: num(d.Rhat), RhatBulk: num(d.RhatBulk), RhatTail: num(d.RhatTail),
		ESSBulk: num(d.ESSBulk), ESSTail: num(d.ESSTail), ESSMean: num(d.ESSMean), MCSEMean: num(d.MCSEMean),
		RhatPaper: num(d.RhatPaper), ESSPaper: num(d.ESSPaper),
	}
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONFile writes v as indented JSON to path.
func writeJSONFile(path string, v any) error {
	return fileio.Write(path, func(w *bufio.Writer) error { return writeJSON(w, v) })
}

// drawsHeader are the label columns of draws.csv: the meta-columns of R
// posterior's draws_df, so that posterior::as_draws_df(read.csv(...))
// sees the chains (with plain chain and draw columns it takes them for
// variables and sees one chain).
const drawsHeader = ".chain,.iteration,.draw"

// writeDrawsCSV writes the draws in long form: .chain, .iteration (the
// draw within its chain) and .draw (counting across chains), all from 1,
// then one column per variable. Every draw of every chain is written, also
// when an interrupted run left chains of different lengths.
func writeDrawsCSV(path string, names []string, nat [][][]float64) error {
	return fileio.Write(path, func(w *bufio.Writer) error {
		w.WriteString(drawsHeader)
		for _, n := range names {
			w.WriteByte(',')
			w.WriteString(csvField(n))
		}
		w.WriteByte('\n')
		buf := make([]byte, 0, 32)
		total := 0
		for c, ch := range nat {
			for s, v := range ch {
				total++
				buf = strconv.AppendInt(buf[:0], int64(c+1), 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, int64(s+1), 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, int64(total), 10)
				w.Write(buf)
				for _, x := range v {
					buf = append(buf[:0], ',')
					buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
					w.Write(buf)
				}
				w.WriteByte('\n')
			}
		}
		return nil
	})
}

// writeDrawsNetCDF writes the draws as netCDF (internal/netcdf): the
// layout of an ArviZ posterior group, dimensions chain and draw, one
// variable per parameter, so that xarray.open_dataset(path) is a Dataset
// ArviZ takes as it is. Chains of unequal length (an interrupted run) are
// cut to the shortest, the draws the diagnostics use.
func writeDrawsNetCDF(path, command string, names []string, nat [][][]float64) error {
	common := 0
	for c, ch := range nat {
		if c == 0 || len(ch) < common {
			common = len(ch)
		}
	}
	cut := make([][][]float64, len(nat))
	for c, ch := range nat {
		cut[c] = ch[:common]
	}
	d := netcdf.Draws{Names: names, Values: cut, Attrs: []netcdf.Attr{
		{Name: "inference_library", Value: "subtemper"},
		{Name: "command", Value: "subtemper " + command},
	}}
	return fileio.Write(path, func(w *bufio.Writer) error { return netcdf.Write(w, d) })
}

// csvField quotes s if CSV needs it, as the readers expect (see
// fileio.CSVField).
func csvField(s string) string { return fileio.CSVField(s) }

// notAvailable is what the tables print for a value that the JSON output
// writes as null: one that is NaN or ±Inf (see num).
const notAvailable = "NA"

// fmtFloat formats a value for a table as strconv.FormatFloat does, or NA
// where the JSON has null (NaN, ±Inf).
func fmtFloat(v float64, format byte, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return notAvailable
	}
	return strconv.FormatFloat(v, format, prec, 64)
}

// fmtNum formats a value for a table with 4 significant digits.
func fmtNum(v float64) string { return fmtFloat(v, 'g', 4) }

// fmtRhat formats an R-hat with 3 decimals, or as many more as it takes
// for a value below diag.RhatMax not to print as it (1.00993 as 1.0099,
// not 1.010): the verdict and the numbers beside it must agree.
func fmtRhat(v float64) string {
	for prec := 3; ; prec++ {
		s := fmtFloat(v, 'f', prec)
		if r, err := strconv.ParseFloat(s, 64); prec == 6 || err != nil || !(v < diag.RhatMax && r >= diag.RhatMax) {
			return s
		}
	}
}

// fmtESS formats an ESS rounded down, so that one below the verdict's
// threshold never prints as the threshold (399.6 as 399).
func fmtESS(v float64) string { return fmtFloat(math.Floor(v), 'f', 0) }

func fmtRate(v num) string {
	if math.IsNaN(float64(v)) {
		return "-"
	}
	return strconv.FormatFloat(float64(v), 'f', 3, 64)
}

// essPerSecondIs defines ESS per second wherever it is given: in
// summary.json (timings.ess_per_second_is) and under the printed table.
const essPerSecondIs = "bulk-ESS of all chains / CPU-seconds of all chains, warm-up included (total_chain_cpu_seconds)"

// printSummaryTable prints the posterior::summarise_draws-like table, with
// the paper's R-hat and ESS and (if perSec) bulk-ESS per second.
func printSummaryTable(w io.Writer, vars []variableJSON, perSec bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := "variable\tmean\tmedian\tsd\tmad\tq5\tq95\trhat\tess_bulk\tess_tail\trhat_paper\tess_paper\t"
	if perSec {
		hdr += "ess_bulk/s\t"
	}
	fmt.Fprintln(tw, hdr)
	for _, v := range vars {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", v.Name,
			fmtNum(float64(v.Mean)), fmtNum(float64(v.Median)), fmtNum(float64(v.SD)), fmtNum(float64(v.MAD)),
			fmtNum(float64(v.Q5)), fmtNum(float64(v.Q95)), fmtRhat(float64(v.Rhat)),
			fmtESS(float64(v.ESSBulk)), fmtESS(float64(v.ESSTail)), fmtRhat(float64(v.RhatPaper)), fmtESS(float64(v.ESSPaper)))
		if perSec {
			fmt.Fprintf(tw, "%s\t", fmtNum(float64(v.ESSBulkPerSecond)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// kernelLine describes the inner kernel name ("mh", "hmc", "nuts") as
// the flags configure it, for the header of the printed summary.
func kernelLine(f *samplerFlags, s *runSummary, name string) string {
	var kern string
	switch name {
	case "hmc":
		kern = fmt.Sprintf("HMC L=%d", f.leapfrog)
		if f.hmcLength > 0 {
			kern = fmt.Sprintf("HMC T=%g (L·ε), the Laplace metric", f.hmcLength)
		}
	case "nuts":
		kern = fmt.Sprintf("NUTS max depth %d", f.maxDepth)
	default:
		kern = "MH"
		if f.mhSteps > 1 {
			kern += fmt.Sprintf(" ×%d", f.mhSteps)
		}
		if s.Adapt == "none" {
			return kern + " σ=" + fmtNum(f.mhScale) + " fixed"
		}
		return kern + " adapted"
	}
	if s.Adapt == "none" {
		return kern + fmt.Sprintf(", ε=%s fixed", fmtNum(stepOrPaper(f.stepSize)))
	}
	return kern + fmt.Sprintf(", adapted in warm-up (%s, target %s)", s.Adapt, fmtNum(s.TargetAccept))
}

// printRun prints a run's human-readable summary.
func printRun(w io.Writer, j *job, s *runSummary) {
	f := j.flags
	switch {
	case s.InterruptedDuring != "":
		fmt.Fprintf(w, "*** INTERRUPTED during the %s: every draw was made (%v per chain); see the warnings ***\n\n", s.InterruptedDuring, s.Draws.PerChain)
	case s.Interrupted:
		fmt.Fprintf(w, "*** INTERRUPTED: the run was stopped early; the figures below use the draws made so far (%v per chain) ***\n\n", s.Draws.PerChain)
	}
	kern := kernelLine(f, s, s.Inner)
	if s.Hot != "" {
		kern += " at the target, " + kernelLine(f, s, s.Hot) + " above it"
	}
	drv := strings.ToUpper(s.Sampler)
	if s.Sampler != "none" {
		lad := "fixed"
		if s.Ladder.Adaptive {
			lad = "adaptive"
		}
		drv += fmt.Sprintf(" (%s %s, β* = %s", plural.Count(len(s.Ladder.Betas), "level", "levels"), lad, fmtNum(s.Ladder.Betas[len(s.Ladder.Betas)-1]))
		if s.Sampler == "pt" || s.Sampler == "spt" {
			drv += ", swap " + f.swap
		}
		drv += ")"
	}
	fmt.Fprintf(w, "subtemper %s: %s + %s, %s, warm-up %d, %s (thin %d), seed %d, backend %s\n",
		j.command, drv, kern, plural.Count(f.chains, "chain", "chains"), f.warmup, drawsLine(s.Draws), f.thin, s.Seed, s.Backend)
	fmt.Fprintf(w, "data: %s\n", j.dataLine)
	if n := s.Draws.Summarized; n > 0 {
		fmt.Fprintf(w, "\nposterior summary of %s × %s (%s):\n", plural.Count(len(s.Draws.PerChain), "chain", "chains"), plural.Count(n, "draw", "draws"), j.units)
		printSummaryTable(w, s.Variables, true)
		fmt.Fprintf(w, "\n%s\n", s.Verdict)
		fmt.Fprintf(w, "max R-hat %s, min bulk-ESS %s, min tail-ESS %s; median R-hat %s (the paper's R-hat: %s), median bulk-ESS %s, %s per CPU-second\n",
			fmtRhat(float64(s.MaxRhat)), fmtESS(float64(s.MinESSBulk)), fmtESS(float64(s.MinESSTail)),
			fmtRhat(float64(s.MedianRhat)), fmtRhat(float64(s.MedianRhatPaper)),
			fmtESS(float64(s.MedianESSBulk)), fmtNum(float64(s.MedianESSBulkPerSecond)))
		fmt.Fprintf(w, "(ess_bulk/s, per CPU-second: %s)\n", essPerSecondIs)
		if s.Draws.Note != "" {
			fmt.Fprintf(w, "note: %s\n", s.Draws.Note)
		}
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "warning: %s\n", m)
		}
	} else {
		fmt.Fprintf(w, "\nno draws were made after warm-up: nothing to summarise\n")
	}

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	swaps := len(s.Ladder.SwapRates) > 0
	tuned := len(s.Tuning) == len(s.Levels)
	hdr := "level\tbeta\tN_m\t"
	if tuned {
		hdr += "step size\t"
	}
	hdr += "transitions\taccept\t"
	if swaps {
		hdr += "swap(m-1,m)\t"
	}
	hdr += "failed\tdivergent\t"
	fmt.Fprintln(tw, hdr)
	for _, l := range s.Levels {
		fmt.Fprintf(tw, "%d\t%.4f\t%d\t", l.Level, l.Beta, l.SubsetSize)
		if tuned {
			fmt.Fprintf(tw, "%s\t", fmtNum(diag.Mean(s.Tuning[l.Level].StepSize)))
		}
		acc := l.SamplingAccept
		if math.IsNaN(float64(acc)) {
			acc = l.AcceptRate
		}
		fmt.Fprintf(tw, "%d\t%s\t", l.Transitions, fmtRate(acc))
		if swaps {
			if l.Level == 0 {
				fmt.Fprint(tw, "\t")
			} else {
				fmt.Fprintf(tw, "%s\t", fmtRate(num(s.Ladder.SwapRates[l.Level-1])))
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t\n", l.Failed, l.Divergent)
	}
	tw.Flush()
	fmt.Fprintf(w, "(step size: the chains' mean; accept: the mean acceptance statistic after warm-up; swap and divergent: after warm-up)\n")
	if s.TT != nil {
		fmt.Fprintf(w, "tempered-transition acceptance after warm-up %s; over the run %s (%d of %d; %d aborted by failed evaluations)\n",
			fmtRate(s.Ladder.TTRate), fmtRate(s.TT.Rate), s.TT.Accepted, s.TT.Proposed, s.TT.Aborted)
	}
	if swaps {
		fmt.Fprintf(w, "communication barrier Λ = %s; round trips (level 0 → %d → 0) after warm-up: %d, %s per second of a chain\n",
			fmtNum(float64(s.Ladder.Barrier)), len(s.Levels)-1, s.Ladder.RoundTrips, fmtNum(float64(s.Ladder.RoundTripsPerSecond)))
	}
	printModelChoice(w, s)
	cs := make([]string, len(s.Timings.ChainCPUSeconds))
	for i, t := range s.Timings.ChainCPUSeconds {
		cs[i] = strconv.FormatFloat(t, 'f', 1, 64)
	}
	fmt.Fprintf(w, "time: %.1f s wall; chains %s CPU-seconds each (warm-up included)\n", s.Timings.WallSeconds, strings.Join(cs, ", "))
	if s.Interrupted {
		fmt.Fprintf(w, "\n*** INTERRUPTED: summary.json records \"interrupted\": true ***\n")
	}
}

// stepOrPaper returns ε, or the paper's 0.01 for 0 (the flag's default).
func stepOrPaper(eps float64) float64 {
	if eps == 0 {
		return paperStepSize
	}
	return eps
}

// runWarnings lists what the verdict alone does not show.
func runWarnings(j *job, s *runSummary) []string {
	w := []string{}
	if s.Draws.Summarized == 0 {
		return w
	}
	if len(s.StuckChains) > 0 {
		n := s.Draws.Summarized
		w = append(w, fmt.Sprintf("%s never moved: all %s draws are the same point (every proposal was rejected; %s). %s",
			plural.Count(len(s.StuckChains), "chain", "chains")+" "+joinInts(s.StuckChains),
			strconv.Itoa(n)+" of "+plural.Word(len(s.StuckChains), "its", "their"),
			plural.Count(s.Divergent, "divergent trajectory", "divergent trajectories"), stuckHint(j, s)))
	}
	var div, depth, trans int64
	var unsettled []string
	for _, l := range s.Levels {
		div += l.Divergent
		depth += l.MaxTreeDepthHits
		trans += l.Transitions
		kern := s.Inner
		if l.Level > 0 && s.Hot != "" {
			kern = s.Hot
		}
		target, low := s.TargetAccept, s.TargetAccept-0.2
		if kern == "mh" {
			// Dual averaging of a noisy acceptance leaves random-walk
			// Metropolis levels at 0.15–0.3 for a target of 0.3 (the
			// iterates straddle the target on a convex curve); its
			// efficiency is within 6% of its best there and still 82% at
			// acceptance 0.1 (Roberts, Gelman & Gilks 1997's limit), so
			// only below 0.1 is the scale unsettled.
			target = tempering.DefaultMHTargetAccept
			low = 0.1
		}
		if a := float64(l.SamplingAccept); s.Adapt != "none" && target > 0 && a < low {
			unsettled = append(unsettled, fmt.Sprintf("%d (%.2f, target %s)", l.Level, a, fmtNum(target)))
		}
	}
	// Advice by likely cause: the data's scale first (unstandardised data
	// far from the priors' scale make every other symptom), then what
	// the sampler reports, and running longer last.
	if std, ok := j.data["standardized"].(bool); ok && !std && j.startHint != "" && len(s.StuckChains) == 0 && (div > 0 || !s.Converged) {
		w = append(w, "likely cause: "+j.startHint)
	}
	if div > 0 {
		w = append(w, fmt.Sprintf("%s after warm-up: the sampler met regions it could not integrate, and the draws may be biased there; try a higher --target-accept (e.g. 0.95) or --standardize", plural.Count(div, "divergent transition", "divergent transitions")))
	}
	if len(unsettled) > 0 {
		w = append(w, fmt.Sprintf("the step-size adaptation did not settle: mean acceptance after warm-up far below its target at level %s; run a longer --warmup", strings.Join(unsettled, ", ")))
	}
	if s.Inner == "nuts" && depth*100 > trans {
		w = append(w, fmt.Sprintf("%s of nuts stopped at the maximum tree depth: the step size may be too small for the posterior's scale; try --max-depth %d or --standardize", plural.Count(depth, "trajectory", "trajectories"), j.flags.maxDepth+2))
	}
	if s.Ladder.Adaptive && (s.Sampler == "spt" || s.Sampler == "stt") {
		if z := s.Ladder.SubsetSizes; len(z) > 1 && z[len(z)-1] == 1 {
			w = append(w, fmt.Sprintf("the adapted ladder's hottest level conditions on a single observation (subset sizes %v): use a larger --beta-min", z))
		}
	}
	if !s.Converged && len(s.StuckChains) == 0 {
		then := ""
		if len(w) > 0 {
			then = "once the above is dealt with, "
		}
		w = append(w, "the draws do not meet the convergence criteria: "+then+"run longer (--warmup, --draws) before trusting them")
	}
	return w
}

// stuckHint suggests what to change when chains never move: the ladder when
// fewer than 1 in 20 tempered transitions were accepted, else the step.
func stuckHint(j *job, s *runSummary) string {
	if s.TT != nil && s.TT.Accepted*20 < s.TT.Proposed {
		return fmt.Sprintf("Tempered transitions were almost never accepted (%d of %d): the ladder is too coarse for this posterior; try more --levels, a larger --beta-min, --base-steps 1 or --sampler spt.", s.TT.Accepted, s.TT.Proposed)
	}
	h := "a smaller step (--step-size for HMC, --mh-scale for MH) usually helps"
	if std, ok := j.data["standardized"].(bool); ok && !std {
		return "If the data are on a large scale, try --standardize; otherwise " + h + "."
	}
	return "A" + h[1:] + "."
}

// joinInts formats x as "(1, 2, 3)".
func joinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// drawsLine describes the draws per chain for the run's header: the
// number requested, or where the --min-ess rule stopped sampling.
func drawsLine(d drawsJSON) string {
	if d.StoppedAt > 0 {
		return fmt.Sprintf("%d draws of at most %d (every ESS ≥ %s reached)", d.StoppedAt, d.Requested,
			fmtESS(max(d.MinESS, diag.ESSPerChainMin*float64(len(d.PerChain)))))
	}
	return plural.Count(d.Requested, "draw", "draws")
}
