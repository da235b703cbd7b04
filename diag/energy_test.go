package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEBFMIByHand: E-BFMI of (1, 2, 4) is (1² + 2²)/((4/3)² + (1/3)² +
// (5/3)²) = 5/(42/9) = 15/14.
func TestEBFMIByHand(t *testing.T) {
	if got, want := EBFMI([]float64{1, 2, 4}), 15.0/14; math.Abs(got-want) > 1e-15 {
		t.Errorf("EBFMI(1, 2, 4) = %v, want %v", got, want)
	}
	// A shift does not change it; reversing the order does not either.
	if got := EBFMI([]float64{1001, 1002, 1004}); math.Abs(got-15.0/14) > 1e-12 {
		t.Errorf("shifted: %v", got)
	}
	if got := EBFMI([]float64{4, 2, 1}); math.Abs(got-15.0/14) > 1e-15 {
		t.Errorf("reversed: %v", got)
	}
	for _, e := range [][]float64{nil, {3}, {2, 2, 2}, {1, math.NaN(), 2}, {1, math.Inf(1)}} {
		if got := EBFMI(e); !math.IsNaN(got) {
			t.Errorf("EBFMI(%v) = %v, want NaN", e, got)
		}
	}
}

// TestEBFMIAR1 checks EBFMI against its expectation on a stationary AR(1)
// series E_n = ρ·E_{n−1} + ε_n: E[(E_n − E_{n−1})²] = 2·(1 − ρ)·Var(E),
// so E-BFMI → 2(1 − ρ): about 2 for independent energies, 0.1 for
// ρ = 0.95 (below Stan's 0.3).
func TestEBFMIAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, rho := range []float64{0, 0.5, 0.95} {
		e := make([]float64, 200000)
		x := rng.NormFloat64()
		for i := range e {
			x = rho*x + math.Sqrt(1-rho*rho)*rng.NormFloat64()
			e[i] = 50 + 3*x
		}
		want := 2 * (1 - rho)
		if got := EBFMI(e); math.Abs(got-want) > 0.03*max(want, 0.5) {
			t.Errorf("ρ = %v: E-BFMI %v, want %v", rho, got, want)
		}
	}
	ramp := make([]float64, 100) // energies that drift in small steps
	for i := range ramp {
		ramp[i] = float64(i)
	}
	if got := EBFMI(ramp); !(got < EBFMIMin) {
		t.Errorf("a ramp of energies: E-BFMI %v, not below %v", got, EBFMIMin)
	}
}
