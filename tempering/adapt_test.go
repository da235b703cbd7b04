package tempering

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// gaussTarget is N(0, Σ) as a one-observation "likelihood" under a flat
// prior: Σ = diag(sd²) when corr is 0, otherwise Σ_ij = sd_i·sd_j·corr^|i−j|.
type gaussTarget struct {
	sd   []float64
	prec []float64 // Σ⁻¹, row-major
}

func newGaussTarget(sd []float64, corr float64) *gaussTarget {
	D := len(sd)
	cov := make([]float64, D*D)
	for i := range D {
		for j := range D {
			cov[i*D+j] = sd[i] * sd[j] * math.Pow(corr, math.Abs(float64(i-j)))
		}
	}
	return &gaussTarget{sd: sd, prec: invertSPD(cov, D)}
}

// invertSPD inverts a small symmetric positive definite matrix by
// Gauss–Jordan elimination (test helper).
func invertSPD(a []float64, D int) []float64 {
	m := slices.Clone(a)
	inv := make([]float64, D*D)
	for i := range D {
		inv[i*D+i] = 1
	}
	for c := range D {
		p := m[c*D+c]
		for j := range D {
			m[c*D+j] /= p
			inv[c*D+j] /= p
		}
		for r := range D {
			if r == c {
				continue
			}
			f := m[r*D+c]
			for j := range D {
				m[r*D+j] -= f * m[c*D+j]
				inv[r*D+j] -= f * inv[c*D+j]
			}
		}
	}
	return inv
}

func (g *gaussTarget) Dim() int                           { return len(g.sd) }
func (g *gaussTarget) NumObs() int                        { return 1 }
func (g *gaussTarget) LogPrior(u, grad []float64) float64 { clear(grad); return 0 }
func (g *gaussTarget) Clone() (Target, error)             { return g, nil }
func (g *gaussTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	D := len(u)
	q := 0.0
	for i := range D {
		s := 0.0
		for j := range D {
			s += g.prec[i*D+j] * u[j]
		}
		q += s * u[i]
		if grad != nil {
			grad[i] = -s
		}
	}
	return -0.5 * q, nil
}

// levelRig is a level kernel on a target's level-0 density, stepped by
// hand.
type levelRig struct {
	k   LevelKernel
	d   *Density
	s   *State
	rng *rand.Rand
}

func newRig(t *testing.T, tg Target, k Kernel, seed uint64) *levelRig {
	t.Helper()
	lk, err := k.NewLevel(tg.Dim(), 1)
	if err != nil {
		t.Fatal(err)
	}
	r := &levelRig{k: lk, d: &Density{target: tg, beta: 1, stats: &LevelStats{}, halt: &halt{}},
		s: NewState(tg.Dim()), rng: rand.New(rand.NewPCG(seed, 7))}
	for i := range r.s.U {
		r.s.U[i] = 0.5
	}
	lk.Init(r.d, r.s)
	return r
}

// run makes n transitions and returns the mean acceptance statistic.
func (r *levelRig) run(n int) float64 {
	sum := 0.0
	for range n {
		info := r.k.Step(r.rng, r.d, r.s)
		r.d.record(info)
		sum += info.AcceptProb
	}
	return sum / float64(n)
}

// TestWindows: Stan's windowed schedule for n = 1000 and short warm-ups.
func TestWindows(t *testing.T) {
	for _, c := range []struct {
		n          int
		init, term int
		slow       []int
	}{
		{1000, 75, 50, []int{25, 50, 100, 200, 500}},
		{500, 75, 50, []int{25, 50, 100, 200}},
		{2000, 75, 50, []int{25, 50, 100, 200, 400, 1100}},
		{150, 75, 50, []int{25}},
		{149, 22, 14, []int{113}}, // 15% / 75% / 10%
		{100, 15, 10, []int{75}},
		{20, 3, 2, []int{15}},
		{19, 0, 0, nil}, // too short: step size only
	} {
		init, slow, term := slowWindows(c.n)
		if init != c.init || term != c.term || !slices.Equal(slow, c.slow) {
			t.Errorf("n = %d: windows %d / %v / %d, want %d / %v / %d", c.n, init, slow, term, c.init, c.slow, c.term)
		}
	}
	// Whatever n ≥ 20, the windows tile the warm-up.
	for n := 20; n < 3000; n += 7 {
		init, slow, term := slowWindows(n)
		sum := init + term
		for _, s := range slow {
			sum += s
		}
		if sum != n || len(slow) == 0 {
			t.Fatalf("n = %d: windows %d / %v / %d do not tile it", n, init, slow, term)
		}
	}
}

