package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/tempering"
)

// warmLeapfrogs is the number of leapfrog steps per transition that the
// time estimate assumes for tempering.WarmKernel (integration time 1.5 at
// the step sizes of 0.6–0.8 measured on the GP).
const warmLeapfrogs = 2

// screenRunLength and screenRunSeed set the run on the independence
// sampler's screen that estimates how many of its proposals are
// evaluated (tempering.Independence.EvalsPerTransition): its
// transitions, and its random stream's second seed word.
const (
	screenRunLength = 2000
	screenRunSeed   = 0x5c4ee7
)

// warmStartOn reports whether the run starts from the warm start, as
// --warm-start and N decide.
func (s *samplerFlags) warmStartOn(n int) (bool, error) {
	switch strings.ToLower(s.warmStart) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	case "auto":
		return n >= subtemper.WarmStartMinN && !s.paper, nil
	}
	return false, usagef("--warm-start %q: want auto, on or off", s.warmStart)
}

// parseMaxTime returns --max-time as a duration (0: no limit).
func (s *samplerFlags) parseMaxTime() (time.Duration, error) {
	if s.maxTime == "" || s.maxTime == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s.maxTime)
	if err != nil || d <= 0 {
		return 0, usagef("--max-time %q: want a positive duration such as 90s, 45m or 2h", s.maxTime)
	}
	return d, nil
}

// warmInfo is what summary.json and map.json say of the warm start.
type warmInfo = subtemper.WarmStartReport

// newWarmInfo describes ws for summary.json and map.json.
func newWarmInfo(j *job, ws *tempering.WarmStart) *warmInfo {
	return subtemper.NewWarmStartReport(ws, j.names, j.nObs)
}

// warmKeep says what of the flags' settings a warm start keeps: the
// kernel when any kernel flag was given, the driver with --sampler, the
// warm-up with --warmup, the draws with --draws.
func warmKeep(fs *flagSet) subtemper.WarmKeep {
	kernelChosen := false
	for _, name := range []string{"inner", "hot", "leapfrog", "step-jitter", "step-size", "adapt", "target-accept", "max-depth", "mh-scale", "mh-steps"} {
		kernelChosen = kernelChosen || fs.isSet(name)
	}
	return subtemper.WarmKeep{Kernel: kernelChosen, Driver: fs.isSet("sampler"), Warmup: fs.isSet("warmup"), Draws: fs.isSet("draws")}
}

// noteWarmStart records the warm start ws in j, once j.settings start
// from it, and updates the flags so that the summary tells what ran.
func noteWarmStart(j *job, ws *tempering.WarmStart) {
	f, st := j.flags, j.settings
	j.warm = newWarmInfo(j, ws)
	if !ws.Unimodal() {
		return
	}
	f.sampler = strings.ToLower(st.Driver.String())
	f.warmup = flagCount(st.Warmup, tempering.NoWarmup, tempering.DefaultWarmup)
	f.draws = st.Draws
	if f.adapt != "none" {
		f.adapt = "step"
	}
	if _, ok := st.Kernel.(tempering.Independence); ok {
		f.inner, f.adapt = "imh", "none"
		j.warm.Proposal.Used = true
	}
	j.warmKernel = !warmKeep(f.fs).Kernel
	if pl, ok := st.Kernel.(tempering.PerLevel); ok && j.warmKernel {
		if h, ok := pl.Target.(tempering.HMC); ok {
			f.hmcLength = h.Length
		}
	}
}

// expectedDraws is the number of draws per chain after which the --min-ess
// rule is likely to stop sampling: ESS/(chains·essPerDraw) draws, on the
// rule's checkpoints, at most --draws. essPerDraw is the ESS a draw is
// expected to add (drawESS).
func expectedDraws(st *tempering.Settings, minESS, essPerDraw float64) int {
	if minESS <= 0 || st.Stop == nil {
		return st.Draws
	}
	every := st.StopEvery
	if every == 0 {
		every = tempering.DefaultStopEvery
	}
	n := int(math.Ceil(max(minESS, 100*float64(st.Chains)) / float64(st.Chains) / essPerDraw))
	n = (n + every - 1) / every * every
	return min(st.Draws, n)
}

