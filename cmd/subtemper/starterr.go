package main

import (
	"fmt"
	"math"

	"github.com/subtemper/subtemper/tempering"
)

// starter is implemented by targets that choose each chain's starting
// point (internal/targets).
type starter interface {
	Start(c, chains int, u []float64)
}

// explainStart returns the model's own error at the first chain's starting
// point whose density cannot be evaluated (the sampler reports only "log
// density −∞"), or nil when every start evaluates.
func explainStart(t tempering.Target, chains int) error {
	s, ok := t.(starter)
	if !ok {
		return nil
	}
	u := make([]float64, t.Dim())
	for c := range chains {
		s.Start(c, chains, u)
		if _, err := t.LogLik(nil, u, nil); err != nil {
			return fmt.Errorf("chain %d cannot start: the model cannot be evaluated at its starting point: %w", c+1, err)
		}
		if lp := t.LogPrior(u, nil); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return fmt.Errorf("chain %d cannot start: the log prior density at its starting point is %v (check --prior-sd and the data's scale)", c+1, lp)
		}
	}
	return nil
}

// ladderWarning describes a degenerate subsampled ladder (spt, stt): levels
// whose subsets have equal sizes, or of a single observation; "" if none.
func ladderWarning(f *samplerFlags, n int) string {
	if f.sampler != "spt" && f.sampler != "stt" {
		return ""
	}
	betas, err := tempering.Ladder(f.effectiveLevels(), f.betaMin)
	if err != nil {
		return ""
	}
	sizes := tempering.SubsetSizes(betas, n)
	equal, ones := 0, 0
	for m := 1; m < len(sizes); m++ {
		if sizes[m] == sizes[m-1] {
			equal++
		}
		if sizes[m] == 1 {
			ones++
		}
	}
	if equal == 0 && ones == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the ladder degenerates over N = %d: subset sizes %v (%d adjacent levels of equal size, %d of a single observation); use fewer --levels or a larger --beta-min", n, sizes, equal, ones)
}
