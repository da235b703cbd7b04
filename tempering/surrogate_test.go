package tempering

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// misfitSurrogate returns a surrogate of the exactness tests' MVN
// posterior that fits it badly: fitted to a Gaussian shifted by about
// half a posterior standard deviation and 1.35 times as wide (a
// narrower one would make the chain stick in the tails it misses, as
// an independence sampler's does, which tests its mixing rather than
// its exactness).
func misfitSurrogate() *Surrogate {
	rng := rand.New(rand.NewPCG(3, 4))
	center := []float64{0.9, -0.4, 0.4}
	wrong := []float64{1.0, -0.3, 0.35}
	var xs [][]float64
	var lp []float64
	for range 200 {
		x := make([]float64, 3)
		var q float64
		for i := range x {
			x[i] = center[i] + 0.3*rng.NormFloat64()
			q += (x[i] - wrong[i]) * (x[i] - wrong[i])
		}
		xs, lp = append(xs, x), append(lp, -q/(2*0.06))
	}
	s, err := FitSurrogate(center, []float64{0.02, 0, 0, 0, 0.02, 0, 0, 0, 0.02}, 1, 4, xs, lp)
	if err != nil {
		panic(err)
	}
	return s
}

// uncorrectedSurrogate is SurrogateTransition with the surrogate's ratio
// left out of the exact acceptance: a broken variant for
// TestExactnessDetectsBrokenRatio.
type uncorrectedSurrogate struct{ SurrogateTransition }

func (k uncorrectedSurrogate) NewLevel(dim int, beta float64) (LevelKernel, error) {
	l, err := k.SurrogateTransition.NewLevel(dim, beta)
	if err != nil {
		return nil, err
	}
	return uncorrectedLevel{l.(*surrogateLevel)}, nil
}

// uncorrectedLevel accepts the surrogate chain's end point on the exact
// density's ratio alone.
type uncorrectedLevel struct{ *surrogateLevel }

func (l uncorrectedLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	l.chain(rng, s)
	info := l.correct(rng, d, s, 0)
	for range l.local {
		l.localStep(rng, d, s)
	}
	return info
}

// TestSurrogateInterpolates checks the surrogate against the density it
// was fitted to, a banana-shaped log density, not a t: between the
// fitted points, where the log weight log π − log t is above the
// surrogate's floor (its median) the surrogate reproduces log π within
// an error sd of 0.1 nats (up to a constant), at most a quarter of the
// t's alone; where it is below, the surrogate stays above log π.
func TestSurrogateInterpolates(t *testing.T) {
	logp := func(x []float64) float64 {
		b := x[1] - 0.5*x[0]*x[0]
		return -0.5*x[0]*x[0] - 2*b*b
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func() []float64 { return []float64{1.3 * rng.NormFloat64(), 1.3 * rng.NormFloat64()} }
	var xs [][]float64
	var lp []float64
	for range 600 {
		x := draw()
		xs, lp = append(xs, x), append(lp, logp(x))
	}
	xs, lp = append(xs, []float64{0, 0}), append(lp, math.Inf(-1)) // left out
	s, err := FitSurrogate([]float64{0, 0}, []float64{1, 0, 0, 1}, 1, 5, xs, lp)
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, 2)
	var above, aboveT, below []float64
	for range 400 {
		x := []float64{0.8 * rng.NormFloat64(), 0.8 * rng.NormFloat64()}
		full, tt := s.logParts(x, z)
		switch w := logp(x) - tt; {
		case w > s.floor+0.5:
			above, aboveT = append(above, full-logp(x)), append(aboveT, tt-logp(x))
		case w < s.floor:
			below = append(below, full-logp(x))
		}
	}
	if len(above) < 50 || len(below) < 50 {
		t.Fatalf("%d test points above the floor and %d below, want 50 each", len(above), len(below))
	}
	c := stat.Mean(above, nil)
	sdS, sdT := stat.StdDev(above, nil), stat.StdDev(aboveT, nil)
	t.Logf("above the floor: error sd %.3f nats, the t's %.3f; below: least error %.3f (length %v, nugget %v)", sdS, sdT, slices.Min(below)-c, s.length, s.noise)
	if sdS > 0.1 || sdT < 4*sdS {
		t.Errorf("above the floor: surrogate error sd %.3f (want ≤ 0.1 and ≤ ¼ of the t's), t's %.3f", sdS, sdT)
	}
	if m := slices.Min(below) - c; m < -0.1 {
		t.Errorf("below the floor the surrogate is %.3f nats under log π", -m)
	}
}