// drawESS is the ESS each draw of a warm-started run is expected to add
// to the stop rule's least ESS (the tail-ESS, as a rule): 2/3 for the
// warm kernel's nearly independent HMC draws; for the independence
// sampler from a proposal of importance ESS fraction e, ¾·e² without a
// screen (measured on the GP at N = 1024: a tail-ESS per draw of 0.41 at
// e = 0.74, D = 3, and of 0.071 at e = 0.29, D = 8), and min(¾, 0.7·e³)
// with one, fitted (least squares in logs) to the screened sampler's
// eleven fits on the §4.2 generator at N = 1024–4096, D = 3 and 8
// (docs/LARGE.md). Single fits stray from it by up to a factor of 3
// either way: the progress bar's ETA follows the stop rule's checks once
// they come.
func drawESS(st *tempering.Settings, ws *tempering.WarmStart) float64 {
	if k, ok := st.Kernel.(tempering.Independence); ok && ws != nil && ws.Proposal != nil {
		e := ws.Proposal.ESS()
		if k.Screen != nil {
			return min(0.75, 0.7*e*e*e)
		}
		return 0.75 * e * e
	}
	return 2.0 / 3
}

// warmEstimate returns the expected and the longest sampling time of a
// warm-started run with the warm kernel: iterations × leapfrog steps ×
// the measured time of a full-data gradient (for the independence
// sampler, iterations × its evaluations per iteration, those its screen
// passes where ws says, × the measured time of a log density), the
// chains sharing the processors. On one
// shared device (device: the cuda backend) the chains share the device
// instead: the times were measured with several evaluations sharing it
// (GradsAtOnce, EvalsAtOnce), so the device's time per evaluation is the
// measured one divided by that number, and an iteration of the chains
// takes chains times it.
func warmEstimate(st *tempering.Settings, ws *warmInfo, expected int, device bool) (exp, most time.Duration) {
	evals, secs, atOnce := float64(warmLeapfrogs), ws.SecondsPerGrad, ws.GradsAtOnce
	if k, ok := st.Kernel.(tempering.Independence); ok && ws.Proposal != nil {
		evals, secs, atOnce = float64(1+k.Local), ws.Proposal.SecondsPerEval, ws.Proposal.EvalsAtOnce
		if e := ws.Proposal.EvalsPerIteration; e > 0 {
			evals = e
		}
	}
	share := float64(st.Chains) / float64(max(1, min(st.Chains, runtime.NumCPU())))
	if device {
		share = float64(st.Chains) / float64(max(1, atOnce))
	}
	per := evals * secs * share
	sec := func(draws int) time.Duration {
		return time.Duration(float64(flagCount(st.Warmup, tempering.NoWarmup, tempering.DefaultWarmup)+draws*st.Thin) * per * float64(time.Second))
	}
	return sec(expected), sec(st.Draws)
}

// printWarmStart tells the user what the warm start found and what to
// expect of the rest of the run.
func printWarmStart(w io.Writer, j *job, ws *tempering.WarmStart, expected int) {
	sizes := make([]string, len(ws.Stages))
	evals := make([]string, len(ws.Stages))
	for i, s := range ws.Stages {
		sizes[i], evals[i] = fmt.Sprint(s.Size), fmt.Sprint(s.Evals)
	}
	what := "one mode: sampling from over-dispersed starts around it with the Laplace covariance as metric"
	switch {
	case !ws.Unimodal():
		what = fmt.Sprintf("%d modes: sampling with %s from the usual starts, as without the warm start", ws.Modes, strings.ToUpper(j.flags.sampler))
	case j.settings.Driver != tempering.None:
		what = fmt.Sprintf("one mode: sampling with %s from over-dispersed starts around it with the Laplace covariance as metric", strings.ToUpper(j.flags.sampler))
	}
	if p := j.warm.Proposal; p != nil && p.Used {
		what = fmt.Sprintf("one mode: sampling by independence Metropolis–Hastings from a Student-t fitted to the posterior by importance sampling (%s, %d log densities; importance ESS %.0f%%)",
			plural.Count(len(p.Rounds), "round", "rounds"), ws.Proposal.Evals(), 100*p.ImportanceESS)
	}
	if space := subtemper.ChainSpace(j.settings.Transform); ws.Unimodal() && space != "" {
		what += ", the chains moving in " + space
	}
	fmt.Fprintf(w, "subtemper %s: warm start: posterior mode found in %s by L-BFGS on %s observations (%s evaluations, %.0f full-data gradients' worth); %s\n",
		j.command, ws.Wall.Round(time.Millisecond), strings.Join(sizes, ", "), strings.Join(evals, ", "), j.warm.GradEquivalents, what)
	if len(j.warm.NonGaussian) > 0 && ws.Unimodal() {
		fmt.Fprintf(w, "subtemper %s: warning: the posterior of %s is far from Gaussian around the mode (a flat tail or a boundary): the chains may mix slowly there and need more draws; the verdict tells\n",
			j.command, strings.Join(j.warm.NonGaussian, ", "))
	}
	if !j.warmKernel {
		fmt.Fprintf(w, "subtemper %s: a full-data gradient takes %s\n", j.command, fmtSeconds(ws.SecondsPerGrad))
		return
	}
	if k, ok := j.settings.Kernel.(tempering.Independence); ok && j.warm.Proposal != nil {
		// The screen's pass rate, from a run on the screen itself: a
		// fraction of a second.
		rng := rand.New(rand.NewPCG(j.settings.Seed, screenRunSeed))
		if e, err := k.EvalsPerTransition(rng, screenRunLength); err == nil {
			j.warm.Proposal.EvalsPerIteration = e
		}
	}
	exp, most := warmEstimate(j.settings, j.warm, expected, j.backend == "cuda")
	j.warm.EstimateSeconds = exp.Seconds()
	cost := "a full-data gradient takes " + fmtSeconds(ws.SecondsPerGrad)
	if p := j.warm.Proposal; p != nil && p.Used {
		cost = "a full-data log density takes " + fmtSeconds(p.SecondsPerEval)
		if p.EvalsPerIteration > 0 {
			cost += fmt.Sprintf(", about %.2f per chain per iteration", p.EvalsPerIteration)
		}
	}
	fmt.Fprintf(w, "subtemper %s: %s: expect about %s of sampling (%d warm-up + about %d draws per chain), at most %s (%d draws)\n",
		j.command, cost, fmtDuration(exp), flagCount(j.settings.Warmup, tempering.NoWarmup, tempering.DefaultWarmup), expected, fmtDuration(most), j.settings.Draws)
}

