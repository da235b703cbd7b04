package gp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	gblas "gonum.org/v1/gonum/blas/gonum"
)

// Streams of the synthetic-data generator: each draws from its own PCG
// stream of the seed, so that the prefix property holds.
const (
	streamTheta = 1
	streamX     = 2
	streamEps   = 3
)

// Synthetic draws a dataset of n observations with d inputs as the paper
// §4.2 does, and returns it with the θ = (ℓ_1..ℓ_D, σf, σn) it was drawn
// from (natural units):
//
//   - θ from the prior p (the zero Prior is the paper's);
//   - x_i ~ N(0, s²·I_D), s = (Σ_d ℓ_d)/D, iid;
//   - y ~ N(0, K + σn²·I), as y = L·ε with L the lower Cholesky factor of
//     K + σn²I and ε iid standard normal.
//
// For a given seed the first m ≤ n observations are the same, bit for bit,
// whatever n is: θ, the rows of X and ε come from three independent
// streams of the seed, and L is computed row by row (row i from rows < i
// only, with a fixed order of operations), so y_i = Σ_{k≤i} L_ik ε_k
// depends on x_1..x_i and ε_1..ε_i alone.
//
// The computation is pure Go on the host, independent of any backend (so
// the data are the same whatever backend later evaluates them); it takes
// O(n³/3) flops and n² float64 of memory (n = 2048: about a second). An
// error is returned when K + σn²I is not positive definite in floating
// point, which at the paper's prior happens only for extreme draws.
//
// Synthetic is SyntheticContext with a context that is never cancelled.
func Synthetic(n, d int, seed uint64, p Prior) (*Data, []float64, error) {
	return SyntheticContext(context.Background(), n, d, seed, p)
}

// SyntheticContext is Synthetic, stopped when ctx is cancelled: the
// Cholesky factorisation checks ctx between panels of 64 rows and, within
// the update of a panel by earlier rows, every 64 earlier rows (a few tens
// of milliseconds of work at n = 20000 on one core), and returns ctx.Err()
// once it sees it cancelled. The work is done in the calling goroutine and
// its helpers, which have all returned when SyntheticContext does; nothing
// is left running.
func SyntheticContext(ctx context.Context, n, d int, seed uint64, p Prior) (*Data, []float64, error) {
	if n < 1 || d < 1 {
		return nil, nil, fmt.Errorf("gp: synthetic data of %d observations × %d inputs", n, d)
	}
	if _, err := p.WithDefaults(); err != nil {
		return nil, nil, err
	}
	theta := p.Sample(rand.New(rand.NewPCG(seed, streamTheta)), d)
	var s float64
	for _, l := range theta[:d] {
		s += l
	}
	s /= float64(d)
	rx := rand.New(rand.NewPCG(seed, streamX))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = s * rx.NormFloat64()
	}
	re := rand.New(rand.NewPCG(seed, streamEps))
	eps := make([]float64, n)
	for i := range eps {
		eps[i] = re.NormFloat64()
	}
	y, err := drawGP(ctx, x, n, d, theta, eps)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gp: synthetic data (seed %d, θ = %.4g): %w", seed, theta, err)
	}
	names := make([]string, d)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	return &Data{N: n, D: d, X: x, Y: y, Names: names, Target: "y"}, theta, nil
}

// drawGP returns y = L·ε, L the lower Cholesky factor of K + σn²I at θ
// (natural units). Every entry is computed by the same operations whatever
// n is (Cholesky–Banachiewicz: L_ik = (K_ik − L_k,<k·L_i,<k)/L_kk and
// L_ii = sqrt(K_ii − |L_i,<i|²), each dot product over the full prefix), so
// row i depends on rows ≤ i alone. Rows are processed in panels of 64 so
// that each earlier row is read once per panel, and the rows of a panel
// are spread over goroutines for the part that uses earlier panels only;
// neither changes any result. drawGP stops early when ctx is cancelled
// (the caller checks ctx.Err(); y is then incomplete).
func drawGP(ctx context.Context, x []float64, n, d int, theta, eps []float64) ([]float64, error) {
	const nb = 64
	inv := make([]float64, d)
	for j := range inv {
		inv[j] = 1 / theta[j]
	}
	sf2, sn2 := theta[d]*theta[d], theta[d+1]*theta[d+1]
	l := make([]float64, n*n)
	y := make([]float64, n)
	var bl gblas.Implementation
	workers := runtime.GOMAXPROCS(0)
	// offPanel computes L_ik for k < p0 and the rows i of [lo, hi), whose
	// K_ik are in place.
	// Checking ctx.Err() every 64 earlier rows costs nothing measurable.
	offPanel := func(p0, lo, hi int) {
		for k := 0; k < p0; k++ {
			if k%64 == 0 && ctx.Err() != nil {
				return
			}
			lk := l[k*n : k*n+k]
			lkk := l[k*n+k]
			for i := lo; i < hi; i++ {
				li := l[i*n : i*n+k+1]
				li[k] = (li[k] - bl.Ddot(k, lk, 1, li[:k], 1)) / lkk
			}
		}
	}
	var wg sync.WaitGroup
	for p0 := 0; p0 < n; p0 += nb {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p1 := min(p0+nb, n)
		for i := p0; i < p1; i++ {
			xi := x[i*d : i*d+d]
			row := l[i*n : i*n+i]
			for k := range row {
				xk := x[k*d : k*d+d]
				var s float64
				for j, v := range xi {
					t := (v - xk[j]) * inv[j]
					s += t * t
				}
				row[k] = sf2 * math.Exp(-0.5*s)
			}
		}
		if p0 > 0 {
			w := min(workers, p1-p0)
			for c := 0; c < w; c++ {
				lo, hi := p0+c*(p1-p0)/w, p0+(c+1)*(p1-p0)/w
				wg.Add(1)
				go func() {
					defer wg.Done()
					offPanel(p0, lo, hi)
				}()
			}
			wg.Wait()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		for k := p0; k < p1; k++ {
			lk := l[k*n : k*n+k+1]
			piv := sf2 + sn2 - bl.Ddot(k, lk[:k], 1, lk[:k], 1)
			if !(piv > 0) || math.IsInf(piv, 0) {
				return nil, fmt.Errorf("kernel matrix K + σn²I not positive definite at row %d (pivot %v)", k, piv)
			}
			lk[k] = math.Sqrt(piv)
			y[k] = bl.Ddot(k+1, lk, 1, eps[:k+1], 1)
			for i := k + 1; i < p1; i++ {
				li := l[i*n : i*n+k+1]
				li[k] = (li[k] - bl.Ddot(k, lk[:k], 1, li[:k], 1)) / lk[k]
			}
		}
	}
	return y, nil
}
