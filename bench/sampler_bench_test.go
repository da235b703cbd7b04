package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/subtemper/subtemper/tempering"
)

// BenchmarkSampler fits each GP case with every driver × kernel (nuts,
// hmc and mh, adapted, at every level; hmc-mh and nuts-mh: that kernel at
// the target level and MH at the levels above it; hmc-mh is the
// library's default), with the
// library's default (adapted) settings and with the paper's, 4 chains of
// 1000 warm-up iterations and 1000 draws (-sampler.warmup and
// -sampler.draws change them, to match a Stan run), and reports the min and median
// bulk-ESS per CPU-second (all chains' CPU time together, warm-up
// included, as scripts/compare/run_stan.R reports Stan's), the largest
// R-hat, the smallest bulk-ESS and the sampling phase's swap or
// tempered-transition acceptance. One iteration is one whole fit: run it
// with -benchtime 1x, e.g.
//
//	go test -tags openblas -run '^$' -bench 'Sampler/gp/N=128/D=3/' -benchtime 1x -timeout 3h ./bench/
//
// The diabetes case needs scripts/compare/data/diabetes.csv.
func BenchmarkSampler(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ApplyThreads(); err != nil {
		b.Fatal(err)
	}
	const chains = 4
	warmup, draws := *samplerWarmup, *samplerDraws
	kernels := []struct {
		name string
		k    tempering.Kernel
	}{
		{"nuts", tempering.NUTS{}},
		{"hmc", tempering.HMC{Steps: 10, Jitter: 0.2}},
		{"mh", tempering.MH{}}, // adapted random-walk Metropolis at every level
		// The library's default: HMC at the target, MH above it.
		{"hmc-mh", tempering.DefaultKernel()},
		{"nuts-mh", tempering.PerLevel{Target: tempering.NUTS{}, Hot: tempering.MH{}}},
	}
	for _, c := range GPCases("..") {
		b.Run(c.Name, func(b *testing.B) {
			if c.File != "" {
				if _, err := os.Stat(c.File); err != nil {
					b.Skipf("%s: %v (run scripts/compare/export_diabetes.py)", c.Name, err)
				}
			}
			t, err := c.Target(be)
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range Drivers {
				for _, k := range kernels {
					if _, per := k.k.(tempering.PerLevel); per && d == tempering.None {
						continue // the target level's kernel alone: a row above
					}
					b.Run(fmt.Sprintf("%v/%s/default", d, k.name), func(b *testing.B) {
						reportFit(b, t, &tempering.Settings{Sampler: tempering.Sampler{Driver: d, Kernel: k.k}, Control: tempering.Control{Chains: chains, Warmup: warmup, Draws: draws, Seed: 1}})
					})
				}
				for _, k := range []string{"hmc", "mh"} {
					b.Run(fmt.Sprintf("%v/%s/paper", d, k), func(b *testing.B) {
						s, err := PaperSettings(d, k, chains, warmup, draws, 1)
						if err != nil {
							b.Fatal(err)
						}
						reportFit(b, t, s)
					})
				}
			}
		})
	}
}

// The run length of BenchmarkSampler's fits.
var (
	samplerWarmup = flag.Int("sampler.warmup", 1000, "BenchmarkSampler: warm-up iterations per chain")
	samplerDraws  = flag.Int("sampler.draws", 1000, "BenchmarkSampler: draws per chain")
)

// reportFit fits t with s b.N times and reports the last fit's efficiency.
func reportFit(b *testing.B, t tempering.Target, s *tempering.Settings) {
	var e *Efficiency
	for b.Loop() {
		var err error
		if e, _, err = Measure(context.Background(), t, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(e.MinPerCPUSecond, "min_essbulk/cpu_s")
	b.ReportMetric(e.MedianPerCPUSecond, "med_essbulk/cpu_s")
	b.ReportMetric(e.MaxRhat, "max_rhat")
	b.ReportMetric(e.MinESSBulk, "min_essbulk")
	b.ReportMetric(e.MinESSTail, "min_esstail")
	b.ReportMetric(e.MoveRate, "move_rate")
	b.ReportMetric(float64(e.Levels), "levels")
	b.ReportMetric(e.CPUSeconds, "cpu_s")
}