// TestStepSizeConverges: after warm-up, HMC's and NUTS's frozen step size
// gives a sampling-phase mean acceptance statistic near the target 0.8 on a
// Gaussian with scales from 0.1 to 3, and the tuning no longer changes.
// With a metric, dual averaging has only the terminal window's 50
// transitions after the last restart, and the frozen ε = exp(x̄) is a
// little smaller than the iterates that averaged 0.8 (as in Stan, whose
// sampling-phase acceptance also exceeds the target): up to 0.95 is
// accepted there, 0.9 for step-size-only adaptation.
func TestStepSizeConverges(t *testing.T) {
	tg := newGaussTarget([]float64{0.1, 0.3, 1, 3, 0.5}, 0)
	for _, c := range []struct {
		name string
		k    Kernel
		hi   float64
	}{
		{"hmc-step", HMC{Steps: 8, Jitter: 0.2, Adapt: AdaptStep}, 0.9},
		{"hmc-diag", HMC{Steps: 8, Jitter: 0.2}, 0.95},
		{"hmc-dense", HMC{Steps: 8, Jitter: 0.2, Adapt: AdaptDense}, 0.95},
		{"nuts-diag", NUTS{}, 0.95},
		{"nuts-step", NUTS{Adapt: AdaptStep}, 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, tg, c.k, 1)
			r.k.Adapt(1000)
			r.run(1000)
			r.k.EndWarmup()
			frozen := r.k.Tuning()
			acc := r.run(2000)
			t.Logf("ε = %.4g, sampling-phase mean acceptance %.3f, inverse metric %.3g", frozen.StepSize, acc, frozen.InvMetric)
			if acc < 0.7 || acc > c.hi {
				t.Errorf("sampling-phase acceptance %.3f, want in [0.7, %.2f]", acc, c.hi)
			}
			if got := r.k.Tuning(); !reflect.DeepEqual(got, frozen) {
				t.Errorf("tuning changed after EndWarmup: %+v → %+v", frozen, got)
			}
		})
	}
}

// TestMetricEstimate: the adapted diagonal inverse metric approaches the
// marginal variances of an axis-scaled Gaussian (variances from 0.01 to 1),
// and the dense one the covariance of a correlated Gaussian.
func TestMetricEstimate(t *testing.T) {
	sd := []float64{0.1, 1, 0.3, 0.5}
	for _, k := range []Kernel{HMC{Steps: 8, Jitter: 0.2}, NUTS{}} {
		r := newRig(t, newGaussTarget(sd, 0), k, 2)
		r.k.Adapt(1000)
		r.run(1000)
		r.k.EndWarmup()
		inv := r.k.Tuning().InvMetric
		t.Logf("%T: inverse metric %.4g, true variances %.4g", k, inv, []float64{0.01, 1, 0.09, 0.25})
		for i, s := range sd {
			if rel := inv[i]/(s*s) - 1; math.Abs(rel) > 0.3 {
				t.Errorf("%T: inverse metric[%d] = %.4g, variance %.4g (%.0f%% off)", k, i, inv[i], s*s, 100*rel)
			}
		}
	}
	tg := newGaussTarget([]float64{0.2, 1, 0.5}, 0.8)
	for _, k := range []Kernel{HMC{Steps: 8, Jitter: 0.2, Adapt: AdaptDense}, NUTS{Adapt: AdaptDense}} {
		r := newRig(t, tg, k, 3)
		r.k.Adapt(1000)
		r.run(1000)
		r.k.EndWarmup()
		tu := r.k.Tuning()
		if tu.InvMetric != nil || len(tu.InvMetricDense) != 9 {
			t.Fatalf("%T: dense tuning %+v", k, tu)
		}
		t.Logf("%T: dense inverse metric %.3g", k, tu.InvMetricDense)
		for i := range 3 {
			for j := range 3 {
				want := tg.sd[i] * tg.sd[j] * math.Pow(0.8, math.Abs(float64(i-j)))
				scale := tg.sd[i] * tg.sd[j]
				if d := math.Abs(tu.InvMetricDense[i*3+j]-want) / scale; d > 0.3 {
					t.Errorf("%T: inverse metric[%d,%d] = %.4g, covariance %.4g", k, i, j, tu.InvMetricDense[i*3+j], want)
				}
			}
		}
	}
}

