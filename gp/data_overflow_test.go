package gp

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// TestStandardizeHuge checks that columns of finite values near 1e160,
// whose squares overflow float64, standardize to finite values of mean 0
// and sample standard deviation 1, that the Standardization maps them back
// to the data, and that Original and OriginalU agree on it.
func TestStandardizeHuge(t *testing.T) {
	big := []float64{1e160, -1e160, 5e159, 0}
	d := &Data{N: 4, D: 2, Names: []string{"x", "b"}, Y: big}
	for i := range big {
		d.X = append(d.X, float64(i+1), -3*big[i])
	}
	std, s, err := Standardize(d, true, true)
	if err != nil {
		t.Fatal(err)
	}
	// The column 10, −10, 5, 0 (×1e159) has mean 1.25 and sd √(218.75/3).
	wantSD := math.Sqrt(218.75/3) * 1e159
	if math.Abs(s.YMean/1.25e159-1) > 1e-12 || math.Abs(s.YSD/wantSD-1) > 1e-12 ||
		math.Abs(s.XSD[1]/(3*wantSD)-1) > 1e-12 {
		t.Errorf("YMean %v, YSD %v, XSD %v; want 1.25e159, %v, [·, %v]", s.YMean, s.YSD, s.XSD, wantSD, 3*wantSD)
	}
	cols := map[string][]float64{"target": std.Y, "x": columnOf(std, 0), "b": columnOf(std, 1)}
	for name, z := range cols {
		var m, ss float64
		for _, v := range z {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: standardized values %v", name, z)
			}
			m += v / float64(len(z))
		}
		for _, v := range z {
			ss += (v - m) * (v - m)
		}
		if sd := math.Sqrt(ss / float64(len(z)-1)); math.Abs(m) > 1e-12 || math.Abs(sd-1) > 1e-12 {
			t.Errorf("%s: standardized mean %v, sd %v; want 0, 1", name, m, sd)
		}
	}
	for i := range big {
		y := std.Y[i]*s.YSD + s.YMean
		x := std.X[i*2+1]*s.XSD[1] + s.XMean[1]
		if math.Abs(y-d.Y[i]) > 1e-12*1e160 || math.Abs(x-d.X[i*2+1]) > 1e-12*3e160 {
			t.Errorf("row %d: back to %v, %v; want %v, %v", i, x, y, d.X[i*2+1], d.Y[i])
		}
	}
	u := []float64{0.3, -0.2, 0.1, -1.2}
	uo := s.OriginalU(nil, u)
	th := s.Original(nil, Theta(nil, u))
	for k := range u {
		if math.IsInf(th[k], 0) || math.IsInf(uo[k], 0) || math.Abs(uo[k]-math.Log(th[k])) > 1e-12*math.Abs(uo[k]) {
			t.Errorf("Original %v and OriginalU %v disagree", th, uo)
			break
		}
	}
	if want := math.Exp(-1.2) * wantSD; math.Abs(th[3]/want-1) > 1e-12 {
		t.Errorf("σn in original units %v, want %v", th[3], want)
	}
}

// TestStandardizeOverflow checks that a column whose standard deviation
// exceeds MaxFloat64 even though every value is finite (±1.7e308: the sd
// is √(4/3)·1.7e308 ≈ 1.96e308) is an error naming the column, not data
// scaled by +Inf.
func TestStandardizeOverflow(t *testing.T) {
	huge := []float64{1.7e308, -1.7e308, 1.7e308, -1.7e308}
	d := &Data{N: 4, D: 2, Names: []string{"a", "b"}, Target: "t", Y: huge}
	for i := range huge {
		d.X = append(d.X, float64(i), huge[i])
	}
	for _, c := range []struct {
		inputs, target bool
		want           string
	}{
		{true, false, `input column 2 ("b")`},
		{false, true, `target "t"`},
	} {
		_, _, err := Standardize(d, c.inputs, c.target)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("inputs %v, target %v: error %v, want one naming %s and saying what is not finite", c.inputs, c.target, err, c.want)
		}
	}
	// Values that large but of one sign have a representable spread.
	d.Y = []float64{1.7e308, 1.6e308, 1.75e308, 1.65e308}
	std, s, err := Standardize(d, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(s.YSD, 0) || math.Abs(std.Y[2]*s.YSD+s.YMean-1.75e308) > 1e-12*1.75e308 {
		t.Errorf("YMean %v, YSD %v, standardized %v", s.YMean, s.YSD, std.Y)
	}
}

// TestInputsOverflow checks that inputs so large that their squared
// distances overflow (±1e200 with unit length scales) give an error that
// says so and suggests standardizing, not a kernel matrix reported as not
// positive definite.
func TestInputsOverflow(t *testing.T) {
	d := &Data{N: 3, D: 1, Names: []string{"x"}, X: []float64{1e200, -1e200, 3e199}, Y: []float64{0.1, -0.2, 0.3}}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		m, err := New(be, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		ll, err := m.LogLik(nil, []float64{0, 0, -1}, nil)
		if err == nil || !math.IsInf(ll, -1) || errors.Is(err, linalg.ErrNotPositiveDefinite) ||
			!strings.Contains(err.Error(), "too large for the length scales") || !strings.Contains(err.Error(), "standardize") {
			t.Errorf("log-likelihood %v, error %v; want −Inf and an error on the inputs' scale", ll, err)
		}
		// Long enough length scales make the same inputs usable.
		if _, err := m.LogLik(nil, []float64{460, 0, -1}, nil); err != nil {
			t.Errorf("length scale e^460: %v", err)
		}
	})
}
