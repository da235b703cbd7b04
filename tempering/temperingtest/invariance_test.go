package temperingtest_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/tempering"
	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// walk is a test-only kernel: random-walk Metropolis–Hastings with a
// drifted (asymmetric) proposal u' = u + σ(z + δ), δ = (0.3, …, 0.3), so
// that the Hastings correction matters, unless flaw plants a defect in
// the acceptance ratio.
type walk struct {
	sigma float64
	flaw  string
}

func (k walk) NeedsGrad() bool { return false }

func (k walk) NewLevel(dim int, beta float64) (tempering.LevelKernel, error) {
	return &walkLevel{walk: k, prop: tempering.NewState(dim)}, nil
}

type walkLevel struct {
	walk
	prop *tempering.State
}

const drift = 0.3

func (l *walkLevel) Init(d *tempering.Density, s *tempering.State) { d.Eval(s, false) }
func (l *walkLevel) Adapt(int)                                     {}
func (l *walkLevel) EndWarmup()                                    {}
func (l *walkLevel) Tuning() tempering.Tuning                      { return tempering.Tuning{StepSize: l.sigma} }
func (l *walkLevel) SetTuning(tempering.Tuning)                    {}

func (l *walkLevel) Step(rng *rand.Rand, d *tempering.Density, s *tempering.State) tempering.StepInfo {
	// log q(u | u') − log q(u' | u) for the drifted proposal: with
	// u' − u = σ(z + δ), the reverse step needs −z − 2δ.
	var hastings float64
	for i := range s.U {
		z := rng.NormFloat64()
		l.prop.U[i] = s.U[i] + l.sigma*(z+drift)
		hastings += 0.5*z*z - 0.5*(z+2*drift)*(z+2*drift)
	}
	d.Eval(l.prop, false)
	logA := l.prop.LogDensity - s.LogDensity + hastings
	switch l.flaw {
	case "half-ratio":
		logA = 0.5*(l.prop.LogDensity-s.LogDensity) + hastings
	case "no-hastings":
		logA = l.prop.LogDensity - s.LogDensity
	case "never-moves":
		logA = math.Inf(-1)
	case "panics":
		panic("walk: planted panic")
	}
	info := tempering.StepInfo{AcceptProb: math.Exp(min(0, logA)), StepSize: l.sigma}
	if math.Log(rng.Float64()) < logA {
		s.CopyFrom(l.prop)
		info.Accepted = true
	}
	return info
}

func gaussian(t *testing.T) *temperingtest.Gaussian {
	t.Helper()
	g, err := temperingtest.NewGaussian(30, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGaussianIsATarget: the kit's own exact target passes the target kit.
func TestGaussianIsATarget(t *testing.T) {
	temperingtest.TargetTest(t, gaussian(t), temperingtest.TargetOptions{})
}

// TestInvariancePassesCorrectKernel: the test-only kernel without a flaw
// leaves the posterior invariant, so that the failures below come from
// the flaws.
func TestInvariancePassesCorrectKernel(t *testing.T) {
	temperingtest.InvarianceTest(t, walk{sigma: 0.1}, gaussian(t), temperingtest.InvarianceOptions{Seed: 1})
}

// TestInvarianceCatchesBrokenKernels plants one defect at a time in the
// acceptance ratio and checks that CheckInvariance reports it.
func TestInvarianceCatchesBrokenKernels(t *testing.T) {
	for _, tc := range []struct{ flaw, want string }{
		{"half-ratio", "paired difference"},
		{"no-hastings", "paired difference"},
		{"never-moves", "no replicate moved"},
		{"panics", "planted panic"},
	} {
		err := temperingtest.CheckInvariance(walk{sigma: 0.1, flaw: tc.flaw}, gaussian(t), temperingtest.InvarianceOptions{Seed: 1})
		if err == nil {
			t.Errorf("flaw %q: the check passed a broken kernel", tc.flaw)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("flaw %q: caught, but no message mentions %q:\n%s", tc.flaw, tc.want, msg)
		}
		t.Logf("flaw %q caught: %s", tc.flaw, msg)
	}
}

// wrongDraw is the Gaussian with a Draw that is too wide.
type wrongDraw struct{ *temperingtest.Gaussian }

func (w wrongDraw) Draw(rng *rand.Rand, u []float64) {
	w.Gaussian.Draw(rng, u)
	for i := range u {
		u[i] *= 1.2
	}
}

// TestInvarianceCatchesWrongDraw: with the exact moments known, a Draw
// that does not sample the posterior is reported.
func TestInvarianceCatchesWrongDraw(t *testing.T) {
	err := temperingtest.CheckInvariance(walk{sigma: 0.1}, wrongDraw{gaussian(t)}, temperingtest.InvarianceOptions{Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "Draw's starting draws") {
		t.Fatalf("a wrong Draw was not reported: %v", err)
	}
}
