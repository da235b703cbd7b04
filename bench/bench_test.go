package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// benchModel is one model of BenchmarkIteration: sizes N, dimension,
// and the paper's HMC (ε = 0.01, L steps).
type benchModel struct {
	name string
	ns   []int
	dim  int
}

// benchModels are the paper's Fig. 1 sweeps: MVN at D = 50 (HMC L = 10)
// and GP at D = 18, |θ| = 20 (HMC L = 5). SUBTEMPER_BENCH_MAXN caps N.
func benchModels() []benchModel {
	ms := []benchModel{
		{ModelMVN, []int{64, 128, 256, 512, 1024, 2048}, 50},
		{ModelGP, []int{64, 128, 256, 512, 1024}, 18},
	}
	if s := os.Getenv("SUBTEMPER_BENCH_MAXN"); s != "" {
		if mx, err := strconv.Atoi(s); err == nil {
			for i := range ms {
				var ns []int
				for _, n := range ms[i].ns {
					if n <= mx {
						ns = append(ns, n)
					}
				}
				ms[i].ns = ns
			}
		}
	}
	return ms
}

// calibrated is a target and its measured cost curve, shared by the
// drivers' sub-benchmarks of one (model, N).
type calibrated struct {
	t    tempering.Target
	cost *CostCurve
	pl   PowerLawCost
}

var (
	calMu  sync.Mutex
	calMap = map[string]*calibrated{}
)

func calibrate(b *testing.B, be linalg.Backend, model string, n, dim int) *calibrated {
	return calibrateClock(b, be, model, n, dim, false)
}

// calibrateClock is calibrate timing by the wall clock or, with cpu, as a
// chain pays for its evaluations: by the calling thread's CPU time, the
// mean over all calls, at points that move (MeasureOptions.CPU, Mean,
// Spread).
func calibrateClock(b *testing.B, be linalg.Backend, model string, n, dim int, cpu bool) *calibrated {
	b.Helper()
	calMu.Lock()
	defer calMu.Unlock()
	key := fmt.Sprintf("%s/%s/%d/%d/cpu=%v", be.Name(), model, n, dim, cpu)
	if c, ok := calMap[key]; ok {
		return c
	}
	t, err := NewTarget(be, model, n, dim, 1)
	if err != nil {
		b.Fatal(err)
	}
	// A long calibration: on a shared machine a short one moves the
	// predictions by ~10% from run to run.
	cost, err := MeasureCost(context.Background(), t, CalibrationSizes(n, PaperBetaMin), MeasureOptions{Seed: 1, MinTime: time.Second, CPU: cpu, Mean: cpu, Spread: spread(cpu)})
	if err != nil {
		b.Fatal(err)
	}
	c := &calibrated{t: t, cost: cost, pl: cost.PowerLaws()}
	calMap[key] = c
	return c
}

// iterationCase is one sampler of BenchmarkIteration: a driver and, for
// SPT, a swap schedule.
type iterationCase struct {
	driver tempering.Driver
	swap   tempering.SwapSchedule
}

// name is the driver's name, suffixed by the schedule when it is not the
// paper's sweep ("spt-deo").
func (c iterationCase) name() string {
	if c.swap == tempering.Sweep {
		return c.driver.String()
	}
	return c.driver.String() + "-" + c.swap.String()
}

// iterationCases are the paper's five samplers and SPT with the DEO
// schedule, which offers half the swaps per iteration (PT's swaps reuse
// cached evaluations, so its cost does not depend on the schedule).
var iterationCases = []iterationCase{
	{tempering.None, tempering.Sweep},
	{tempering.PT, tempering.Sweep},
	{tempering.TT, tempering.Sweep},
	{tempering.SPT, tempering.Sweep},
	{tempering.STT, tempering.Sweep},
	{tempering.SPT, tempering.DEO},
}

