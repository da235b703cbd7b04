package main

import (
	"fmt"
	"math"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/tempering"
	"gonum.org/v1/gonum/stat"
)

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

// scaleNote describes data whose scale is far from 1 (a column, input or
// target, whose standard deviation is beyond 10⁴ or below 10⁻⁴: the
// paper's priors put length scales, σf and σn near 1, and values near
// 10¹⁵⁰ overflow once squared), the likely cause of a model that cannot
// be evaluated; "" otherwise.
func scaleNote(d *subtemper.GPData) string {
	worst, name, sd := 0.0, "", 0.0
	col := make([]float64, d.N)
	for j := -1; j < d.D; j++ {
		for i := range d.N {
			if j < 0 {
				col[i] = d.Y[i]
			} else {
				col[i] = d.X[i*d.D+j]
			}
		}
		s := stat.StdDev(col, nil)
		if math.IsInf(s, 0) || math.IsNaN(s) {
			// The squares overflow: the scale is beyond what float64
			// can sum; report the largest magnitude instead.
			s = 0
			for _, v := range col {
				s = max(s, math.Abs(v))
			}
		}
		if !(s > 0) {
			continue
		}
		if l := math.Abs(math.Log10(s)); l > worst {
			worst, sd = l, s
			name = d.TargetName()
			if j >= 0 {
				name = d.InputName(j)
			}
		}
	}
	if worst <= 4 {
		return ""
	}
	return fmt.Sprintf("the data's scale is far from 1 (column %s has a standard deviation of %.3g)", fileio.Quote(name), sd)
}
