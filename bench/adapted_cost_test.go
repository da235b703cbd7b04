package bench

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/subtemper/subtemper/tempering"
)

// BenchmarkAdaptedCost checks the count-based cost model on whole adapted
// runs: one chain of the library's default settings (adapted step sizes
// and metrics, the adaptive ladder, HMC at the target and MH above it) and
// of HMC alone and SPT, 500 warm-up iterations and 500 draws, on the GP
// (D = 18, the calibration's model). The prediction prices every counted
// evaluation — sampling and warm-up, Stats.Retired's replaced ladders and
// the step-size heuristic's evaluations included — at the per-evaluation
// costs calibrated in the same process (Predict, PredictReorders); both
// the calibration and the measurement are CPU time of the thread doing
// the work (MeasureOptions.CPU; the run's Result.ChainCPU), OpenBLAS on
// one thread, so that other jobs on a shared machine stretch neither. It
// reports pred/cpu, the figure that should lie within 10% of 1, the
// prediction and the chain's CPU and wall time. For example:
//
//	go test -tags openblas -run '^$' -bench AdaptedCost -benchtime 1x -timeout 1h ./bench/
func BenchmarkAdaptedCost(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	benchThreads(b)
	cases := []struct {
		name string
		s    tempering.Settings
	}{
		{"none-hmc", tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.None, Kernel: tempering.HMC{Steps: 10, Jitter: 0.2}}}},
		{"pt-default", tempering.Settings{}},
		{"spt-default", tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.SPT}}},
	}
	for _, n := range []int{256, 512} {
		b.Run("gp/N="+strconv.Itoa(n), func(b *testing.B) {
			cal := calibrateClock(b, be, ModelGP, n, 18, true)
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					var pred, wall, cpu float64
					for b.Loop() {
						s := c.s
						s.Chains, s.Warmup, s.Draws, s.Seed = 1, 500, 500, 1
						t0 := time.Now()
						res, err := tempering.Run(context.Background(), cal.t, &s)
						if err != nil {
							b.Fatal(err)
						}
						wall = time.Since(t0).Seconds()
						if res.ChainCPU == nil {
							b.Skip("no per-thread CPU clock on this system")
						}
						cpu = res.ChainCPU[0].Seconds()
						st := res.ChainStats[0]
						counted := append(append([]tempering.LevelStats(nil), st.Levels...), st.Retired...)
						pred = Predict(counted, cal.cost) + PredictReorders(st.Reorders, cal.cost)
					}
					b.ReportMetric(pred, "pred_s")
					b.ReportMetric(wall, "wall_s")
					b.ReportMetric(cpu, "cpu_s")
					b.ReportMetric(pred/cpu, "pred/cpu")
				})
			}
		})
	}
}
