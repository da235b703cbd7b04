package gradcheck

import (
	"math"
	"testing"
)

func TestFD(t *testing.T) {
	f := func(u []float64) float64 { return u[0]*u[0] + math.Sin(u[1]) }
	g := FD(f, []float64{1.5, 0.3}, 1e-5)
	if math.Abs(g[0]-3) > 1e-8 || math.Abs(g[1]-math.Cos(0.3)) > 1e-8 {
		t.Errorf("FD = %v, want [3 %v]", g, math.Cos(0.3))
	}
}

// TestCheckReports: Check flags a wrong component and passes a right one.
func TestCheckReports(t *testing.T) {
	var rec recorder
	Check(&rec, "x", []float64{1, 2}, []float64{1, 2.1}, 1e-6)
	if rec.errors != 1 {
		t.Errorf("%d errors for one wrong component, want 1", rec.errors)
	}
	rec = recorder{}
	Check(&rec, "x", []float64{1, 2}, []float64{1, 2 + 1e-9}, 1e-6)
	if rec.errors != 0 {
		t.Errorf("%d errors for a right gradient", rec.errors)
	}
}

type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, a ...any) { r.errors++ }
