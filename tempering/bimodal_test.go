package tempering

import (
	"context"
	"math"
	"testing"
)

// mixTarget is a two-dimensional mixture of two Gaussians N(±μ, s²I) with
// weights 0.3 (at −μ) and 0.7 (at +μ), written as a one-observation
// "likelihood" under a broad N(0, τ²I) prior. The prior is symmetric about 0
// and the components have equal covariances, so the posterior keeps the
// weights 0.3/0.7 exactly.
type mixTarget struct{}

const (
	mixMu  = 2.5 // μ = (2.5, 2.5)
	mixS   = 0.5
	mixTau = 5.0
	mixW   = 0.7 // weight of the component at +μ
)

func (mixTarget) Dim() int    { return 2 }
func (mixTarget) NumObs() int { return 1 }

func (mixTarget) LogPrior(u, grad []float64) float64 {
	lp := 0.0
	for i, x := range u {
		lp -= 0.5 * x * x / (mixTau * mixTau)
		if grad != nil {
			grad[i] = -x / (mixTau * mixTau)
		}
	}
	return lp
}

func (mixTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	var qp, qm float64
	for _, x := range u {
		qp += (x - mixMu) * (x - mixMu)
		qm += (x + mixMu) * (x + mixMu)
	}
	lp := math.Log(mixW) - 0.5*qp/(mixS*mixS)
	lm := math.Log(1-mixW) - 0.5*qm/(mixS*mixS)
	hi := max(lp, lm)
	ll := hi + math.Log(math.Exp(lp-hi)+math.Exp(lm-hi))
	if grad != nil {
		wp := math.Exp(lp - ll)
		for i, x := range u {
			grad[i] = -(wp*(x-mixMu) + (1-wp)*(x+mixMu)) / (mixS * mixS)
		}
	}
	return ll, nil
}

func (m mixTarget) Clone() (Target, error) { return m, nil }

// upperWeight returns the fraction of all draws in the +μ mode.
func upperWeight(res *Result) (all float64, perChain []float64) {
	n := 0
	for _, d := range res.Draws {
		k := 0
		for _, u := range d {
			if u[0]+u[1] > 0 {
				k++
			}
		}
		perChain = append(perChain, float64(k)/float64(len(d)))
		all += float64(k)
		n += len(d)
	}
	return all / float64(n), perChain
}

// TestBimodal: the MH kernel alone, and NUTS alone, stay in the mode they
// start in; PT (with MH or NUTS) and TT recover both modes' weights within
// 0.05.
func TestBimodal(t *testing.T) {
	starts := [][]float64{{-2.5, -2.5}, {2.5, 2.5}, {-2.5, -2.5}}
	mh := MH{Sigma: 0.4, Adapt: AdaptNone} // fixed: adapted, it would learn to jump
	betas, err := Ladder(8, 1.0/64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		driver Driver
		sched  SwapSchedule
		draws  int
		kernel Kernel
	}{
		{"none", None, Sweep, 20000, mh},
		{"pt", PT, Sweep, 20000, mh},
		{"pt-deo", PT, DEO, 20000, mh},
		{"tt", TT, Sweep, 20000, mh},
		// NUTS, adapted during warm-up at every level.
		{"nuts-none", None, Sweep, 3000, NUTS{}},
		{"nuts-pt", PT, Sweep, 5000, NUTS{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), mixTarget{}, &Settings{
				Sampler: Sampler{Driver: c.driver, Kernel: c.kernel, Betas: betas, Swap: c.sched},
				Control: Control{Chains: 3, Warmup: 1000, Draws: c.draws, Seed: 3, Init: starts},
			})
			if err != nil {
				t.Fatal(err)
			}
			w, per := upperWeight(res)
			t.Logf("weight of the +μ mode: %.3f (per chain %.3f); swap/TT rates %v TT %.2f; round trips %d",
				w, per, swapRates(&res.Stats), res.Stats.TTRate(), res.Stats.RoundTrips)
			if c.driver == None {
				for ch, p := range per {
					want := 0.0
					if starts[ch][0] > 0 {
						want = 1
					}
					if p != want {
						t.Errorf("chain %d (start %v) left its mode: weight of +μ %.3f", ch, starts[ch], p)
					}
				}
				return
			}
			if math.Abs(w-mixW) > 0.05 {
				t.Errorf("weight of the +μ mode %.3f, want %.2f ± 0.05", w, mixW)
			}
		})
	}
}

func swapRates(s *Stats) []float64 {
	var r []float64
	for m := 1; m <= len(s.SwapProposed); m++ {
		r = append(r, math.Round(100*s.SwapRate(m))/100)
	}
	return r
}