// TestNoAdaptationWithoutWarmup: without Adapt nothing changes; AdaptNone
// ignores Adapt; Adapt(0) adapts nothing.
func TestNoAdaptationWithoutWarmup(t *testing.T) {
	tg := newGaussTarget([]float64{0.1, 1, 3}, 0)
	for _, c := range []struct {
		k     Kernel
		adapt int
	}{
		{HMC{StepSize: 0.05, Steps: 4}, -1},
		{NUTS{StepSize: 0.05}, -1},
		{HMC{StepSize: 0.05, Steps: 4, Adapt: AdaptNone}, 500},
		{NUTS{StepSize: 0.05, Adapt: AdaptNone}, 500},
		{NUTS{StepSize: 0.05}, 0},
	} {
		r := newRig(t, tg, c.k, 4)
		if c.adapt >= 0 {
			r.k.Adapt(c.adapt)
		}
		before := r.k.Tuning()
		r.run(300)
		r.k.EndWarmup()
		if got := r.k.Tuning(); !reflect.DeepEqual(got, before) || got.StepSize != 0.05 {
			t.Errorf("%+v, Adapt(%d): tuning %+v → %+v", c.k, c.adapt, before, got)
		}
	}
}

// TestSetTuning: a kernel takes a neighbour's tuning, and ignores entries
// of the wrong shape.
func TestSetTuning(t *testing.T) {
	tg := newGaussTarget([]float64{0.1, 1, 3}, 0)
	r := newRig(t, tg, HMC{}, 5)
	r.k.SetTuning(Tuning{StepSize: 0.3, InvMetric: []float64{0.01, 1, 9}})
	if got := r.k.Tuning(); got.StepSize != 0.3 || !slices.Equal(got.InvMetric, []float64{0.01, 1, 9}) {
		t.Errorf("diag: %+v", got)
	}
	r.k.SetTuning(Tuning{InvMetric: []float64{1, 2}, InvMetricDense: []float64{1}})
	if got := r.k.Tuning(); !slices.Equal(got.InvMetric, []float64{0.01, 1, 9}) {
		t.Errorf("wrong shapes not ignored: %+v", got)
	}
	rd := newRig(t, tg, NUTS{Adapt: AdaptDense}, 5)
	rd.k.SetTuning(Tuning{InvMetric: []float64{0.01, 1, 9}})
	if got := rd.k.Tuning(); !slices.Equal(got.InvMetricDense, []float64{0.01, 0, 0, 0, 1, 0, 0, 0, 9}) {
		t.Errorf("dense from diag: %+v", got)
	}
	rd.k.SetTuning(Tuning{InvMetricDense: []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}}) // not positive definite
	if got := rd.k.Tuning(); got.InvMetricDense[1] != 0 {
		t.Errorf("indefinite metric accepted: %+v", got)
	}
	if a := rd.run(50); !(a > 0) {
		t.Errorf("NUTS with a set dense metric: acceptance %v", a)
	}
}

// TestKernelNoAllocs: HMC (diagonal and dense metric) and NUTS allocate
// nothing per transition, during warm-up (metric updates included) and
// after.
func TestKernelNoAllocs(t *testing.T) {
	tg := newGaussTarget([]float64{0.1, 1, 3, 0.5}, 0.3)
	for _, k := range []Kernel{HMC{Steps: 5}, HMC{Steps: 5, Adapt: AdaptDense}, NUTS{}, NUTS{Adapt: AdaptDense}} {
		r := newRig(t, tg, k, 6)
		r.k.Adapt(400)
		r.run(20)
		if a := testing.AllocsPerRun(200, func() { r.run(1) }); a != 0 {
			t.Errorf("%+v: %v allocations per warm-up transition", k, a)
		}
		r.k.EndWarmup()
		if a := testing.AllocsPerRun(200, func() { r.run(1) }); a != 0 {
			t.Errorf("%+v: %v allocations per transition", k, a)
		}
	}
}

func TestParseAdaptation(t *testing.T) {
	for _, a := range []Adaptation{AdaptDiag, AdaptDense, AdaptStep, AdaptNone} {
		if b, err := ParseAdaptation(a.String()); err != nil || b != a {
			t.Errorf("ParseAdaptation(%q) = %v, %v", a.String(), b, err)
		}
	}
	if _, err := ParseAdaptation("full"); err == nil {
		t.Error("ParseAdaptation accepted full")
	}
	if _, err := (HMC{Adapt: 7}).NewLevel(2, 1); err == nil {
		t.Error("HMC accepted adaptation 7")
	}
}
