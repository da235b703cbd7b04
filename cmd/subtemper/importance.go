package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/tempering"
)

// importanceHelp is --importance's help.
var importanceHelp = fmt.Sprintf("sample by importance sampling from the warm start's fitted Student-t instead of by chains: batches of at most 500 log densities (no gradients; a batch shrinks to 1.2 times what the ESS predicts is left), each draw weighed against every proposal drawn from, the proposal refitted after each batch (a mixture of %d t's fitted to the weighted draws, beside the first proposal and one split-t whose sides follow the draws' spread on either side; that split-t alone where the warm start found a hyperparameter non-Gaussian, with Gaussians fitted away from the mode along it mixed into every proposal; after a batch whose k̂ is above %.1f, up to %d climbs from the heaviest draws to local modes that the proposals miss, each mode then mixed into every proposal; where the warm start found several modes, the t is fitted at the best and the Laplace approximation at each other mixed into every proposal), until every hyperparameter's ESS (of its mean, on the sampling scale and as reported, and of its 5%% and 95%% tails) reaches --min-ess with the weights' Pareto k̂ ≤ %.1f, or %d draws; draws.csv then holds the weighted draws with their log weights (%s) and draws.nc draws resampled from them. auto: where the warm start runs (--warm-start) with no sampler flag (--sampler, --chains, --warmup, --draws, --thin, kernel flags, --evidence); on: wherever the warm start runs; off: chains. It writes no checkpoints (--resume, --run-chains, --extend and --evidence need chains); Ctrl-C and --max-time keep the batches made; --plots draws the densities and pairs alone. Its ESS and k̂ cannot see posterior mass that every proposal misses (a hyperparameter whose spread grows in a corner of another's range, which those Gaussians are there to cover): where the hyperparameters themselves matter, compare with off (docs/LARGE.md)",
	subtemper.ImportanceMixture, diag.ParetoKMax, subtemper.ImportanceClimbs, diag.ParetoKMax, subtemper.ImportanceMaxDraws, subtemper.LogWeightColumn)

// samplerChoiceFlags are the flags that choose the chains' sampler: given
// any, --importance auto runs chains.
var samplerChoiceFlags = []string{"evidence", "sampler", "chains", "warmup", "draws", "thin", "inner", "hot", "leapfrog", "step-jitter", "step-size", "adapt", "target-accept", "max-depth", "mh-scale", "mh-steps", "paper"}

// importanceMode reads --importance for a fit of n observations.
func (f *gpFlags) importanceMode(fs *flagSet, n int) (subtemper.ImportanceMode, error) {
	chainsOnly := ""
	switch {
	case f.ck.cp != nil || f.ck.resume != "":
		chainsOnly = "--resume"
	case f.ck.runChains != "":
		chainsOnly = "--run-chains"
	case f.ck.extend != 0:
		chainsOnly = "--extend"
	case f.mc.evidence:
		chainsOnly = "--evidence"
	}
	switch strings.ToLower(f.importance) {
	case "off":
		return subtemper.ImportanceOff, nil
	case "on":
		if chainsOnly != "" {
			return 0, usagef("--importance on: %s needs chains, which importance sampling has none of (use --importance off)", chainsOnly)
		}
		return subtemper.ImportanceOn, nil
	case "auto":
		warm, err := f.warmStartOn(n)
		if err != nil || !warm || chainsOnly != "" {
			return subtemper.ImportanceOff, err
		}
		for _, name := range samplerChoiceFlags {
			if fs.isSet(name) {
				return subtemper.ImportanceOff, nil
			}
		}
		return subtemper.ImportanceOn, nil
	}
	return 0, usagef("--importance %q: want auto, on or off", f.importance)
}

// startImportance is BeforeSampling's work for an importance-sampled fit:
// the warm start noted and told, the sampling announced.
func startImportance(io *stdio, j *job, fit *subtemper.GPFit) {
	f := j.flags
	f.sampler, f.warmup = "importance", 0
	j.warm = newWarmInfo(j, fit.Mode)
	if f.quiet {
		return
	}
	ws := fit.Mode
	p := ws.Proposal
	fmt.Fprintf(io.err, "subtemper %s: warm start: posterior mode found in %s (%.0f full-data gradients' worth); a Student-t fitted to the posterior by importance sampling (%s, %d log densities, importance ESS %.0f%%)\n",
		j.command, ws.Wall.Round(time.Millisecond), j.warm.GradEquivalents, plural.Count(len(p.Rounds), "round", "rounds"), p.Evals(), 100*p.ESS())
	modes := 0
	for _, c := range ws.Corners {
		if c.Mode {
			modes++
		}
	}
	if modes > 0 {
		fmt.Fprintf(io.err, "subtemper %s: the search found %d modes: the t is fitted at the best and the Laplace approximation at each of the others is mixed into every proposal, %.0f%% of it shared with any Gaussians fitted away from the mode\n",
			j.command, ws.Modes, 100*tempering.CornerShare)
	}
	if corners := len(ws.Corners) - modes; corners > 0 {
		fmt.Fprintf(io.err, "subtemper %s: the posterior of %s is far from Gaussian around the mode: %s fitted away from it along them take %.0f%% of every proposal, refitted as one split-t\n",
			j.command, strings.Join(j.warm.NonGaussian, ", "), plural.Count(corners, "Gaussian", "Gaussians"), 100*tempering.CornerShare)
	}
	// The proposal's rounds ran EvalsAtOnce log densities at a time, as
	// the batches do on as many cores.
	batch := time.Duration(float64(subtemper.ImportanceBatch) * p.SecondsPerEval / float64(max(1, p.EvalsAtOnce)) * float64(time.Second))
	fmt.Fprintf(io.err, "subtemper %s: importance sampling from it on %s in batches of at most %d (a log density takes %s, a batch about %s), until every ESS ≥ %s with Pareto k̂ ≤ %.1f, at most %d draws; Ctrl-C stops and keeps the batches so far\n",
		j.command, j.backend, subtemper.ImportanceBatch, fmtSeconds(p.SecondsPerEval), fmtDuration(batch), fmtESS(fit.Weighted.MinESS), diag.ParetoKMax, subtemper.ImportanceMaxDraws)
}

