package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// iidDraws returns C chains of n independent draws of dim standard
// normals, chain c's shifted by shift·c.
func iidDraws(C, n, dim int, shift float64, seed uint64) [][][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := make([][][]float64, C)
	for c := range d {
		d[c] = make([][]float64, n)
		for s := range d[c] {
			d[c][s] = make([]float64, dim)
			for i := range d[c][s] {
				d[c][s][i] = rng.NormFloat64() + shift*float64(c)
			}
		}
	}
	return d
}

func TestStopRule(t *testing.T) {
	mixed := iidDraws(4, 500, 3, 0, 1) // ESS about 2000 each, R-hat about 1
	cases := []struct {
		name  string
		rule  StopRule
		draws [][][]float64
		want  bool
	}{
		{"mixed, ESS 400 wanted", StopRule{MinESS: 400}, mixed, true},
		{"mixed, ESS 5000 wanted", StopRule{MinESS: 5000}, mixed, false},
		{"chains apart", StopRule{MinESS: 10}, iidDraws(4, 500, 3, 0.3, 2), false},
		{"100 per chain at least", StopRule{}, iidDraws(4, 60, 3, 0, 3), false},
		{"100 per chain met", StopRule{}, iidDraws(4, 300, 3, 0, 3), true},
		{"constant after the transform", StopRule{Transform: func(dst, u []float64) { copy(dst, u); dst[1] = 1 }}, mixed, false},
		{"exp of mixed draws", StopRule{MinESS: 400, Transform: ExpTransform}, mixed, true},
		{"too few draws", StopRule{}, iidDraws(4, 3, 3, 0, 4), false},
		{"no chains", StopRule{}, nil, false},
	}
	for _, c := range cases {
		if got := c.rule.Enough(c.draws); got != c.want {
			t.Errorf("%s: Enough = %v, want %v", c.name, got, c.want)
		}
		// With Observe the verdict is the same, and it is told the
		// smallest ESS, computed here from the variables directly.
		var seen []float64
		r := c.rule
		r.Observe = func(n int, least float64) {
			if len(c.draws) > 0 && n != len(c.draws[0]) {
				t.Errorf("%s: Observe told %d draws, want %d", c.name, n, len(c.draws[0]))
			}
			seen = append(seen, least)
		}
		if got := r.Enough(c.draws); got != c.want {
			t.Errorf("%s with Observe: Enough = %v, want %v", c.name, got, c.want)
		}
		if c.name != "mixed, ESS 400 wanted" && c.name != "chains apart" {
			continue
		}
		want := math.Inf(1)
		for i := range c.draws[0][0] {
			ch := make([][]float64, len(c.draws))
			for k, d := range c.draws {
				for _, u := range d {
					ch[k] = append(ch[k], u[i])
				}
			}
			want = min(want, ESSBulk(ch), ESSTail(ch))
		}
		if len(seen) != 1 || seen[0] != want {
			t.Errorf("%s: Observe saw %v, want [%v]", c.name, seen, want)
		}
	}
}
