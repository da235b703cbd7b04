package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// modelChoiceFlags are the gp command's flags for choosing between
// models: the log evidence and leave-one-out cross-validation.
type modelChoiceFlags struct {
	evidence         bool
	loo              bool
	particles, temps int
}

func (f *modelChoiceFlags) define(fs *flagSet) {
	fs.group("Model choice")
	fs.boolean(&f.evidence, "evidence", false, "estimate the log evidence log p(y) (pt and spt: stepping stone along the ladder from the swaps, forward and backward, and annealed importance sampling from the prior to the hottest level) into summary.json; with --plots, learning_curve.png")
	fs.integer(&f.particles, "evidence-particles", 128, "--evidence: independent particles per chain of the annealed importance sampling from the prior to the hottest level (its cost: particles × temperatures × 2 log-likelihood evaluations there, full-data ones for pt)")
	fs.integer(&f.temps, "evidence-temperatures", 100, "--evidence: intermediate densities of that annealed importance sampling")
	fs.boolean(&f.loo, "loo", false, "estimate elpd_loo by PSIS-LOO from the draws (the GP's closed-form leave-one-out densities, one O(N³) factorisation per draw, up to 4000 draws) into summary.json, with each point's Pareto k in loo.csv")
}

// looFile is the per-point file of --loo.
const looFile = "loo.csv"

// apply wires the flags into the gp command's job: the sampler records
// the evidence, and after sampling (j.done) the estimates go into the
// summary and loo.csv into dir.
func (f *modelChoiceFlags) apply(ctx context.Context, j *job, st *tempering.Settings, dir string) error {
	if !f.evidence && !f.loo {
		return nil
	}
	if f.evidence {
		if st.Driver != tempering.PT && st.Driver != tempering.SPT {
			return usagef("--evidence needs --sampler pt or spt, not %s", st.Driver)
		}
		if f.particles < 1 || f.temps < 1 {
			return usagef("--evidence-particles and --evidence-temperatures must be ≥ 1, got %d and %d", f.particles, f.temps)
		}
		st.Evidence = &tempering.EvidenceSettings{Particles: f.particles, Temperatures: f.temps}
		// A warm start on one mode would drop the ladder (driver none)
		// unless --sampler was given: keep it, as if it had been.
		if fs := j.flags.fs; fs != nil {
			fs.set["sampler"] = true
		}
	}
	var sum *runSummary
	prevExtra := j.extra
	j.extra = func(s *runSummary) error {
		sum = s
		if prevExtra != nil {
			return prevExtra(s)
		}
		return nil
	}
	prevDone := j.done
	j.done = func(res *tempering.Result) error {
		if prevDone != nil {
			if err := prevDone(res); err != nil {
				return err
			}
		}
		fit := j.fit
		if f.evidence && sum != nil {
			if e := fit.LogEvidence(); e != nil {
				if sum.Evidence == nil {
					sum.Evidence = subtemper.NewEvidenceReport(e, st.Driver.String())
				}
				if w := spreadWarning(e); w != "" {
					sum.Warnings = append(sum.Warnings, w)
				}
			}
		}
		if f.loo && sum != nil {
			l, err := fit.LOO(ctx, subtemper.LOOOptions{})
			if err != nil {
				sum.Warnings = append(sum.Warnings, fmt.Sprintf("leave-one-out: %v", err))
				return nil
			}
			lj := subtemper.NewLOOReport(l)
			if dir != "" {
				p := filepath.Join(dir, looFile)
				if err := writeLOOCSV(p, l); err != nil {
					return err
				}
				lj.File = looFile
			}
			sum.LOO = lj
			if l.KOver07 > 0 {
				sum.Warnings = append(sum.Warnings, fmt.Sprintf("leave-one-out: %d of %d points have Pareto k > 0.7: their elpd_loo terms are unreliable", l.KOver07, len(l.K)))
			}
		}
		return nil
	}
	return nil
}

// writeLOOCSV writes each point's elpd_loo term, lpd and Pareto k.
func writeLOOCSV(path string, l *diag.LOO) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	w := csv.NewWriter(fh)
	w.Write([]string{"point", "elpd_loo", "lpd", "pareto_k"})
	for i := range l.K {
		w.Write([]string{strconv.Itoa(i + 1), strconv.FormatFloat(l.Pointwise[i], 'g', -1, 64),
			strconv.FormatFloat(l.LPD[i], 'g', -1, 64), strconv.FormatFloat(l.K[i], 'g', -1, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// printModelChoice prints the evidence and LOO lines of the summary.
func printModelChoice(w io.Writer, s *runSummary) {
	if e := s.Evidence; e != nil {
		bw := "backward"
		if s.Sampler == "spt" {
			// A harmonic mean of predictive densities: biased high
			// (docs/MODELCHOICE.md).
			bw = "backward, biased high for spt"
		}
		fmt.Fprintf(w, "log evidence log p(y) = %s ± %s (forward; %s %s ± %s; leg from the prior %s ± %s)\n",
			fmtFloat(float64(e.LogZ), 'f', 3), fmtFloat(float64(e.SE), 'f', 3), bw, fmtFloat(float64(e.Backward), 'f', 3),
			fmtFloat(float64(e.BackwardSE), 'f', 3), fmtFloat(float64(e.Leg.LogZ), 'f', 3), fmtFloat(float64(e.Leg.SE), 'f', 3))
	}
	if l := s.LOO; l != nil {
		fmt.Fprintf(w, "elpd_loo = %s ± %s, p_loo = %s; Pareto k > 0.7 at %d of %d points (max %s)\n",
			fmtFloat(float64(l.ELPD), 'f', 3), fmtFloat(float64(l.SE), 'f', 3), fmtFloat(float64(l.PLOO), 'f', 2), l.KOver07, l.N, fmtFloat(float64(l.MaxK), 'f', 2))
	}
}

// spreadWarning returns a warning when the chains' estimates of the log
// evidence spread more than their standard errors allow (their sd above
// twice SE·√C, C ≥ 3 chains), "" otherwise.
func spreadWarning(e *tempering.Evidence) string {
	c := float64(len(e.Chains))
	if c < 3 || !(e.ChainSD > 2*e.SE*math.Sqrt(c)) {
		return ""
	}
	return fmt.Sprintf("log evidence: the chains' estimates spread by %s (sd), more than their standard error %s allows (%s expected): the error is larger than reported; run more draws",
		fmtNum(e.ChainSD), fmtNum(e.SE), fmtNum(e.SE*math.Sqrt(c)))
}
