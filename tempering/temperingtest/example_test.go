package temperingtest_test

import (
	"fmt"

	"github.com/subtemper/subtemper/tempering"
	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// Check a kernel on the kit's known posterior: exact draws stay exact
// draws after the kernel's transitions.
func ExampleCheckInvariance() {
	g, err := temperingtest.NewGaussian(30, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = temperingtest.CheckInvariance(tempering.HMC{Steps: 5}, g, temperingtest.InvarianceOptions{
		Replicates: 500,
		Seed:       1,
		Tuning:     &tempering.Tuning{StepSize: 0.05},
	})
	fmt.Println("HMC leaves the posterior invariant:", err == nil)
	// Output: HMC leaves the posterior invariant: true
}
