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
				s := &Settings{Sampler: Sampler{Driver: d, Kernel: k, Levels: M, Swap: sched}}
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

// resumeTarget is a prefixTarget that is also a GradResumer: it records
// its last evaluation and grants a resume only where the contract allows
// one (the last evaluation without gradient, at the same point, on a
// subset of which the asked one is a prefix), failing the test if the
// chain asks at any other time; the resumed values are LogLik's, bit for
// bit.
type resumeTarget struct {
	*prefixTarget
	t              *testing.T
	lastU          []float64
	lastSub        []int // nil: the last evaluation had a gradient or was resumed
	same, onPrefix int   // resumes granted on the same subset, on a strict prefix
}

func (r *resumeTarget) record(subset []int, u, grad []float64) {
	r.lastSub = nil
	if grad != nil {
		return
	}
	if subset == nil {
		subset = make([]int, r.NumObs())
		for i := range subset {
			subset[i] = i
		}
	}
	r.lastU = append(r.lastU[:0], u...)
	r.lastSub = append([]int{}, subset...)
}

func (r *resumeTarget) LogLik(subset []int, u, grad []float64) (float64, error) {
	r.record(subset, u, grad)
	return r.prefixTarget.LogLik(subset, u, grad)
}

func (r *resumeTarget) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	r.record(subset, u, grad)
	return r.prefixTarget.LogLikPrefixes(subset, u, grad, ks, pre)
}

func (r *resumeTarget) LogLikResume(subset []int, u, grad []float64) (float64, bool, error) {
	last := r.lastSub
	r.lastSub = nil
	if last == nil || !slices.Equal(u, r.lastU) || len(subset) > len(last) || !slices.Equal(subset, last[:len(subset)]) {
		r.t.Errorf("asked to resume at %v on %d observations after an evaluation without gradient at %v on %d (nil: none)", u, len(subset), r.lastU, len(last))
		return 0, false, nil
	}
	if len(subset) == len(last) {
		r.same++
	} else {
		r.onPrefix++
	}
	ll, err := r.prefixTarget.LogLik(subset, u, grad)
	return ll, true, err
}

func (r *resumeTarget) Clone() (Target, error) {
	c, err := r.prefixTarget.Clone()
	if err != nil {
		return nil, err
	}
	return &resumeTarget{prefixTarget: c.(*prefixTarget), t: r.t}, nil
}

// TestGradResume: with a GradResumer target, SPT chains with a gradient
// kernel make exactly the same draws as with a plain one, asking to resume
// only where the target's last evaluation allows it, and only for levels
// whose kernel uses gradients; every resume is one evaluation with
// gradient fewer (but for one left unused at the end of the run). A state that comes down in a swap is
// resumed on its new level's subset (DEO; the sweep's swap into level 0),
// and one that came down and then stays on the next swap is resumed on its
// level's subset from the evaluation on the colder one (the sweep).
func TestGradResume(t *testing.T) {
	const M, iters = 4, 200
	hmc, mh := HMC{StepSize: 0.05, Steps: 3}, MH{Sigma: 0.3, Adapt: AdaptNone}
	for _, k := range []Kernel{hmc, mh, PerLevel{Target: hmc, Hot: mh}} {
		for _, d := range []Driver{SPT, STT, PT} {
			for _, sched := range []SwapSchedule{Sweep, DEO} {
				kname := map[bool]string{true: "hmc", false: "mh"}[k.NeedsGrad()]
				_, perLevel := k.(PerLevel)
				if perLevel {
					kname = "hmc+mh"
				}
				name := d.String() + "/" + sched.String() + "/" + kname
				s := &Settings{Sampler: Sampler{Driver: d, Kernel: k, Levels: M, Swap: sched}}
				start := []float64{1, -0.5, 0.3}
				plain, err := NewChain(newMVNTarget(40, 2, 1), s, rand.New(rand.NewPCG(5, 6)), start)
				if err != nil {
					t.Fatal(err)
				}
				rt := &resumeTarget{prefixTarget: &prefixTarget{mvnTarget: newMVNTarget(40, 2, 1)}, t: t}
				res, err := NewChain(rt, s, rand.New(rand.NewPCG(5, 6)), start)
				if err != nil {
					t.Fatal(err)
				}
				for it := range iters {
					plain.Step()
					res.Step()
					if !slices.Equal(plain.Position(), res.Position()) || plain.LogDensity() != res.LogDensity() {
						t.Fatalf("%s: iteration %d: position %v (log density %v) with resumes, %v (%v) without", name, it, res.Position(), res.LogDensity(), plain.Position(), plain.LogDensity())
					}
				}
				ps, rs := plain.Stats(), res.Stats()
				var resumes int64
				for m := range ps.Levels {
					a, b := &ps.Levels[m], &rs.Levels[m]
					resumes += b.GradResumes
					if a.GradResumes != 0 {
						t.Errorf("%s level %d: %d resumes without a GradResumer", name, m, a.GradResumes)
					}
					// Every resume saves one evaluation with gradient,
					// except one made in the last iteration for a
					// transition that never comes (at most one per level),
					// which costs one prior evaluation more.
					if unused := b.GradResumes - (a.EvalsGrad - b.EvalsGrad); unused < 0 || unused > 1 || b.PriorEvals-a.PriorEvals != unused {
						t.Errorf("%s level %d: %d evaluations with gradient and %d resumes (%d prior evaluations) with resumes, %d (%d) without", name, m, b.EvalsGrad, b.GradResumes, b.PriorEvals, a.EvalsGrad, a.PriorEvals)
					}
				}
				if got := int64(rt.same + rt.onPrefix); got != resumes {
					t.Errorf("%s: the target granted %d resumes, the stats count %d", name, got, resumes)
				}
				if d != SPT || !k.NeedsGrad() {
					if resumes != 0 {
						t.Errorf("%s: %d resumes", name, resumes)
					}
					continue
				}
				if perLevel {
					// MH above the target takes no gradient: only states
					// that come down to level 0 are resumed.
					for m := 1; m < len(rs.Levels); m++ {
						if rs.Levels[m].GradResumes != 0 {
							t.Errorf("%s level %d (MH): %d resumes", name, m, rs.Levels[m].GradResumes)
						}
					}
					if rs.Levels[0].GradResumes == 0 {
						t.Errorf("%s: no resume at level 0", name)
					}
					continue
				}
				// DEO resumes every state that comes down, on the subset it
				// was evaluated on; the sweep resumes on prefixes too.
				var accepted int64
				for _, a := range ps.SwapAccepted {
					accepted += a
				}
				switch {
				case sched == DEO && (int64(rt.same) != accepted || rt.onPrefix != 0):
					t.Errorf("%s: %d resumes on the same subset and %d on a prefix; %d swaps accepted", name, rt.same, rt.onPrefix, accepted)
				case sched == Sweep && (rt.same == 0 || rt.onPrefix == 0):
					t.Errorf("%s: %d resumes on the same subset and %d on a prefix", name, rt.same, rt.onPrefix)
				}
			}
		}
	}
}
