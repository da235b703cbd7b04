package tempering

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Surrogate is a cheap approximation of a log posterior density, for
// SurrogateTransition: a multivariate Student-t (a fitted independence
// proposal) times the exponential of a Gaussian-process regression of
// the log importance weights log π − log t at points where π was
// evaluated, raised to their median (so the surrogate is never below the
// t where the weights are typical or higher; see surrogateFloor). Where the posterior departs from the t (a skewed length
// scale, a curved ridge) the regression follows it between the points;
// far from them it returns to its constant mean, so the surrogate's
// tails are the t's. Its evaluation costs a kernel sum over the points
// (a few microseconds for a thousand points), not a factorisation. A
// Surrogate is immutable and safe for concurrent use.
type Surrogate struct {
	center []float64
	chol   []float64 // lower Cholesky factor of the t's scale matrix, row-major
	df     float64
	pts    [][]float64 // the regression's inputs, whitened by chol
	alpha  []float64   // (K + ηI)⁻¹(y − mean)
	mean   float64
	floor  float64 // the regression's inputs and predictions are raised to it
	length float64 // the squared-exponential kernel's length scale, whitened units
	noise  float64 // η, relative to the kernel's amplitude
}

// surrogateLengths and surrogateNoises are the grid of the regression's
// length scale (in the t's whitened units) and nugget from which
// FitSurrogate picks the pair of highest marginal likelihood.
var (
	surrogateLengths = []float64{1, 1.5, 2, 3, 4}
	surrogateNoises  = []float64{1e-6, 1e-4, 1e-2}
)

// surrogateFloor is the quantile of the log weights to which
// FitSurrogate raises the lower ones, and its regression's predictions:
// the median, so the surrogate only ever raises the t. Its weights
// π/π̃ are then never further above their median than the t's own are
// (an independence chain sticks where they are high), and the
// regression fits the bulk's smooth log weights, not the steep fall
// where the posterior ends well inside the t (a wall); a surrogate chain
// that goes there is turned back by the exact correction.
const surrogateFloor = 0.5

// surrogateSelect is the most points FitSurrogate chooses the length
// scale and nugget on.
const surrogateSelect = 500

// FitSurrogate fits a Surrogate to the log densities lp at the points xs:
// the t of location center, scale matrix scale·cov (row-major) and df
// degrees of freedom, times exp of a Gaussian-process regression (a
// squared-exponential kernel in the t's whitened coordinates, a constant
// mean by generalised least squares) of lp − log t. The length scale and
// nugget are those of highest marginal likelihood on a grid, chosen on
// at most 500 of the points; the regression then uses all of them.
// Points whose lp is not finite are left out.
func FitSurrogate(center, cov []float64, scale, df float64, xs [][]float64, lp []float64) (*Surrogate, error) {
	D := len(center)
	switch {
	case len(cov) != D*D:
		return nil, fmt.Errorf("surrogate: a centre of length %d needs a %d×%d scale matrix, got %d entries", D, D, D, len(cov))
	case len(xs) != len(lp):
		return nil, fmt.Errorf("surrogate: %d points but %d log densities", len(xs), len(lp))
	case !(df > 0) || !(scale > 0):
		return nil, fmt.Errorf("surrogate: degrees of freedom and scale must be positive, got %v and %v", df, scale)
	}
	s := &Surrogate{center: append([]float64(nil), center...), chol: make([]float64, D*D), df: df}
	a := make([]float64, D*D)
	for i, v := range cov {
		a[i] = scale * v
	}
	if !cholesky(a, s.chol, D) {
		return nil, errors.New("surrogate: the scale matrix is not positive definite")
	}
	var zs [][]float64
	var ys []float64
	for k, x := range xs {
		if math.IsInf(lp[k], 0) || math.IsNaN(lp[k]) || len(x) != D {
			continue
		}
		z := make([]float64, D)
		m := s.whiten(x, z)
		zs, ys = append(zs, z), append(ys, lp[k]-s.logT(m))
	}
	if len(zs) < 2*D+2 {
		return nil, fmt.Errorf("surrogate: %d points with a finite log density, need at least %d", len(zs), 2*D+2)
	}
	s.floor = quantile(ys, surrogateFloor)
	for k := range ys {
		ys[k] = max(ys[k], s.floor)
	}
	stride := (len(zs) + surrogateSelect - 1) / surrogateSelect
	var hz [][]float64
	var hy []float64
	for k := 0; k < len(zs); k += stride {
		hz, hy = append(hz, zs[k]), append(hy, ys[k])
	}
	best := math.Inf(-1)
	for _, l := range surrogateLengths {
		for _, eta := range surrogateNoises {
			if f, ok := regress(hz, hy, l, eta); ok && f.logML > best {
				best, s.length, s.noise = f.logML, l, eta
			}
		}
	}
	if math.IsInf(best, -1) {
		return nil, errors.New("surrogate: no length scale gave a positive definite kernel matrix")
	}
	f, ok := regress(zs, ys, s.length, s.noise)
	if !ok {
		return nil, errors.New("surrogate: the kernel matrix on all points is not positive definite")
	}
	s.pts, s.alpha, s.mean = zs, f.alpha, f.mean
	return s, nil
}

// regression is a fitted Gaussian-process regression: alpha = A⁻¹(y −
// mean), A = K + ηI, and the log marginal likelihood with the amplitude
// profiled out.
type regression struct {
	alpha []float64
	mean  float64
	logML float64
}

