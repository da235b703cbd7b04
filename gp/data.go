package gp

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Data is a regression dataset: N observations of D inputs (X, row-major
// N×D) and one target (Y, len N). Names holds the D input column names and
// Target the target's name (used when writing CSV; they may be empty).
// A Model shares its Data read-only: do not modify it afterwards.
type Data struct {
	N, D   int
	X      []float64
	Y      []float64
	Names  []string
	Target string
}

// Check reports whether d is well formed: consistent sizes, N ≥ 1, D ≥ 1,
// finite values.
func (d *Data) Check() error {
	if d == nil {
		return fmt.Errorf("gp: nil data")
	}
	if d.N < 1 || d.D < 1 {
		return fmt.Errorf("gp: data of %d observations × %d inputs", d.N, d.D)
	}
	if len(d.X) != d.N*d.D || len(d.Y) != d.N {
		return fmt.Errorf("gp: data: len(X) = %d, len(Y) = %d for %d×%d", len(d.X), len(d.Y), d.N, d.D)
	}
	if d.Names != nil && len(d.Names) != d.D {
		return fmt.Errorf("gp: data: %d input names for %d inputs", len(d.Names), d.D)
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: data: X[%d,%d] = %v", i/d.D, i%d.D, v)
		}
	}
	for i, v := range d.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("gp: data: Y[%d] = %v", i, v)
		}
	}
	return nil
}

// Prefix returns the dataset of the first n observations (sharing memory
// with d).
func (d *Data) Prefix(n int) (*Data, error) {
	if n < 1 || n > d.N {
		return nil, fmt.Errorf("gp: prefix of %d observations out of %d", n, d.N)
	}
	return &Data{N: n, D: d.D, X: d.X[:n*d.D], Y: d.Y[:n], Names: d.Names, Target: d.Target}, nil
}

// InputName returns the name of input j (x1, x2, … when Names is empty).
func (d *Data) InputName(j int) string {
	if j < len(d.Names) && d.Names[j] != "" {
		return d.Names[j]
	}
	return fmt.Sprintf("x%d", j+1)
}

// TargetName returns the name of the target (y when Target is empty).
func (d *Data) TargetName() string {
	if d.Target != "" {
		return d.Target
	}
	return "y"
}

// Standardization records how a dataset was standardised: input j became
// (x_j − XMean[j])/XSD[j] and the target (y − YMean)/YSD. Nil XMean/XSD
// mean the inputs were left alone; YSD = 0 means the target was left alone.
// The zero value is the identity.
type Standardization struct {
	XMean, XSD []float64
	YMean, YSD float64
}

// Standardize returns a copy of d with the inputs (if inputs) and the target
// (if target) centred and scaled to unit sample standard deviation, and the
// Standardization that undoes it. A constant column cannot be scaled and
// gives an error naming it, as does a column whose standard deviation
// overflows float64 (values near ±MaxFloat64 of both signs).
//
// Standardize is StandardizeContext with a context never cancelled.
func Standardize(d *Data, inputs, target bool) (*Data, Standardization, error) {
	return StandardizeContext(context.Background(), d, inputs, target)
}

// StandardizeContext is Standardize, stopped when ctx is cancelled: it
// checks ctx before each column (each is O(N) work) and returns ctx.Err()
// once it sees it cancelled.
func StandardizeContext(ctx context.Context, d *Data, inputs, target bool) (*Data, Standardization, error) {
	var s Standardization
	if err := d.Check(); err != nil {
		return nil, s, err
	}
	if d.N < 2 && (inputs || target) {
		return nil, s, fmt.Errorf("gp: standardize: %d observation; need at least 2", d.N)
	}
	out := &Data{N: d.N, D: d.D, X: append([]float64(nil), d.X...), Y: append([]float64(nil), d.Y...), Names: d.Names, Target: d.Target}
	if inputs {
		s.XMean = make([]float64, d.D)
		s.XSD = make([]float64, d.D)
		col := make([]float64, d.N)
		z := make([]float64, d.N)
		for j := 0; j < d.D; j++ {
			if err := ctx.Err(); err != nil {
				return nil, Standardization{}, err
			}
			for i := range col {
				col[i] = d.X[i*d.D+j]
			}
			m, sd, err := standardize(z, col)
			if errors.Is(err, errConstant) {
				return nil, Standardization{}, fmt.Errorf("gp: standardize: input column %d (%q) is constant (every value is %v): drop it", j+1, d.InputName(j), col[0])
			}
			if err != nil {
				return nil, Standardization{}, fmt.Errorf("gp: standardize: input column %d (%q): %w", j+1, d.InputName(j), err)
			}
			s.XMean[j], s.XSD[j] = m, sd
			for i, v := range z {
				out.X[i*d.D+j] = v
			}
		}
	}
	if target {
		if err := ctx.Err(); err != nil {
			return nil, Standardization{}, err
		}
		m, sd, err := standardize(out.Y, d.Y)
		if errors.Is(err, errConstant) {
			return nil, Standardization{}, fmt.Errorf("gp: standardize: target %q is constant (every value is %v)", d.TargetName(), d.Y[0])
		}
		if err != nil {
			return nil, Standardization{}, fmt.Errorf("gp: standardize: target %q: %w", d.TargetName(), err)
		}
		s.YMean, s.YSD = m, sd
	}
	return out, s, nil
}

