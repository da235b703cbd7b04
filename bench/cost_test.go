package bench

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/subtemper/subtemper/tempering"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %g", name, got, want, tol)
	}
}

func TestClosedForms(t *testing.T) {
	const b, M = 1.0 / 8, 6
	near(t, "PaperSPT(α=1)", PaperSPT(1, b, M), 3.11, 0.005)
	near(t, "PaperSPT(α=3)", PaperSPT(3, b, M), 1.55, 0.005)
	near(t, "PaperSTT(α=1)", PaperSTT(1, b, M), 4.52, 0.005)
	near(t, "PaperSTT(α=3)", PaperSTT(3, b, M), 1.74, 0.005)
	near(t, "PaperPT", PaperPT(M), 6, 0)
	near(t, "PaperTT", PaperTT(M), 10, 0)
	near(t, "CorrectedPT", CorrectedPT(M), 7, 0)
	near(t, "CorrectedTT", CorrectedTT(M), 12, 0)
	near(t, "NealTT", NealTT(M), 12, 0)
	// The closed forms against the transitions counted level by level,
	// each costing β_m^α on its subset: SPT one at every level; STT in
	// Algorithm 2's placement one at levels 0 and M and two in between;
	// in Neal's form, as tempering runs it, two at each level 1..M (the
	// ascent's and the descent's) and none at level 0.
	for _, a := range []float64{1, 2, 3} {
		var spt, corrected, neal float64
		for m := 0; m <= M; m++ {
			c := math.Pow(math.Pow(b, float64(m)/M), a)
			spt += c
			switch m {
			case 0:
				corrected += c
			case M:
				corrected += c
				neal += 2 * c
			default:
				corrected += 2 * c
				neal += 2 * c
			}
		}
		near(t, fmt.Sprintf("PaperSPT(α=%g)", a), PaperSPT(a, b, M), spt, 1e-12)
		near(t, fmt.Sprintf("CorrectedSTT(α=%g)", a), CorrectedSTT(a, b, M), corrected, 1e-12)
		near(t, fmt.Sprintf("NealSTT(α=%g)", a), NealSTT(a, b, M), neal, 1e-12)
		near(t, fmt.Sprintf("ClosedForm(corrected, STT, α=%g)", a), ClosedForm(Corrected, tempering.STT, a, b, M), corrected, 1e-12)
	}
	near(t, "ClosedForm(paper, TT)", ClosedForm(Paper, tempering.TT, 1, b, M), 10, 0)
	near(t, "ClosedForm(neal, PT)", ClosedForm(Neal, tempering.PT, 1, b, M), 7, 0)
	near(t, "ClosedForm(none)", ClosedForm(Neal, tempering.None, 3, b, M), 1, 0)
}

// powCost is the synthetic cost c(n) = n^α (value), 2·n^α (gradient),
// 1.5·n^α (resume).
type powCost struct{ alpha, prior float64 }

func (p powCost) Value(n int) float64  { return math.Pow(float64(n), p.alpha) }
func (p powCost) Grad(n int) float64   { return 2 * math.Pow(float64(n), p.alpha) }
func (p powCost) Resume(n int) float64 { return 1.5 * math.Pow(float64(n), p.alpha) }
func (p powCost) Prior() float64       { return p.prior }
func (p powCost) Reorder() float64     { return 0 }

func TestPredictExact(t *testing.T) {
	c := powCost{alpha: 3, prior: 0.5}
	lv := []tempering.LevelStats{
		{SubsetSize: 100, Evals: 2, EvalsGrad: 3, PriorEvals: 4},
		{SubsetSize: 50, Evals: 1, EvalsGrad: 0, GradResumes: 2, PriorEvals: 2},
	}
	want := 2*1e6 + 3*2e6 + 4*0.5 + 1*125000.0 + 2*1.5*125000 + 2*0.5
	if got := Predict(lv, c); got != want {
		t.Errorf("Predict = %v, want %v", got, want)
	}
	// A CostCurve measured exactly at octaves reproduces a power law
	// between them (log–log interpolation of a power law is exact) and
	// beyond them.
	cc := &CostCurve{}
	for _, n := range []int{8, 16, 32, 64} {
		cc.Points = append(cc.Points, CostPoint{N: n, Value: c.Value(n), Grad: c.Grad(n)})
	}
	for _, n := range []int{5, 8, 11, 23, 45, 64, 90} {
		near(t, "curve value", cc.Value(n)/c.Value(n), 1, 1e-12)
		near(t, "curve grad", cc.Grad(n)/c.Grad(n), 1, 1e-12)
		near(t, "curve resume, not measured", cc.Resume(n)/c.Grad(n), 1, 1e-12)
	}
	v, g := cc.Fit()
	near(t, "fitted α", v.Alpha, 3, 1e-9)
	near(t, "fitted α grad", g.Alpha, 3, 1e-9)
	near(t, "fitted prefactor", g.Prefactor, 2, 1e-9)
	near(t, "power-law resume, not measured", cc.PowerLaws().Resume(10)/c.Grad(10), 1, 1e-9)
	for i := range cc.Points {
		cc.Points[i].Resume = c.Resume(cc.Points[i].N)
	}
	for _, n := range []int{5, 11, 64, 90} {
		near(t, "curve resume", cc.Resume(n)/c.Resume(n), 1, 1e-12)
		near(t, "power-law resume", cc.PowerLaws().Resume(n)/c.Resume(n), 1, 1e-9)
		near(t, "anchored resume", cc.Anchored(3, 64).Resume(n)/c.Resume(n), 1, 1e-9)
	}
}