func fmtSeconds(s float64) string {
	if s < 1e-3 {
		return fmt.Sprintf("%.0f µs", s*1e6)
	}
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// fmtDuration rounds d for a human: seconds below two minutes, then
// minutes, then hours and minutes.
func fmtDuration(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%.0f s", math.Max(1, d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%.0f min", d.Minutes())
	}
	h := int(d.Hours())
	return fmt.Sprintf("%d h %02d min", h, int(d.Minutes())-60*h)
}

// minDraws returns the fewest draws any chain of res holds.
func minDraws(res *tempering.Result) int {
	n := -1
	for _, d := range res.Draws {
		if n < 0 || len(d) < n {
			n = len(d)
		}
	}
	return max(n, 0)
}

// flagCount returns the count a flag holds for the library's value v of
// a count whose sentinel none the flag holds as 0 (countOrWord) and whose
// zero means def.
func flagCount(v, none, def int) int {
	switch v {
	case none:
		return 0
	case 0:
		return def
	}
	return v
}

// warmProgress returns GPOptions.OnWarm for j: a line on w, headed
// label, after each step of the warm start, so that a search that takes
// minutes at large N shows how far it is (nil when quiet).
func warmProgress(w io.Writer, j *job, label string) func(subtemper.WarmProgress) {
	if j.flags.quiet {
		return nil
	}
	return func(p subtemper.WarmProgress) {
		head := "subtemper " + j.command + ": " + label + ": "
		switch p.Step {
		case subtemper.WarmStage:
			on := fmt.Sprintf("%d of %d observations", p.Size, p.N)
			if p.Size == p.N {
				on = fmt.Sprintf("all %d observations", p.N)
			}
			fmt.Fprintf(w, "%ssearch for the mode on %s: %s kept, %s\n", head, on, plural.Count(p.Optima, "optimum", "optima"), fmtDuration(p.StepTime))
		case subtemper.WarmLaplace:
			next := ""
			if p.Rounds > 0 {
				next = fmt.Sprintf("; now fitting a Student-t to the posterior: at most %d rounds of %d log densities, until one's importance ESS reaches %.0f%%",
					p.Rounds, p.Draws, 100*p.EnoughESS)
			}
			fmt.Fprintf(w, "%sthe Laplace approximation at the mode, %s (%s found)%s\n", head, fmtDuration(p.StepTime), plural.Count(p.Optima, "mode", "modes"), next)
		case subtemper.WarmRound:
			left := "done"
			if p.MaxLeft > 0 {
				left = "at most " + fmtDuration(p.MaxLeft) + " more"
			}
			fmt.Fprintf(w, "%sproposal round %d of at most %d: importance ESS %.0f%% (enough at %.0f%%), %s; %s\n",
				head, p.Round, p.Rounds, 100*p.ESS, 100*p.EnoughESS, fmtDuration(p.StepTime), left)
		}
	}
}
