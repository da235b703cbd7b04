// Command profile prints the profile log posterior of one parameter of the
// GP on the paper's §4.2 generator: at each value of that parameter (in u =
// log θ) the others are set by L-BFGS to maximise the log posterior. It is
// how docs/LARGE.md measures the σf–σn ridge at D = 8:
//
//	go run -tags openblas ./scripts/profile -n 1024 -dims 8
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/subtemper/subtemper/bench"
	"gonum.org/v1/gonum/optimize"
)

func main() {
	n := flag.Int("n", 1024, "number of observations")
	dims := flag.Int("dims", 8, "number of inputs D")
	seed := flag.Uint64("data-seed", 1, "seed of the generator")
	flag.Parse()
	be, err := bench.Backend("")
	if err != nil {
		panic(err)
	}
	t, err := bench.NewTarget(be, bench.ModelGP, *n, *dims, *seed)
	if err != nil {
		panic(err)
	}
	d := t.Dim()
	lp := func(u, g []float64) float64 {
		var gp []float64
		if g != nil {
			gp = make([]float64, d)
		}
		ll, err := t.LogLik(nil, u, g)
		if err != nil {
			return math.Inf(-1)
		}
		p := t.LogPrior(u, gp)
		for i := range g {
			g[i] += gp[i]
		}
		return ll + p
	}
	// The MAP of all parameters, then the profile of log σn (the last).
	u := make([]float64, d)
	prob := func(fix int, val float64) optimize.Problem {
		return optimize.Problem{
			Func: func(x []float64) float64 {
				uu := append([]float64(nil), x...)
				if fix >= 0 {
					uu = append(uu[:fix:fix], append([]float64{val}, uu[fix:]...)...)
				}
				return -lp(uu, nil)
			},
			Grad: func(g, x []float64) {
				uu := append([]float64(nil), x...)
				if fix >= 0 {
					uu = append(uu[:fix:fix], append([]float64{val}, uu[fix:]...)...)
				}
				gg := make([]float64, d)
				lp(uu, gg)
				j := 0
				for i := range gg {
					if i == fix {
						continue
					}
					g[j] = -gg[i]
					j++
				}
			},
		}
	}
	res, err := optimize.Minimize(prob(-1, 0), u, nil, &optimize.LBFGS{})
	if err != nil {
		// L-BFGS ends on a failed line search at the optimum's rounding
		// level; the point it returns is kept.
		fmt.Fprintln(os.Stderr, err)
	}
	u = res.X
	fmt.Printf("MAP %.3f  logpost %.3f\n", u, -res.F)
	x := append([]float64(nil), u[:d-1]...)
	for _, v := range []float64{1.6, 1.4, 1.3, 1.2, 1.1, 1.0, 0.8, 0.6, 0.4, 0.2, 0, -0.5, -1, -1.5, -2, -3, -4, -5} {
		r, err := optimize.Minimize(prob(d-1, v), x, nil, &optimize.LBFGS{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		uu := append(append([]float64(nil), r.X...), v)
		ll, _ := t.LogLik(nil, uu, nil)
		fmt.Printf("log sn %5.2f profile logpost %9.3f  loglik %9.3f  logprior %7.3f  log sf %.3f  ells %.2f\n", v, -r.F, ll, t.LogPrior(uu, nil), r.X[d-2], r.X[:d-2])
	}
}