// BenchmarkIteration times one iteration of each driver (none, pt, tt,
// spt, stt, and spt-deo: SPT with the DEO swap schedule) with the paper's
// HMC on the MVN (D = 50, L = 10, N = 64…2048) and GP (D = 18, L = 5,
// N = 64…1024) models, one chain, on the fastest
// compiled-in backend (SUBTEMPER_BACKEND overrides) with OpenBLAS on one
// thread (SUBTEMPER_BLAS_THREADS overrides).
//
// Each op is a round: one iteration of the driver and K ≈ predicted ratio
// iterations of the kernel alone on the same target, interleaved, so that
// both see the same machine. Metrics: s/iter (the driver) and none_s/iter,
// ratio_measured (their ratio), ratio_predicted (from the driver's own
// evaluation counters × c(N_m) measured by MeasureCost at octave sizes and
// interpolated on log–log), ratio_powerlaw (the same with one fitted
// power law per kind of evaluation), ratio_alpha_paper (the same counts
// priced by a power law of the paper's α — 1 for the MVN, 3 for the GP —
// through the measured full-data costs: what this implementation's work
// would cost if c(n) scaled as the paper assumes), ratio_transitions (the
// transitions alone priced by the measured c(n): what the driver would cost
// if its swaps and re-evaluations were free), and pred/meas (predicted over
// measured seconds per driver iteration). Before timing, each pair runs
// two untimed rounds. -benchtime sets the number of rounds (e.g. 20x);
// the default 1s gives a single round for the GP at N = 1024.
func BenchmarkIteration(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	benchThreads(b)
	for _, bm := range benchModels() {
		b.Run(bm.name, func(b *testing.B) {
			kernel, err := Kernel("hmc", bm.name)
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range bm.ns {
				b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
					for _, c := range iterationCases {
						d := c.driver
						b.Run(c.name(), func(b *testing.B) {
							cal := calibrate(b, be, bm.name, n, bm.dim)
							p, err := NewPair(cal.t, d, c.swap, kernel, 7)
							if err != nil {
								b.Fatal(err)
							}
							p.Warmup(2, cal.cost)
							b.ResetTimer()
							for b.Loop() {
								p.Round()
							}
							b.StopTimer()
							t := p.Timing(cal.cost, cal.pl)
							b.ReportMetric(t.SecPerIter, "s/iter")
							if d != tempering.None {
								b.ReportMetric(t.NoneSecPerIter, "none_s/iter")
								b.ReportMetric(t.RatioMeasured, "ratio_measured")
								b.ReportMetric(t.RatioMedian, "ratio_median")
								b.ReportMetric(t.RatioPredicted, "ratio_predicted")
								b.ReportMetric(t.RatioPowerLaw, "ratio_powerlaw")
								b.ReportMetric(p.PredictedRatio(cal.cost.Anchored(PaperAlpha(bm.name), n)), "ratio_alpha_paper")
								b.ReportMetric(p.TransitionRatio(cal.cost), "ratio_transitions")
							}
							b.ReportMetric(t.PredPerIter/t.SecPerIter, "pred/meas")
						})
					}
				})
			}
		})
	}
}

// benchThreads gives OpenBLAS one thread unless SUBTEMPER_BLAS_THREADS
// says otherwise: one chain, one core, so that a loaded machine disturbs
// the driver and None alike.
func benchThreads(b *testing.B) {
	if os.Getenv(ThreadsEnv) == "" {
		setBLASThreads(1)
	}
	if _, err := ApplyThreads(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCost reports the fitted exponents α of c(n) ∝ n^α without and
// with gradient (metrics alpha_value, alpha_grad) over the octave sizes
// of the largest N of each model.
func BenchmarkCost(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	benchThreads(b)
	for _, bm := range benchModels() {
		n := bm.ns[len(bm.ns)-1]
		b.Run(fmt.Sprintf("%s/N=%d", bm.name, n), func(b *testing.B) {
			cal := calibrate(b, be, bm.name, n, bm.dim)
			for b.Loop() {
			}
			v, g := cal.cost.Fit()
			b.ReportMetric(v.Alpha, "alpha_value")
			b.ReportMetric(g.Alpha, "alpha_grad")
			b.ReportMetric(cal.cost.Grad(n), "s/grad_eval")
		})
	}
}

// spread is the MeasureOptions.Spread of a calibration by CPU time: 0.1
// in u = log θ, about a transition's move on the GP posteriors.
func spread(cpu bool) float64 {
	if cpu {
		return 0.1
	}
	return 0
}
