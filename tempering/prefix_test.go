package tempering

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// prefixTarget is an mvnTarget that gives prefix values by evaluating each
// prefix with LogLik: bit for bit what the chain would compute itself.
type prefixTarget struct {
	*mvnTarget
	calls int // LogLikPrefixes calls
}

func (p *prefixTarget) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	p.calls++
	if subset == nil {
		subset = make([]int, p.NumObs())
		for i := range subset {
			subset[i] = i
		}
	}
	for j, k := range ks {
		pre[j], _ = p.LogLik(subset[:k], u, nil)
	}
	ll, err := p.LogLik(subset, u, grad)
	return ll, true, err
}

func (p *prefixTarget) Clone() (Target, error) {
	c, err := p.mvnTarget.Clone()
	if err != nil {
		return nil, err
	}
	return &prefixTarget{mvnTarget: c.(*mvnTarget)}, nil
}

// TestPrefixReuse: with a PrefixLiker target, SPT and STT chains make
// exactly the same draws as with a plain one, while every value taken from
// the prefix cache is one evaluation fewer: in an SPT swap the colder
// state's value on the hotter subset always; with a gradient-free kernel
// in an STT ascent the value on X_m for every m ≥ 2 (X_1's would come from
// a level-0 state evaluated on the previous iteration's subsets), and in
// the descent wherever the path has not moved since it was evaluated on a
// colder level's subset; and never where a gradient is needed.
func TestPrefixReuse(t *testing.T) {
	const M, iters = 4, 150
	for _, k := range []Kernel{MH{Sigma: 0.3}, HMC{StepSize: 0.05, Steps: 3}} {
		for _, d := range []Driver{SPT, STT} {
			for _, sched := range []SwapSchedule{Sweep, DEO} {
				if d == STT && sched == DEO {
					continue
				}
				s := &Settings{Driver: d, Kernel: k, Levels: M, Swap: sched}
				start := []float64{1, -0.5, 0.3}
				plain, err := NewChain(newMVNTarget(40, 2, 1), s, rand.New(rand.NewPCG(3, 4)), start)
				if err != nil {
					t.Fatal(err)
				}
				pt := &prefixTarget{mvnTarget: newMVNTarget(40, 2, 1)}
				pref, err := NewChain(pt, s, rand.New(rand.NewPCG(3, 4)), start)
				if err != nil {
					t.Fatal(err)
				}
				name := func() string {
					return d.String() + "/" + sched.String() + "/" + map[bool]string{true: "hmc", false: "mh"}[s.Kernel.NeedsGrad()]
				}
				for it := range iters {
					plain.Step()
					pref.Step()
					if !slices.Equal(plain.Position(), pref.Position()) || plain.LogDensity() != pref.LogDensity() {
						t.Fatalf("%s: iteration %d: position %v (log density %v) with prefixes, %v (%v) without", name(), it, pref.Position(), pref.LogDensity(), plain.Position(), plain.LogDensity())
					}
				}
				// STT with a gradient kernel never looks values up, so it
				// does not ask for them.
				if asks := d == SPT || !s.Kernel.NeedsGrad(); (pt.calls > 0) != asks {
					t.Fatalf("%s: the target's LogLikPrefixes was called %d times", name(), pt.calls)
				}
				ps, qs := plain.Stats(), pref.Stats()
				for m := range ps.Levels {
					a, b := &ps.Levels[m], &qs.Levels[m]
					if a.PrefixReuses != 0 {
						t.Errorf("%s level %d: %d prefix reuses without a PrefixLiker", name(), m, a.PrefixReuses)
					}
					if a.EvalsGrad != b.EvalsGrad || a.Evals-b.Evals != b.PrefixReuses {
						t.Errorf("%s level %d: %d+%d evaluations and %d reuses with prefixes, %d+%d without", name(), m, b.Evals, b.EvalsGrad, b.PrefixReuses, a.Evals, a.EvalsGrad)
					}
					var want int64
					switch {
					case d == SPT && m > 0:
						want = ps.SwapProposed[m-1]
					case d == STT && m >= 1 && !s.Kernel.NeedsGrad():
						// At least the ascent's (m ≥ 2); the descent's too
						// (m < M) where the path has not moved since an
						// evaluation on a colder level's subset.
						tts := ps.TTProposed - ps.TTAborted
						lo, hi := tts, tts
						if m == 1 {
							lo = 0
						}
						if m < M {
							hi += tts
						}
						if b.PrefixReuses < lo || b.PrefixReuses > hi {
							t.Errorf("%s level %d: %d prefix reuses, want %d to %d", name(), m, b.PrefixReuses, lo, hi)
						}
						continue
					}
					if b.PrefixReuses != want {
						t.Errorf("%s level %d: %d prefix reuses, want %d", name(), m, b.PrefixReuses, want)
					}
				}
			}
		}
	}
}