// regress fits the regression of y on z with a squared-exponential
// kernel of length scale l and nugget eta; ok is false where A is not
// positive definite.
func regress(z [][]float64, y []float64, l, eta float64) (regression, bool) {
	n := len(z)
	a := mat.NewSymDense(n, nil)
	c := -0.5 / (l * l)
	for i := range n {
		a.SetSym(i, i, 1+eta)
		for j := range i {
			a.SetSym(i, j, math.Exp(c*sqDist(z[i], z[j])))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return regression{}, false
	}
	ones := mat.NewVecDense(n, nil)
	for i := range n {
		ones.SetVec(i, 1)
	}
	yv := mat.NewVecDense(n, append([]float64(nil), y...))
	var ai1, aiy mat.VecDense
	if ch.SolveVecTo(&ai1, ones) != nil || ch.SolveVecTo(&aiy, yv) != nil {
		return regression{}, false
	}
	mean := mat.Dot(ones, &aiy) / mat.Dot(ones, &ai1)
	alpha := make([]float64, n)
	var rss float64
	for i := range n {
		alpha[i] = aiy.AtVec(i) - mean*ai1.AtVec(i)
		rss += (y[i] - mean) * alpha[i]
	}
	if !(rss > 0) {
		return regression{}, false
	}
	logML := -0.5*float64(n)*math.Log(rss/float64(n)) - 0.5*ch.LogDet()
	return regression{alpha: alpha, mean: mean, logML: logML}, true
}

// sqDist returns |a − b|².
func sqDist(a, b []float64) float64 {
	var d2 float64
	for i, v := range a {
		d := v - b[i]
		d2 += d * d
	}
	return d2
}

// Dim returns the dimension of the surrogate's space.
func (s *Surrogate) Dim() int { return len(s.center) }

// whiten sets z = L⁻¹(v − center) and returns |z|².
func (s *Surrogate) whiten(v, z []float64) float64 {
	whiten(s.chol, s.center, v, z)
	var m float64
	for _, w := range z {
		m += w * w
	}
	return m
}

// logT returns the t's log density, up to a constant, at squared
// whitened distance m.
func (s *Surrogate) logT(m float64) float64 {
	return -0.5 * (s.df + float64(len(s.center))) * math.Log1p(m/s.df)
}

// residual returns the regression's prediction of the log weight at the
// whitened point z.
func (s *Surrogate) residual(z []float64) float64 {
	r := s.mean
	c := -0.5 / (s.length * s.length)
	for k, p := range s.pts {
		if e := c * sqDist(z, p); e > -40 {
			r += s.alpha[k] * math.Exp(e)
		}
	}
	return max(r, s.floor)
}

// quantile returns the p-quantile of x (the order statistic at
// ⌊p·(n−1)⌋), leaving x unchanged.
func quantile(x []float64, p float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[int(p*float64(len(y)-1))]
}

// LogDensity returns the surrogate's log density at v, up to a constant;
// z is scratch space of length Dim.
func (s *Surrogate) LogDensity(v, z []float64) float64 {
	total, _ := s.logParts(v, z)
	return total
}

// logParts returns the surrogate's log density at v and the t's part of
// it, up to the same constants.
func (s *Surrogate) logParts(v, z []float64) (total, t float64) {
	t = s.logT(s.whiten(v, z))
	return t + s.residual(z), t
}

// draw sets out to a draw from the surrogate's t.
func (s *Surrogate) draw(rng *rand.Rand, z, out []float64) {
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	sc := 1 / math.Sqrt(gammaRand(rng, s.df/2)*2/s.df)
	lowerOffset(s.chol, z, s.center, sc, out)
}

// walk sets out to a random-walk proposal from base: base + sc·L·z, z
// standard normal (into z) and L the t's scale factor.
func (s *Surrogate) walk(rng *rand.Rand, z, base []float64, sc float64, out []float64) {
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	lowerOffset(s.chol, z, base, sc, out)
}

// surrogateRecord is a Surrogate's fields, exported for encoding/gob.
type surrogateRecord struct {
	Center, Chol []float64
	DF           float64
	Pts          [][]float64
	Alpha        []float64
	Mean, Floor  float64
	Length       float64
	Noise        float64
}

// MarshalBinary encodes the surrogate, so that UnmarshalBinary gives back
// one whose LogDensity is the same, bit for bit, everywhere (a resumed run
// screens its proposals as the run it resumes did).
func (s *Surrogate) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	rec := surrogateRecord{Center: s.center, Chol: s.chol, DF: s.df, Pts: s.pts, Alpha: s.alpha, Mean: s.mean, Floor: s.floor, Length: s.length, Noise: s.noise}
	if err := gob.NewEncoder(&buf).Encode(&rec); err != nil {
		return nil, fmt.Errorf("surrogate: encoding: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a surrogate that MarshalBinary encoded into s,
// checking that its parts agree in size.
func (s *Surrogate) UnmarshalBinary(b []byte) error {
	var rec surrogateRecord
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rec); err != nil {
		return fmt.Errorf("surrogate: decoding: %w", err)
	}
	D := len(rec.Center)
	ok := D > 0 && len(rec.Chol) == D*D && len(rec.Alpha) == len(rec.Pts) && rec.DF > 0 && rec.Length > 0
	for _, p := range rec.Pts {
		ok = ok && len(p) == D
	}
	if !ok {
		return fmt.Errorf("surrogate: decoding: a centre of %d, a factor of %d entries, %d points and %d weights (df %v, length scale %v) do not make a surrogate",
			D, len(rec.Chol), len(rec.Pts), len(rec.Alpha), rec.DF, rec.Length)
	}
	*s = Surrogate{center: rec.Center, chol: rec.Chol, df: rec.DF, pts: rec.Pts, alpha: rec.Alpha, mean: rec.Mean, floor: rec.Floor, length: rec.Length, noise: rec.Noise}
	return nil
}
