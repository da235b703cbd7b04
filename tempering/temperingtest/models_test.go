package temperingtest_test

import (
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// newGP returns the GP model on synthetic data, on the gonum backend.
func newGP(t *testing.T, n, d int, k gp.Kernel) *gp.Model {
	t.Helper()
	data, _, err := gp.Synthetic(n, d, 3, gp.Prior{})
	var m *gp.Model
	if err == nil {
		m, err = gp.New(linalg.Default(), data, gp.Options{Kernel: k})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// newMVN returns the MVN model on synthetic data, on the gonum backend.
func newMVN(t *testing.T, n, d int) *mvn.Model {
	t.Helper()
	data, sigma, _, err := mvn.Synthetic(n, d, 2, mvn.SynthOptions{})
	var m *mvn.Model
	if err == nil {
		m, err = mvn.New(linalg.Default(), data, sigma, mvn.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestBuiltInTargets runs the target kit on the models the library ships:
// the GP (every kernel family, with its prefixes, gradient resumes and
// reordering) and the MVN model.
func TestBuiltInTargets(t *testing.T) {
	for _, k := range []gp.Kernel{gp.SE, gp.Matern12, gp.Matern32, gp.Matern52} {
		t.Run("gp/"+k.String(), func(t *testing.T) {
			temperingtest.TargetTest(t, newGP(t, 40, 2, k), temperingtest.TargetOptions{Seed: 1})
		})
	}
	t.Run("mvn", func(t *testing.T) {
		temperingtest.TargetTest(t, newMVN(t, 40, 3), temperingtest.TargetOptions{Seed: 1})
	})
}

// mvnExact is the MVN model with its analytic posterior (mvn.Model's
// Posterior) as the known posterior of the invariance kit.
type mvnExact struct {
	*mvn.Model
	*temperingtest.Normal
}

// TestBuiltInMVNInvariance runs the invariance kit on the MVN model, whose
// posterior is known: MH and HMC leave it invariant.
func TestBuiltInMVNInvariance(t *testing.T) {
	m := newMVN(t, 40, 3)
	post, err := m.Posterior(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	cov := make([]float64, d*d)
	for i := range d {
		for j := range d {
			cov[i*d+j] = post.Cov.At(i, j)
		}
	}
	normal, err := temperingtest.NewNormal(post.Mean, cov)
	if err != nil {
		t.Fatal(err)
	}
	target := mvnExact{m, normal}
	for _, k := range []tempering.Kernel{tempering.MH{Sigma: 0.1}, tempering.HMC{StepSize: 0.05, Steps: 6}} {
		temperingtest.InvarianceTest(t, k, target, temperingtest.InvarianceOptions{Seed: 2, Replicates: 1000})
	}
}
