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
// the step-size heuristic's evaluations included — at the calibrated
// per-evaluation costs (Predict, PredictReorders); the measurement is the
// run's wall time, as the calibration's costs are (one chain, OpenBLAS on
// one thread: on an idle core wall and CPU time agree; on a loaded
// machine both the calibration and the run stretch alike). It reports
// pred/meas, the figure that should lie within 10% of 1, and the chain's
// CPU time. For example:
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
		{"none-hmc", tempering.Settings{Driver: tempering.None, Kernel: tempering.HMC{Steps: 10, Jitter: 0.2}}},
		{"pt-default", tempering.Settings{}},
		{"spt-default", tempering.Settings{Driver: tempering.SPT}},
	}
	for _, n := range []int{256, 512} {
		b.Run("gp/N="+strconv.Itoa(n), func(b *testing.B) {
			cal := calibrate(b, be, ModelGP, n, 18)
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					var pred, meas, cpu float64
					for b.Loop() {
						s := c.s
						s.Chains, s.Warmup, s.Draws, s.Seed = 1, 500, 500, 1
						t0 := time.Now()
						res, err := tempering.Run(context.Background(), cal.t, &s)
						if err != nil {
							b.Fatal(err)
						}
						meas = time.Since(t0).Seconds()
						if res.ChainCPU != nil {
							cpu = res.ChainCPU[0].Seconds()
						}
						st := res.ChainStats[0]
						counted := append(append([]tempering.LevelStats(nil), st.Levels...), st.Retired...)
						pred = Predict(counted, cal.cost) + PredictReorders(st.Reorders, cal.cost)
					}
					b.ReportMetric(pred, "pred_s")
					b.ReportMetric(meas, "wall_s")
					b.ReportMetric(cpu, "cpu_s")
					b.ReportMetric(pred/meas, "pred/meas")
				})
			}
		})
	}
}
