package tempering

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEnergyRecorded: with HMC or NUTS at level 0 every draw carries the
// Hamiltonian at the end of its transition. On N(0, I_D) with an identity
// metric, E = ½|q|² + ½|p|² is ½χ²_{2D} at stationarity: mean D, variance
// D. Momentum resampling alone changes it by ½χ²_D − ½χ²_D, variance D,
// so the E-BFMI Σ(E_n − E_{n−1})²/Σ(E_n − Ē)² is near 1 (the E-BFMI is
// computed here independently of diag.EBFMI). A record without the
// kinetic energy would have mean D/2. With MH at level 0 there is none.
func TestEnergyRecorded(t *testing.T) {
	const D = 10
	sd := make([]float64, D)
	for i := range sd {
		sd[i] = 1
	}
	tg := newGaussTarget(sd, 0)
	for _, k := range []Kernel{HMC{StepSize: 0.3, Steps: 5, Adapt: AdaptNone, Jitter: 0.2}, NUTS{StepSize: 0.3, Adapt: AdaptNone}} {
		res, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: None, Kernel: k}, Control: Control{Warmup: 200, Chains: 2, Draws: 4000, Seed: 5, Stop: nil}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Energy) != 2 {
			t.Fatalf("%T: %d chains of energies, want 2", k, len(res.Energy))
		}
		for c, e := range res.Energy {
			if len(e) != len(res.Draws[c]) {
				t.Fatalf("%T chain %d: %d energies for %d draws", k, c, len(e), len(res.Draws[c]))
			}
			var mean, ss, num float64
			for _, v := range e {
				mean += v
			}
			mean /= float64(len(e))
			for i, v := range e {
				ss += (v - mean) * (v - mean)
				if i > 0 {
					num += (v - e[i-1]) * (v - e[i-1])
				}
			}
			// The mean of autocorrelated energies: allow 0.5 (about 5
			// standard errors with an effective size of 1000).
			if math.Abs(mean-D) > 0.5 {
				t.Errorf("%T chain %d: mean energy %.3f, want %d", k, c, mean, D)
			}
			if v := ss / float64(len(e)-1); math.Abs(v-D) > 0.25*D {
				t.Errorf("%T chain %d: energy variance %.3f, want %d", k, c, v, D)
			}
			if b := num / ss; b < 0.7 || b > 1.3 {
				t.Errorf("%T chain %d: E-BFMI %.3f, want about 1", k, c, b)
			}
		}
	}
	res, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: None, Kernel: MH{}}, Control: Control{Warmup: 50, Chains: 1, Draws: 50, Seed: 5, Stop: nil}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Energy != nil {
		t.Errorf("MH at level 0: energies %v recorded", res.Energy)
	}
}

// TestDivergentPerDraw: the divergences recorded with the draws add up to
// level 0's divergent transitions after warm-up, chain by chain, and
// those of warm-up are not among them.
func TestDivergentPerDraw(t *testing.T) {
	tg := newGaussTarget([]float64{1, 1, 1}, 0)
	// A step close to the leapfrog's stability limit 2 and a low
	// divergence threshold: some trajectories diverge, not all.
	k := HMC{StepSize: 1.9, Steps: 8, Adapt: AdaptNone, MaxEnergyError: 2}
	for _, d := range []Driver{None, PT} {
		res, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: d, Kernel: k, Levels: 3}, Control: Control{Warmup: 100, Chains: 2, Draws: 300, Seed: 9, Stop: nil}})
		if err != nil {
			t.Fatal(err)
		}
		for c := range res.Draws {
			sum := 0
			for _, n := range res.Divergent[c] {
				sum += n
			}
			l0 := res.ChainStats[c].Levels[0]
			if int64(sum) != l0.SamplingDivergent || sum == 0 || sum == len(res.Draws[c]) {
				t.Errorf("%v chain %d: %d divergences recorded with %d draws; level 0 counted %d after warm-up (%d in all)",
					d, c, sum, len(res.Draws[c]), l0.SamplingDivergent, l0.Divergent)
			}
			if l0.Divergent == l0.SamplingDivergent {
				t.Errorf("%v chain %d: no divergence in warm-up, the test shows nothing", d, c)
			}
		}
	}
}

// TestStepEnergy: a transition's Energy is H at its end: the start's
// −log density plus the kinetic energy of the momentum it drew (replayed
// here from a copy of the random stream), plus the energy error when the
// proposal was accepted.
func TestStepEnergy(t *testing.T) {
	tg := newGaussTarget([]float64{1, 2, 0.5}, 0.3)
	for _, k := range []Kernel{HMC{StepSize: 0.6, Steps: 4, Adapt: AdaptNone}, NUTS{StepSize: 0.6, Adapt: AdaptNone}} {
		r := newRig(t, tg, k, 3)
		src := rand.NewPCG(3, 7)
		r.rng = rand.New(src)
		var acc, rej int
		for range 300 {
			cp := *src
			replay := rand.New(&cp)
			var kin float64
			for range tg.Dim() {
				z := replay.NormFloat64()
				kin += 0.5 * z * z
			}
			h0 := -r.s.LogDensity + kin
			info := r.k.Step(r.rng, r.d, r.s)
			want := h0
			if info.Accepted {
				want += info.EnergyError
				acc++
			} else {
				rej++
			}
			if math.Abs(info.Energy-want) > 1e-9*max(1, math.Abs(want)) {
				t.Fatalf("%T: energy %v, want %v (accepted %v, energy error %v)", k, info.Energy, want, info.Accepted, info.EnergyError)
			}
		}
		if acc == 0 || (rej == 0 && k == Kernel(HMC{StepSize: 0.6, Steps: 4, Adapt: AdaptNone})) {
			t.Errorf("%T: %d accepted, %d rejected: the test does not see both", k, acc, rej)
		}
	}
}
