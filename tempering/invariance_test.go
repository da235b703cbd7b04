package tempering_test

import (
	"testing"

	"github.com/subtemper/subtemper/tempering"
	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// TestKernelInvariance runs the public kit's invariance check
// (temperingtest.CheckInvariance) on every inner kernel with fixed tuning:
// exact draws from the kit's Gaussian posterior stay exact draws after
// the kernel's transitions. It complements TestExactness, which checks the
// drivers' long runs after adaptation; a kernel's broken acceptance ratio
// fails here after a few transitions (the kit's own tests show it).
func TestKernelInvariance(t *testing.T) {
	g, err := temperingtest.NewGaussian(30, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	mean, cov := g.Moments()
	step := &tempering.Tuning{StepSize: 0.05}
	dense := &tempering.Tuning{StepSize: 0.3, InvMetricDense: cov}
	// Under the race detector (26 times slower here) a tenth of the
	// replicates: the check stays valid, with less power.
	reps := 2000
	if raceBuild {
		reps = 200
	}
	for _, c := range []struct {
		name   string
		kernel tempering.Kernel
		tuning *tempering.Tuning
	}{
		{"mh", tempering.MH{Sigma: 0.1, Steps: 2}, nil},
		{"hmc", tempering.HMC{Steps: 6, Jitter: 0.2}, step},
		{"hmc-dense", tempering.HMC{Steps: 4, Adapt: tempering.AdaptDense}, dense},
		{"hmc-length", tempering.HMC{Length: 1.5, Adapt: tempering.AdaptDense}, dense},
		{"nuts", tempering.NUTS{}, step},
		{"nuts-dense", tempering.NUTS{Adapt: tempering.AdaptDense}, dense},
		{"independence", tempering.Independence{Center: mean, Cov: cov, Scale: 1.5}, nil},
		{"hmc+mh", tempering.DefaultKernel(), step},
	} {
		t.Run(c.name, func(t *testing.T) {
			temperingtest.InvarianceTest(t, c.kernel, g, temperingtest.InvarianceOptions{Seed: 1, Tuning: c.tuning, Replicates: reps})
		})
	}
}
