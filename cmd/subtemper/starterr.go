package main

import (
	"fmt"
	"math"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/fileio"
	"gonum.org/v1/gonum/stat"
)

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
