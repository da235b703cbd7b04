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
	plot "github.com/subtemper/subtemper/internal/report"
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
			lj := subtemper.NewLOOReport(l, len(fit.PooledDraws(0)))
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

// learningCurve draws the evidence's stages: for spt the log predictive
// density per added observation against the number of observations
// conditioned on (the prior predictive of the hottest subset at 0), for
// pt each stage's log ratio per unit of β against β (the thermodynamic
// integrand E_β[log p(y|θ)]). It returns the figure's base name, or ""
// when the run has no evidence.
func learningCurve(dir string, s *runSummary) (string, error) {
	e := s.Evidence
	if e == nil || len(e.Stages) == 0 {
		return "", nil
	}
	base := filepath.Join(dir, "learning_curve")
	var x, y, lo, hi []float64
	add := func(xv, v, se, per float64) {
		x = append(x, xv)
		y = append(y, v/per)
		lo = append(lo, (v-2*se)/per)
		hi = append(hi, (v+2*se)/per)
	}
	spec := plot.LineSpec{}
	if s.Sampler == "spt" {
		hot := e.Stages[0]
		add(0, float64(e.Leg.LogZ), float64(e.Leg.SE), float64(hot.Size))
		for _, st := range e.Stages {
			add(float64(st.Size), float64(st.Forward), float64(st.ForwardSE), float64(st.SizeColder-st.Size))
		}
		spec.Title = "learning curve: log p(new observations | first n) per observation"
		spec.XLabel = "observations conditioned on, n"
		spec.YLabel = "log predictive density per observation"
	} else {
		for _, st := range e.Stages {
			add((st.Beta+st.BetaColder)/2, float64(st.Forward), float64(st.ForwardSE), st.BetaColder-st.Beta)
		}
		spec.Title = "stepping stone: log(Z_{m-1}/Z_m) per unit of beta"
		spec.XLabel = "beta (midpoint of the stage)"
		spec.YLabel = "mean log-likelihood"
	}
	spec.Series = []plot.Series{{Name: "estimate", X: x, Y: y}, {Name: "±2 SE", X: x, Y: lo, Dashed: true}, {Name: "", X: x, Y: hi, Dashed: true}}
	return base, plot.Line(base, spec)
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
