// Command bimodalsearch searches for one-input GP datasets whose
// hyperparameter posterior (subtemper's gp model, the paper's prior) has two
// modes of comparable mass: a short length scale with low noise and a long
// length scale with high noise (Rasmussen & Williams 2006, §5.4.1). It is how
// gp.BimodalExample's data were chosen; it is not part of the build.
//
//	go run ./scripts/compare/bimodalsearch [-seeds 40] [-n 24,32,40] [-a 0.2,0.3,0.4] [-om 4,6] [-s 0.05,0.1] [-depth 2]
//
// Each candidate has N inputs drawn uniformly on [−3, 3] and targets
// y = sin(x) + a·sin(ω·x) + s·ε (ε standard normal), from a PCG stream with
// the candidate's seed. For each it prints the masses of the two modes (the
// log posterior on a grid over u = (log ℓ, log σf, log σn), summed with
// log-sum-exp, split at the minimum of the log ℓ marginal between its two
// highest peaks) and the depth of that minimum below the lower peak.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/gp"
)

func lin(a, b float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return v
}

func list(s string) []float64 {
	var v []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			panic(err)
		}
		v = append(v, x)
	}
	return v
}

func main() {
	seeds := flag.Int("seeds", 40, "seeds per setting")
	ns := flag.String("n", "24,32,40", "numbers of observations N")
	as := flag.String("a", "0.2,0.3,0.4", "wiggle amplitudes a")
	oms := flag.String("om", "4,6", "wiggle frequencies ω")
	ss := flag.String("s", "0.05,0.1", "noise standard deviations s")
	minDepth := flag.Float64("depth", 2, "least barrier depth printed (nats)")
	flag.Parse()
	le, lf, ln := lin(-3, 3, 61), lin(-3, 3, 61), lin(-6, 1.5, 61)
	for _, nf := range list(*ns) {
		n := int(nf)
		for _, a := range list(*as) {
			for _, om := range list(*oms) {
				for _, s := range list(*ss) {
					for seed := 1; seed <= *seeds; seed++ {
						rng := rand.New(rand.NewPCG(uint64(seed), 7))
						x := make([]float64, n)
						for i := range x {
							x[i] = -3 + 6*rng.Float64()
						}
						sort.Float64s(x)
						y := make([]float64, n)
						for i, v := range x {
							y[i] = math.Sin(v) + a*math.Sin(om*v) + s*rng.NormFloat64()
						}
						d := &gp.Data{N: n, D: 1, X: x, Y: y}
						lp, err := gp.LogPosteriorGrid(d, gp.Prior{}, 0, le, lf, ln)
						if err != nil {
							panic(err)
						}
						_, sad, w, depth, err := gp.ModeSplit(lp, le)
						if err != nil {
							continue // fewer than two modes
						}
						if w > 0.25 && w < 0.75 && depth > *minDepth {
							fmt.Printf("n=%d a=%.2f om=%.0f s=%.2f seed=%d  short-mode mass %.3f  saddle logℓ %.2f depth %.2f\n",
								n, a, om, s, seed, w, le[sad], depth)
						}
					}
				}
			}
		}
	}
}