// TestFitSurrogateErrors checks the bad inputs FitSurrogate refuses.
func TestFitSurrogateErrors(t *testing.T) {
	xs := [][]float64{{0}, {1}, {2}, {3}, {4}}
	lp := []float64{0, -1, -2, -3, -4}
	for name, f := range map[string]func() (*Surrogate, error){
		"shape":   func() (*Surrogate, error) { return FitSurrogate([]float64{0}, []float64{1, 0}, 1, 5, xs, lp) },
		"lengths": func() (*Surrogate, error) { return FitSurrogate([]float64{0}, []float64{1}, 1, 5, xs, lp[:2]) },
		"not PD":  func() (*Surrogate, error) { return FitSurrogate([]float64{0}, []float64{-1}, 1, 5, xs, lp) },
		"too few": func() (*Surrogate, error) { return FitSurrogate([]float64{0}, []float64{1}, 1, 5, xs[:3], lp[:3]) },
		"bad df":  func() (*Surrogate, error) { return FitSurrogate([]float64{0}, []float64{1}, 1, 0, xs, lp) },
		"all -Inf": func() (*Surrogate, error) {
			return FitSurrogate([]float64{0}, []float64{1}, 1, 5, xs, []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)})
		},
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	s, err := FitSurrogate([]float64{0}, []float64{1}, 1, 5, xs, lp)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []SurrogateTransition{{}, {Surrogate: s, Steps: -1}, {Surrogate: s, Independent: 2}, {Surrogate: s, Local: -1}} {
		if _, err := k.NewLevel(1, 1); err == nil {
			t.Errorf("%+v: no error", k)
		}
	}
	if _, err := (SurrogateTransition{Surrogate: s}).NewLevel(2, 1); err == nil {
		t.Error("wrong dimension: no error")
	}
}

// TestSurrogateBinary checks that a surrogate decoded from MarshalBinary's
// bytes gives the same log density, bit for bit, and that a record whose
// parts disagree in size is refused.
func TestSurrogateBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var xs [][]float64
	var lp []float64
	for range 200 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		xs, lp = append(xs, x), append(lp, -0.5*(x[0]*x[0]+2*x[1]*x[1]+x[2]*x[2]*x[2]*x[2]))
	}
	s, err := FitSurrogate([]float64{0.1, 0, -0.1}, []float64{1, 0.2, 0, 0.2, 1, 0, 0, 0, 1}, 1.2, 5, xs, lp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Surrogate
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	z := make([]float64, 3)
	for range 100 {
		x := []float64{2 * rng.NormFloat64(), 2 * rng.NormFloat64(), 2 * rng.NormFloat64()}
		if a, c := s.LogDensity(x, z), got.LogDensity(x, z); a != c {
			t.Fatalf("at %v: %v before encoding, %v after", x, a, c)
		}
	}
	bad := *s
	bad.alpha = bad.alpha[1:]
	b, err = bad.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := got.UnmarshalBinary(b); err == nil || !strings.Contains(err.Error(), "do not make a surrogate") {
		t.Errorf("a record of %d points and %d weights decoded with error %v", len(bad.pts), len(bad.alpha), err)
	}
	if err := got.UnmarshalBinary(b[:len(b)/2]); err == nil {
		t.Error("a truncated record decoded")
	}
}
