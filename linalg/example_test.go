package linalg_test

import (
	"fmt"
	"math"

	"github.com/subtemper/subtemper/linalg"
)

// Evaluate a GP log-likelihood and its gradient on the default backend,
// once on all observations and once on a subset.
func Example() {
	be, err := linalg.Get("") // "" is the default, pure-Go "gonum"
	if err != nil {
		fmt.Println(err)
		return
	}
	// Ten points on a line (N = 10, D = 1) and a smooth target.
	const n, d = 10, 1
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range x {
		x[i] = float64(i) / 3
		y[i] = math.Sin(x[i])
	}
	gp, err := be.NewGP(x, n, d, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gp.Close()
	// u = (log ℓ, log σf, log σn)
	u := []float64{math.Log(1.5), 0, math.Log(0.1)}
	grad := make([]float64, d+2)
	ll, err := gp.LogLik(nil, u, grad)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: log-likelihood %.4f, gradient [%.4f %.4f %.4f]\n", be.Name(), ll, grad[0], grad[1], grad[2])
	ll, _ = gp.LogLik([]int{0, 3, 6, 9}, u, nil)
	fmt.Printf("subset of 4: %.4f\n", ll)
	// Output:
	// gonum: log-likelihood 3.8756, gradient [1.6636 -1.5909 -5.8373]
	// subset of 4: -2.9149
}