// errConstant is standardize's error for a column without spread.
var errConstant = errors.New("constant column")

// standardize writes (v_i − mean)/sd into dst (len(v), not aliasing v) and
// returns the mean and the sample standard deviation (n−1) of v. It works
// on v scaled by the power of two that brings max|v_i| into [½, 1), so the
// sums and squares neither overflow nor underflow, and away from subnormal
// numbers the results are exactly those of the unscaled two-pass formulas.
// The scaled mean is at most max|v_i| in size and the standardized values
// are bounded, so only sd can overflow. The errors are errConstant when sd
// is 0, and an error saying so when sd overflows (a spread beyond
// MaxFloat64).
func standardize(dst, v []float64) (mean, sd float64, err error) {
	m, s, e := scaledMeanSD(v)
	if !(s > 0) {
		return 0, 0, errConstant
	}
	mean, sd = math.Ldexp(m, e), math.Ldexp(s, e)
	if math.IsInf(sd, 0) {
		return 0, 0, fmt.Errorf("mean %v, standard deviation %v: not finite in float64 (the values are too spread out); rescale the column", mean, sd)
	}
	for i, x := range v {
		dst[i] = (math.Ldexp(x, -e) - m) / s
	}
	return mean, sd, nil
}

// scaledMeanSD returns the mean m and the sample standard deviation s
// (n−1; 0 for one value) of v·2^−e, computed in two passes, and e, chosen
// so that max|v_i|·2^−e lies in [½, 1) (e = 0 when every v_i is 0).
func scaledMeanSD(v []float64) (m, s float64, e int) {
	var big float64
	for _, x := range v {
		big = math.Max(big, math.Abs(x))
	}
	_, e = math.Frexp(big)
	for _, x := range v {
		m += math.Ldexp(x, -e)
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		r := math.Ldexp(x, -e) - m
		ss += r * r
	}
	if len(v) > 1 {
		s = math.Sqrt(ss / float64(len(v)-1))
	}
	return m, s, e
}

// Original maps hyperparameters θ = (ℓ_1..ℓ_D, σf, σn) fitted to the
// standardised data back to the original units: ℓ_d·XSD[d], σf·YSD,
// σn·YSD. It writes into dst (allocated if nil; len(theta)) and returns it.
// dst and theta may be the same slice.
func (s Standardization) Original(dst, theta []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(theta))
	}
	d := len(theta) - 2
	copy(dst, theta)
	if s.XSD != nil {
		for j := 0; j < d && j < len(s.XSD); j++ {
			dst[j] *= s.XSD[j]
		}
	}
	if s.YSD != 0 {
		dst[d] *= s.YSD
		dst[d+1] *= s.YSD
	}
	return dst
}

// OriginalU is Original in the sampling space: it adds log XSD[d] and
// log YSD to u = log θ.
func (s Standardization) OriginalU(dst, u []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(u))
	}
	d := len(u) - 2
	copy(dst, u)
	if s.XSD != nil {
		for j := 0; j < d && j < len(s.XSD); j++ {
			dst[j] += math.Log(s.XSD[j])
		}
	}
	if s.YSD != 0 {
		dst[d] += math.Log(s.YSD)
		dst[d+1] += math.Log(s.YSD)
	}
	return dst
}

// Theta writes θ = exp(u) into dst (allocated if nil) and returns it.
func Theta(dst, u []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(u))
	}
	for i, v := range u {
		dst[i] = math.Exp(v)
	}
	return dst
}

// LogTheta writes u = log θ into dst (allocated if nil) and returns it; a
// component of θ that is not positive and finite is an error.
func LogTheta(dst, theta []float64) ([]float64, error) {
	if dst == nil {
		dst = make([]float64, len(theta))
	}
	for i, v := range theta {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("gp: hyperparameter %d = %v, want positive and finite", i, v)
		}
		dst[i] = math.Log(v)
	}
	return dst, nil
}