// importanceProgress returns GPOptions.OnBatch for j: a line per batch
// on w with the least ESS, k̂ and the time left (nil when quiet).
func importanceProgress(w io.Writer, j *job) func(subtemper.ImportanceProgress) {
	if j.flags.quiet {
		return nil
	}
	return func(p subtemper.ImportanceProgress) {
		left := "done"
		switch {
		case p.Bound && p.K > diag.ParetoKMax:
			left = fmt.Sprintf("at most %s left (the draws' cap; the ESS gives no estimate while k̂ > %g)", fmtDuration(p.Remaining), diag.ParetoKMax)
		case p.Bound:
			left = "at most " + fmtDuration(p.Remaining) + " left (the draws' cap)"
		case p.Remaining > 0:
			left = "about " + fmtDuration(p.Remaining) + " left"
		}
		of := "mean"
		if p.LeastTail {
			of = "tails"
		}
		modes := ""
		if p.Modes > 0 {
			modes = fmt.Sprintf(" (%s found by climbing from heavy draws, each a proposal's component)", plural.Count(p.Modes, "mode", "modes"))
		}
		fmt.Fprintf(w, "subtemper %s: importance sampling: %d weighted draws (%d new) from %s%s, least ESS %s of %s (%s's %s), Pareto k̂ %.2f; %s, %s\n",
			j.command, p.Draws, p.Fresh, plural.Count(p.Proposals, "proposal", "proposals"), modes, fmtESS(p.LeastESS), fmtESS(p.Needed), p.Least, of, p.K,
			fmtDuration(p.Elapsed), left)
	}
}

// printImportanceRun prints an importance-sampled fit's human-readable
// summary.
func printImportanceRun(w io.Writer, j *job, s *runSummary) {
	im := s.Importance
	if s.Interrupted {
		fmt.Fprintf(w, "*** INTERRUPTED: sampling was stopped early; the figures below use the %d weighted draws made so far ***\n\n", im.Draws)
	}
	fmt.Fprintf(w, "subtemper %s: importance sampling from the warm start's fitted Student-t (%s: %d reused from its fit, the others from %s), seed %d, backend %s\n",
		j.command, plural.Count(im.Draws, "weighted draw", "weighted draws"), im.Reused, plural.Count(im.Proposals, "proposal", "proposals"), s.Seed, s.Backend)
	fmt.Fprintf(w, "data: %s\n", j.dataLine)
	fmt.Fprintf(w, "\nposterior summary of %s (%s; the R-hats compare chains: none here):\n", plural.Count(im.Draws, "weighted draw", "weighted draws"), j.units)
	printSummaryTable(w, s.Variables, true)
	fmt.Fprintf(w, "\n%s\n", s.Verdict)
	fmt.Fprintf(w, "Pareto k̂ %s, the weights' ESS %s; min bulk-ESS %s, min tail-ESS %s, median bulk-ESS %s, %s per CPU-second\n",
		fmtNum(float64(im.ParetoK)), fmtESS(float64(im.ESS)), fmtESS(float64(s.MinESSBulk)), fmtESS(float64(s.MinESSTail)),
		fmtESS(float64(s.MedianESSBulk)), fmtNum(float64(s.MedianESSBulkPerSecond)))
	if im.Failed > 0 {
		fmt.Fprintf(w, "%s failed (weight 0)\n", plural.Count(im.Failed, "log density", "log densities"))
	}
	if len(im.ModesFound) > 0 {
		fmt.Fprintf(w, "the posterior is multimodal: climbing from heavy draws found %s that the warm start's search missed (summary.json's importance.modes_found_u); every proposal after it mixed in the Laplace approximation at each\n",
			plural.Count(len(im.ModesFound), "mode", "modes"))
	}
	for _, m := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	printModelChoice(w, s)
	warm := ""
	if s.WarmStart != nil {
		warm = fmt.Sprintf(" after the warm start's %.1f", s.WarmStart.CPUSeconds)
	}
	fmt.Fprintf(w, "\ntime: %.1f s wall (the warm start included); %.1f CPU-seconds of sampling%s\n", s.Timings.WallSeconds, s.Timings.TotalChainCPUSeconds, warm)
	if s.Interrupted {
		fmt.Fprintf(w, "\n*** INTERRUPTED: summary.json records \"interrupted\": true ***\n")
	}
}

// importanceWarning is the advice on a weighted sample that did not
// converge.
func importanceWarning(s *runSummary) string {
	if float64(s.Importance.ParetoK) > diag.ParetoKMax {
		return fmt.Sprintf("the weights' Pareto k̂ %s exceeds %.1f: the fitted proposal misses part of the posterior, and the weighted estimates cannot be trusted; sample with chains (--importance off)",
			fmtNum(float64(s.Importance.ParetoK)), diag.ParetoKMax)
	}
	return "the weighted draws do not meet the convergence criteria: run longer (a larger --max-time) or sample with chains (--importance off)"
}
