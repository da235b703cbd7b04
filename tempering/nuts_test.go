package tempering

import (
	"testing"
)

// TestExactnessDetectsBrokenNUTS shows that the exactness check can fail
// for NUTS: with the choice of the sample within the trajectory
// deliberately biased (a test-only hook), the same check that passes for
// the exact kernel reports deviations beyond 4 MCSE.
func TestExactnessDetectsBrokenNUTS(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical test: too slow under the race detector")
	}
	tg := newMVNTarget(30, 2, 1)
	for _, b := range []struct {
		name string
		bug  nutsBug
		c    exactCase
	}{
		{"newest/none", nutsNewest, exactCase{name: "nuts/none", kernel: NUTS{}, driver: None, draws: 3000}},
		{"newest/pt", nutsNewest, exactCase{name: "nuts/pt", kernel: NUTS{}, driver: PT, draws: 3000}},
		{"potential/none", nutsPotential, exactCase{name: "nuts/none", kernel: NUTS{}, driver: None, draws: 3000}},
		{"potential/pt", nutsPotential, exactCase{name: "nuts/pt", kernel: NUTS{}, driver: PT, draws: 3000}},
		{"potential/stt", nutsPotential, exactCase{name: "nuts/stt", kernel: NUTS{}, driver: STT, draws: 3000}},
	} {
		t.Run(b.name, func(t *testing.T) {
			nutsBias = b.bug
			defer func() { nutsBias = nutsExact }()
			fails, summary, err := checkExact(tg, b.c, 7)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s with a biased sample choice: %s", b.c.name, summary)
			for _, f := range fails {
				t.Logf("detected: %s", f)
			}
			if len(fails) == 0 {
				t.Errorf("biased NUTS not detected")
			}
		})
	}
}