// TestPredictFromCounters runs real chains of every driver on a small
// target and checks the count-based prediction under c(n) = n^α against the
// closed forms that the counts must reproduce exactly: PT (M+1)·L gradient
// evaluations per iteration at N, TT 2M·L; STT's 2L transitions at each
// level m ≥ 1 cost 2L·Σ_{m≥1} β_m^α, plus at most one re-evaluation per
// level on the way up (levels 1..M) and down (M−1..0).
func TestPredictFromCounters(t *testing.T) {
	const n, L, M = 1024, 3, PaperLevels
	tg, err := NewTarget(nil, ModelMVN, n, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := powCost{alpha: 1}
	kernel := tempering.HMC{StepSize: 0.01, Steps: L}
	per := func(d tempering.Driver) float64 {
		p, err := NewPair(tg, d, tempering.Sweep, kernel, 3)
		if err != nil {
			t.Fatal(err)
		}
		p.Warmup(1, c)
		for range 5 {
			p.Round()
		}
		tm := p.Timing(c, nil)
		return tm.RatioPredicted
	}
	betas, _ := tempering.Ladder(M, PaperBetaMin)
	sizes := tempering.SubsetSizes(betas, n)
	var up, down float64
	for m := 1; m <= M; m++ {
		up += float64(sizes[m]) / n
		down += float64(sizes[m-1]) / n
	}
	near(t, "PT", per(tempering.PT), M+1, 1e-12)
	near(t, "TT", per(tempering.TT), 2*M, 1e-12)
	if r := per(tempering.STT); !(r >= 2*up-1e-12 && r <= (2*L*up+up+down)/L+1e-12) {
		t.Errorf("STT predicted ratio %v, want in [%v, %v]", r, 2*up, (2*L*up+up+down)/L)
	}
	if r := per(tempering.SPT); !(r > PaperSPT(1, PaperBetaMin, M) && r < PaperSPT(1, PaperBetaMin, M)+2) {
		t.Errorf("SPT predicted ratio %v, want a little above τ^SPT = %v (swaps)", r, PaperSPT(1, PaperBetaMin, M))
	}
}

// splitCost prices evaluations without gradient by n and with gradient by
// n³, so that a ratio priced by the wrong kind shows.
type splitCost struct{}

func (splitCost) Value(n int) float64  { return float64(n) }
func (splitCost) Grad(n int) float64   { return math.Pow(float64(n), 3) }
func (splitCost) Resume(n int) float64 { return math.Pow(float64(n), 3) / 2 }
func (splitCost) Prior() float64       { return 0 }
func (splitCost) Reorder() float64     { return 0 }

// TestTransitionRatio checks the transitions-only ratio against what the
// ladder gives exactly under splitCost, for a kernel with gradients (HMC,
// priced by Grad: α = 3) and one without (MH, priced by Value: α = 1):
// None 1, PT M+1, TT 2M, SPT Σ_{m=0}^M (N_m/N)^α, STT 2·Σ_{m=1}^M
// (N_m/N)^α. The swaps and re-evaluations it leaves out put the full
// prediction of SPT and STT above it.
func TestTransitionRatio(t *testing.T) {
	const n, M = 512, PaperLevels
	tg, err := NewTarget(nil, ModelMVN, n, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	betas, _ := tempering.Ladder(M, PaperBetaMin)
	sizes := tempering.SubsetSizes(betas, n)
	var c splitCost
	for _, tc := range []struct {
		kernel tempering.Kernel
		alpha  float64
	}{{tempering.HMC{StepSize: 0.01, Steps: 2}, 3}, {tempering.MH{}, 1}} {
		var hot float64 // Σ_{m≥1} (N_m/N)^α
		for _, s := range sizes[1:] {
			hot += math.Pow(float64(s)/n, tc.alpha)
		}
		want := map[tempering.Driver]float64{
			tempering.None: 1, tempering.PT: M + 1, tempering.TT: 2 * M,
			tempering.SPT: 1 + hot, tempering.STT: 2 * hot,
		}
		for d, w := range want {
			p, err := NewPair(tg, d, tempering.Sweep, tc.kernel, 5)
			if err != nil {
				t.Fatal(err)
			}
			p.Warmup(1, c)
			for range 3 {
				p.Round()
			}
			name := fmt.Sprintf("α = %v, %v: transitions-only ratio", tc.alpha, d)
			near(t, name, p.TransitionRatio(c), w, 1e-12)
			if d == tempering.SPT || d == tempering.STT {
				if r := p.PredictedRatio(c); !(r > w) {
					t.Errorf("%s: full prediction %v not above it (%v)", name, r, w)
				}
			}
		}
	}
}

// TestPairSwapSchedule checks that a Pair's driver runs the schedule it is
// given: M swap proposals per SPT iteration with the sweep, M/2 with DEO.
func TestPairSwapSchedule(t *testing.T) {
	const iters, M = 4, PaperLevels
	tg, err := NewTarget(nil, ModelMVN, 64, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		swap tempering.SwapSchedule
		want int64
	}{{tempering.Sweep, M * iters}, {tempering.DEO, M / 2 * iters}} {
		p, err := NewPair(tg, tempering.SPT, tc.swap, tempering.MH{}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if p.Swap != tc.swap {
			t.Errorf("Pair.Swap = %v, want %v", p.Swap, tc.swap)
		}
		for range iters {
			p.Round()
		}
		var n int64
		for _, v := range p.drv.Stats().SwapProposed {
			n += v
		}
		if n != tc.want {
			t.Errorf("%v: %d swaps proposed in %d iterations, want %d", tc.swap, n, iters, tc.want)
		}
	}
}

// TestMeasureCost: positive costs at the octave sizes for both models; a
// resume cost for the GP (a tempering.GradResumer), none for the MVN.
func TestMeasureCost(t *testing.T) {
	for _, model := range []string{ModelMVN, ModelGP} {
		tg, err := NewTarget(nil, model, 256, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		cc, err := MeasureCost(context.Background(), tg, CalibrationSizes(256, PaperBetaMin), MeasureOptions{MinTime: 5e6, Rounds: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(cc.Points) != 4 || cc.Points[0].N != 32 || cc.Points[3].N != 256 {
			t.Fatalf("%v: points %+v, want N = 32, 64, 128, 256", model, cc.Points)
		}
		_, resumes := tg.(tempering.GradResumer)
		if resumes != (model == ModelGP) {
			t.Fatalf("%v: target is a GradResumer: %v", model, resumes)
		}
		for _, p := range cc.Points {
			if !(p.Value > 0 && p.Grad > 0) || (p.Resume > 0) != resumes {
				t.Errorf("%v: costs %+v", model, p)
			}
		}
		if !(cc.PriorCost > 0) {
			t.Errorf("%v: prior cost %v", model, cc.PriorCost)
		}
	}
}

// sleepy is a target whose LogLik also sleeps 2 ms: wall time that is not
// CPU time.
type sleepy struct{ tempering.Target }

func (s sleepy) LogLik(subset []int, u, grad []float64) (float64, error) {
	time.Sleep(2 * time.Millisecond)
	return s.Target.LogLik(subset, u, grad)
}

// TestMeasureCostCPU: timed by the thread's CPU clock, an evaluation that
// sleeps 2 ms costs what it computes, not the 2 ms it waits; by the wall
// clock, at least the 2 ms.
func TestMeasureCostCPU(t *testing.T) {
	if _, ok := tempering.ThreadCPU(); !ok {
		t.Skip("no per-thread CPU clock")
	}
	tg, err := NewTarget(nil, ModelMVN, 64, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{64}
	wall, err := MeasureCost(context.Background(), sleepy{tg}, sizes, MeasureOptions{MinTime: 5e6, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := MeasureCost(context.Background(), sleepy{tg}, sizes, MeasureOptions{MinTime: 5e6, Rounds: 3, CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := wall.Points[0].Grad; w < 2e-3 {
		t.Errorf("wall-clock cost %.3g s, want ≥ 2 ms", w)
	}
	if c := cpu.Points[0].Grad; !(c > 0 && c < 1e-3) {
		t.Errorf("CPU cost %.3g s of an evaluation that sleeps 2 ms and computes for µs: want (0, 1 ms)", c)
	}
}

func TestCalibrationSizes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{1024, []int{128, 256, 512, 1024}}, {100, []int{12, 25, 50, 100}}, {4, []int{1, 2, 4}}} {
		got := CalibrationSizes(tc.n, 1.0/8)
		if len(got) != len(tc.want) {
			t.Errorf("CalibrationSizes(%d) = %v, want %v", tc.n, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("CalibrationSizes(%d) = %v, want %v", tc.n, got, tc.want)
				break
			}
		}
	}
}
