package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/tempering"
)

// The summary's types are the library's Report (summary.json is
// GPFit.Report's, or NewReport's for mvn, with the CLI's additions).
type (
	num          = subtemper.Float
	runSummary   = subtemper.Report
	drawsJSON    = subtemper.DrawsReport
	levelJSON    = subtemper.LevelReport
	ttJSON       = subtemper.TTReport
	variableJSON = subtemper.VariableReport
)

// newVariableJSON is one variable's row of the summary.
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

// drawsHeader are draws.csv's label columns.
const drawsHeader = subtemper.DrawsCSVHeader

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
const essPerSecondIs = subtemper.ESSPerSecondDefinition

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

// kernelLine describes the inner kernel name ("mh", "hmc", "nuts",
// "imh") as the flags configure it, for the header of the printed summary;
// k is the run's kernel, which describes an independence sampler (a warm
// start's: no flag sets its proposal).
func kernelLine(f *samplerFlags, s *runSummary, name string, k tempering.Kernel) string {
	var kern string
	switch name {
	case "imh":
		return imhLine(k)
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

// imhLine describes an independence sampler's proposal: the Student-t's
// degrees of freedom, its wide component, its local steps and its screen.
func imhLine(k tempering.Kernel) string {
	ind, ok := k.(tempering.Independence)
	if !ok {
		return "IMH"
	}
	var parts []string
	if ind.DF > 0 {
		parts = append(parts, "ν="+fmtNum(ind.DF))
	}
	if ind.Split != nil {
		parts = append(parts, "split: scales "+fmtNum(slices.Min(ind.Split))+"–"+fmtNum(slices.Max(ind.Split))+" either side of the mode")
	}
	if ind.Wide > 0 {
		parts = append(parts, "a wide t of weight "+fmtNum(ind.Wide))
	}
	if ind.Local > 0 {
		parts = append(parts, plural.Count(ind.Local, "local random-walk step", "local random-walk steps")+" each")
	}
	if ind.Screen != nil {
		parts = append(parts, "each proposal screened on a surrogate first")
	}
	if len(parts) == 0 {
		return "IMH"
	}
	return "IMH from a fitted Student-t (" + strings.Join(parts, ", ") + ")"
}

// printRun prints a run's human-readable summary.
func printRun(w io.Writer, j *job, s *runSummary) {
	if s.Importance != nil {
		printImportanceRun(w, j, s)
		return
	}
	f := j.flags
	switch {
	case s.InterruptedDuring != "":
		fmt.Fprintf(w, "*** INTERRUPTED during the %s: every draw was made (%v per chain); see the warnings ***\n\n", s.InterruptedDuring, s.Draws.PerChain)
	case s.Interrupted:
		fmt.Fprintf(w, "*** INTERRUPTED: the run was stopped early; the figures below use the draws made so far (%v per chain) ***\n\n", s.Draws.PerChain)
	}
	drv, kern := runSamplers(f, s, j.settings.Kernel)
	fmt.Fprintf(w, "subtemper %s: %s, %s, warm-up %d, %s (thin %d), seed %d, backend %s\n",
		j.command, withDriver(drv, kern), plural.Count(f.chains, "chain", "chains"), f.warmup, drawsLine(s.Draws), f.thin, s.Seed, s.Backend)
	fmt.Fprintf(w, "data: %s\n", j.dataLine)
	printPosterior(w, j, s)
	fmt.Fprintln(w)
	printLevels(w, s)
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

// driverName is the name of the tempering driver sampler (--sampler) in
// the run lines: "PT", "SPT", "STT", or "" for none.
func driverName(sampler string) string {
	if sampler == "none" {
		return ""
	}
	return strings.ToUpper(sampler)
}

// withDriver joins a tempering driver's name and the kernels' for the run
// lines: "PT + HMC", or, with no driver (""), "HMC alone".
func withDriver(drv, kern string) string {
	if drv == "" {
		return kern + " alone"
	}
	return drv + " + " + kern
}

// runSamplers describes the run's samplers for printRun's first line: the
// driver (with its ladder) and the kernels.
func runSamplers(f *samplerFlags, s *runSummary, k tempering.Kernel) (drv, kern string) {
	kern = kernelLine(f, s, s.Inner, k)
	if s.Hot != "" {
		kern += " at the target, " + kernelLine(f, s, s.Hot, k) + " above it"
	}
	if drv = driverName(s.Sampler); drv != "" {
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
	return drv, kern
}

// printPosterior prints the posterior summary of the run, its verdict,
// notes and warnings.
func printPosterior(w io.Writer, j *job, s *runSummary) {
	if n := s.Draws.Summarized; n > 0 {
		fmt.Fprintf(w, "\nposterior summary of %s × %s (%s):\n", plural.Count(len(s.Draws.PerChain), "chain", "chains"), plural.Count(n, "draw", "draws"), j.units)
		printSummaryTable(w, s.Variables, true)
		fmt.Fprintf(w, "\n%s\n", s.Verdict)
		fmt.Fprintf(w, "max R-hat %s, min bulk-ESS %s, min tail-ESS %s; median R-hat %s (the paper's R-hat: %s), median bulk-ESS %s, %s per CPU-second\n",
			fmtRhat(float64(s.MaxRhat)), fmtESS(float64(s.MinESSBulk)), fmtESS(float64(s.MinESSTail)),
			fmtRhat(float64(s.MedianRhat)), fmtRhat(float64(s.MedianRhatPaper)),
			fmtESS(float64(s.MedianESSBulk)), fmtNum(float64(s.MedianESSBulkPerSecond)))
		fmt.Fprintf(w, "(ess_bulk/s, per CPU-second: %s)\n%s", essPerSecondIs, ebfmiLine(s))
		if s.Draws.Note != "" {
			fmt.Fprintf(w, "note: %s\n", s.Draws.Note)
		}
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "warning: %s\n", m)
		}
	} else {
		fmt.Fprintf(w, "\nno draws were made after warm-up: nothing to summarise\n")
	}

}

// printLevels prints the table of the ladder's levels and the lines on
// the tempered transitions and the swaps.
func printLevels(w io.Writer, s *runSummary) {
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
}

// ebfmiLine gives each chain's E-BFMI of the target level's energies, a
// line ending in a newline ("" when the run recorded none).
func ebfmiLine(s *runSummary) string {
	if len(s.EBFMI) == 0 {
		return ""
	}
	b := make([]string, len(s.EBFMI))
	for i, v := range s.EBFMI {
		b[i] = fmtRate(v)
	}
	return fmt.Sprintf("E-BFMI per chain (%s at the target level's draws): %s (Stan warns below %.1f)\n", s.Inner, strings.Join(b, ", "), diag.EBFMIMin)
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
	if low := s.LowEBFMI(); len(low) > 0 {
		w = append(w, fmt.Sprintf("E-BFMI below %.1f in %s %s: resampling the momentum moves the %s chains slowly through the energy distribution (heavy tails or a poorly adapted metric); try --standardize, --adapt dense or a longer --warmup and look at the energy figure (--plots)",
			diag.EBFMIMin, plural.Word(len(low), "chain", "chains"), joinInts(low), s.Inner))
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
	if !s.Converged && s.Importance != nil {
		return append(w, importanceWarning(s))
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
