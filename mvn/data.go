package mvn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Data holds N observations of dimension D (X, row-major N×D) and optional
// column names. A Model shares its Data read-only: do not modify it
// afterwards.
type Data struct {
	N, D  int
	X     []float64
	Names []string
}

// Check reports whether d is well formed: consistent sizes, N ≥ 1, D ≥ 1,
// finite values.
func (d *Data) Check() error {
	if d == nil {
		return fmt.Errorf("mvn: nil data")
	}
	if d.N < 1 || d.D < 1 || len(d.X) != d.N*d.D {
		return fmt.Errorf("mvn: data: %d values for %d observations × %d dimensions", len(d.X), d.N, d.D)
	}
	if d.Names != nil && len(d.Names) != d.D {
		return fmt.Errorf("mvn: data: %d names for %d dimensions", len(d.Names), d.D)
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mvn: data: X[%d,%d] = %v", i/d.D, i%d.D, v)
		}
	}
	return nil
}

// Prefix returns the dataset of the first n observations (sharing memory
// with d).
func (d *Data) Prefix(n int) (*Data, error) {
	if n < 1 || n > d.N {
		return nil, fmt.Errorf("mvn: prefix of %d observations out of %d", n, d.N)
	}
	return &Data{N: n, D: d.D, X: d.X[:n*d.D], Names: d.Names}, nil
}

// ColumnName returns the name of column j (x1, x2, … when Names is empty).
func (d *Data) ColumnName(j int) string {
	if j < len(d.Names) && d.Names[j] != "" {
		return d.Names[j]
	}
	return fmt.Sprintf("x%d", j+1)
}

// Default parameters of the synthetic Σ (see the package documentation).
const (
	DefaultRho   = 0.5 // correlation of neighbouring coordinates
	DefaultScale = 1.0 // marginal standard deviation s
)

// ARSigma returns the d×d AR(1) covariance Σ_ij = s²·ρ^|i−j| (s > 0,
// |ρ| < 1), positive definite for every d with eigenvalues in
// (s²(1−|ρ|)/(1+|ρ|), s²(1+|ρ|)/(1−|ρ|)).
func ARSigma(d int, s, rho float64) (*mat.SymDense, error) {
	if d < 1 || !(s > 0) || math.IsInf(s, 0) || !(math.Abs(rho) < 1) {
		return nil, fmt.Errorf("mvn: AR(1) covariance of order %d with s = %v, ρ = %v: want d ≥ 1, s > 0, |ρ| < 1", d, s, rho)
	}
	// ρ^k once per lag k (the same values as a Pow per entry, d times
	// fewer calls: for d in the thousands the Pow calls took seconds).
	pw := make([]float64, d)
	for k := range pw {
		pw[k] = s * s * math.Pow(rho, float64(k))
	}
	sg := mat.NewSymDense(d, nil)
	raw := sg.RawSymmetric()
	for i := 0; i < d; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := i; j < d; j++ {
			row[j] = pw[j-i]
		}
	}
	return sg, nil
}

// SynthOptions configures Synthetic. The zero value is the default: the
// AR(1) Σ with ρ = DefaultRho and s = DefaultScale, and σ0 = DefaultSigma0.
type SynthOptions struct {
	// Sigma is the covariance of the observations (D×D); nil means
	// ARSigma(D, DefaultScale, DefaultRho).
	Sigma mat.Symmetric
	// Sigma0 is the prior standard deviation of θ_d; 0 means DefaultSigma0.
	Sigma0 float64
}

// Synthetic draws n observations of dimension d from the model, and returns
// them with the Σ used and the true θ: θ_d ~ N(0, σ0²), then
// x_i = θ + L·z_i with Σ = L·Lᵀ and z_i iid standard normal.
//
// For a given seed the first m ≤ n observations are the same whatever n
// is: θ and the z_i come from independent PCG streams of the seed, and z_i
// is the i-th block of d draws of its stream.
//
// Synthetic is SyntheticContext with a context never cancelled.
func Synthetic(n, d int, seed uint64, opt SynthOptions) (*Data, *mat.SymDense, []float64, error) {
	return SyntheticContext(context.Background(), n, d, seed, opt)
}

// SyntheticContext is Synthetic, stopped when ctx is cancelled, returning
// ctx.Err(). The Cholesky factorisation of Σ (gonum's, O(d³), not
// interruptible) runs in a goroutine of its own; when ctx is cancelled
// first, SyntheticContext returns at once and abandons that goroutine,
// which runs to the end of the factorisation and then exits (its result
// is dropped). The draws (O(n·d²)) check ctx before each row.
func SyntheticContext(ctx context.Context, n, d int, seed uint64, opt SynthOptions) (*Data, *mat.SymDense, []float64, error) {
	if n < 1 || d < 1 {
		return nil, nil, nil, fmt.Errorf("mvn: synthetic data of %d observations × %d dimensions", n, d)
	}
	s0 := opt.Sigma0
	if s0 == 0 {
		s0 = DefaultSigma0
	}
	if !(s0 > 0) || math.IsInf(s0, 0) {
		return nil, nil, nil, fmt.Errorf("mvn: synthetic data: σ0 = %v, want positive and finite", opt.Sigma0)
	}
	sg := mat.NewSymDense(d, nil)
	if opt.Sigma == nil {
		ar, err := ARSigma(d, DefaultScale, DefaultRho)
		if err != nil {
			return nil, nil, nil, err
		}
		sg = ar
	} else {
		if opt.Sigma.SymmetricDim() != d {
			return nil, nil, nil, fmt.Errorf("mvn: synthetic data: Σ is %d×%d for d = %d", opt.Sigma.SymmetricDim(), opt.Sigma.SymmetricDim(), d)
		}
		sg.CopySym(opt.Sigma)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	l, err := synthCholesky(ctx, sg)
	if err != nil {
		return nil, nil, nil, err
	}
	rt := rand.New(rand.NewPCG(seed, 1))
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = s0 * rt.NormFloat64()
	}
	rx := rand.New(rand.NewPCG(seed, 2))
	x := make([]float64, n*d)
	z := make([]float64, d)
	// The lower triangle row by row, in the same order of operations as
	// l.At(a, b) would give; ctx is checked before each row (O(d²) work).
	lr := l.RawTriangular()
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		for j := range z {
			z[j] = rx.NormFloat64()
		}
		row := x[i*d : i*d+d]
		for a := 0; a < d; a++ {
			v := theta[a]
			la := lr.Data[a*lr.Stride : a*lr.Stride+a+1]
			for b, lab := range la {
				v += lab * z[b]
			}
			row[a] = v
		}
	}
	names := make([]string, d)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	return &Data{N: n, D: d, X: x, Names: names}, sg, theta, nil
}

// synthCholesky returns the lower Cholesky factor of sg, factorised in
// a goroutine of its own that is abandoned if ctx is cancelled first
// (then it returns ctx.Err()).
func synthCholesky(ctx context.Context, sg *mat.SymDense) (*mat.TriDense, error) {
	type factor struct {
		l  *mat.TriDense
		ok bool
	}
	fc := make(chan factor, 1) // buffered: an abandoned factorisation does not block
	go func() {
		var ch mat.Cholesky
		if !ch.Factorize(sg) {
			fc <- factor{}
			return
		}
		var l mat.TriDense
		ch.LTo(&l)
		fc <- factor{&l, true}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case f := <-fc:
		if !f.ok {
			d := sg.SymmetricDim()
			return nil, fmt.Errorf("mvn: synthetic data: Σ (%d×%d) is not positive definite", d, d)
		}
		return f.l, nil
	}
}
