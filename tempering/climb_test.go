package tempering

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
)

// twoModeTarget is a mixture in u ∈ R⁴ of a main mode, whose u0 is
// Gumbel-distributed (a long tail upwards, so the warm start flags it
// non-Gaussian) and whose u1 … u3 are standard normal, with weight
// 1 − twoModeWeight, and a narrower Gaussian mode beyond that tail
// (mean, sd) with weight twoModeWeight. The zero value's second mode is
// at twoModeMean, with sd twoModeSD: one that a search started in
// (−2, 2)⁴ misses, as a length scale's second reading of the data can be.
type twoModeTarget struct{ mean, sd []float64 }

const twoModeWeight = 0.3

var (
	twoModeMean = []float64{4.5, 2.5, 0, 0}
	twoModeSD   = []float64{0.4, 0.3, 1, 1}
)

// second returns the second mode's mean and sd.
func (tg twoModeTarget) second() (mean, sd []float64) {
	if tg.mean == nil {
		return twoModeMean, twoModeSD
	}
	return tg.mean, tg.sd
}

func (twoModeTarget) Dim() int                           { return 4 }
func (twoModeTarget) NumObs() int                        { return 1 }
func (twoModeTarget) LogPrior(_, grad []float64) float64 { clear(grad); return 0 }
func (c twoModeTarget) Clone() (Target, error)           { return c, nil }

func (tg twoModeTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	mean, sd := tg.second()
	const halfLog2Pi = 0.9189385332046727
	la := math.Log1p(-twoModeWeight) - (u[0] + math.Exp(-u[0])) - 3*halfLog2Pi
	lb := math.Log(twoModeWeight) - 4*halfLog2Pi
	for j := range 4 {
		if j > 0 {
			la -= 0.5 * u[j] * u[j]
		}
		z := (u[j] - mean[j]) / sd[j]
		lb -= 0.5*z*z + math.Log(sd[j])
	}
	top := max(la, lb)
	lp := top + math.Log(math.Exp(la-top)+math.Exp(lb-top))
	if grad != nil {
		ra, rb := math.Exp(la-lp), math.Exp(lb-lp)
		for j := range 4 {
			ga := -u[j]
			if j == 0 {
				ga = -1 + math.Exp(-u[0])
			}
			grad[j] = ra*ga - rb*(u[j]-mean[j])/(sd[j]*sd[j])
		}
	}
	return lp, nil
}

// truth is the two-mode target's mean: the main mode's u0 has the
// Gumbel distribution's mean, Euler's constant.
func (tg twoModeTarget) truth() []float64 {
	const euler = 0.5772156649015329
	mean, _ := tg.second()
	m := make([]float64, 4)
	for j := range m {
		m[j] = twoModeWeight * mean[j]
	}
	m[0] += (1 - twoModeWeight) * euler
	return m
}

// TestTwoModeTargetGradient checks the two-mode target's gradient
// against central differences, at each mode and between them.
func TestTwoModeTargetGradient(t *testing.T) {
	checkGradient(t, twoModeTarget{}, [][]float64{{0.1, -0.3, 0.5, 1}, {4.4, 2.6, -0.2, 0.3}, {2.5, 1.3, 0, -1}})
}

// TestImportanceClimbs checks that importance sampling's climbs from
// heavy draws find the two-mode target's second mode, which the warm
// start's search misses, and that the sample is then calibrated and
// converges quickly: over seeds 2–5 the mode found is the second mode,
// every fit converges within 5 000 draws and the mean squared error of
// u0's and u1's means in standard errors is at most 4. Without climbs
// the same fits needed 11 000–17 000 draws. With seed 1 the proposal
// fit's draws and the first batch miss the second mode altogether and
// the sample stops, converged by its rule, 29 standard errors off:
// what no proposal reaches, neither its weights nor a climb can see.
func TestImportanceClimbs(t *testing.T) {
	var tg twoModeTarget
	mean := tg.truth()
	seeds := []uint64{2, 3, 4, 5}
	z2 := meanZ2{z2: make([]float64, 2)}
	for _, s := range seeds {
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: s, Proposal: &ProposalOptions{Seed: s, Split: true}})
		if err != nil {
			t.Fatal(err)
		}
		if ws.Modes != 1 || ws.Mode[0] > 1 {
			t.Fatalf("seed %d: the search found %d modes, the best at %.3v; want the main mode alone", s, ws.Modes, ws.Mode)
		}
		p := ws.Proposal
		o := ImportanceOptions{Seed: s, Batch: 500, Adapt: true, Mixture: 1, Reuse: p, Corners: ws.Corners, Climbs: 4, Mode: ws.Mode}
		r, err := ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Modes) != 1 || math.Abs(r.Modes[0][0]-twoModeMean[0]) > 0.01 || math.Abs(r.Modes[0][1]-twoModeMean[1]) > 0.01 {
			t.Errorf("seed %d: modes found %.4v after %d climbs, want one at %v", s, r.Modes, r.Climbs, twoModeMean)
		}
		if fresh := len(r.Draws) - r.Reused; !r.Converged || fresh > 5000 {
			t.Errorf("seed %d: converged %v after %d fresh draws: k̂ %.2f, least ESS %.0f", s, r.Converged, fresh, r.K, r.MinESS())
		}
		z2.add(r, mean)
	}
	z2.check(t, 4)
}

// meanZ2 sums, over fits, the squared errors of the first len(z2) of
// their posterior means in standard errors.
type meanZ2 struct {
	z2   []float64
	fits int
}

// add adds the fit r, whose true means are mean.
func (m *meanZ2) add(r *ImportanceResult, mean []float64) {
	for j := range m.z2 {
		z := (r.Means[j] - mean[j]) / r.SE[j]
		m.z2[j] += z * z
	}
	m.fits++
}

// check fails t where a mean's squared error, averaged over the fits,
// is above most (about 1 when calibrated).
func (m *meanZ2) check(t *testing.T, most float64) {
	t.Helper()
	for j, v := range m.z2 {
		if v /= float64(m.fits); v > most {
			t.Errorf("u%d: mean z² %.2f over %d fits, want about 1", j, v, m.fits)
		}
	}
}

// twoModeStarts is the two-mode target with starting points at each
// mode (Starter), so that the warm start's search finds both.
type twoModeStarts struct{ twoModeTarget }

func (tg twoModeStarts) Start(c, _ int, u []float64) {
	clear(u)
	if c == 1 {
		copy(u, tg.mean)
		u[0] -= 0.3
	}
}

// TestImportanceModes checks importance sampling of two modes that the
// search finds (WarmStartOptions.AllModes): the proposal is fitted at
// the best (the narrow second mode), the Laplace approximation at the
// other is a corner (Mode true) there, no climb finds a mode again, and over four seeds the
// sample converges with the means calibrated (mean z² of u0's and u1's
// at most 4) and the second mode's mass within 4 standard errors of its
// weight.
func TestImportanceModes(t *testing.T) {
	far := []float64{9, 4, 0, 0}
	tg := twoModeStarts{twoModeTarget{mean: far, sd: twoModeSD}}
	mean := tg.truth()
	seeds := []uint64{1, 2, 3, 4}
	z2 := meanZ2{z2: make([]float64, 2)}
	for _, s := range seeds {
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: s, Proposal: &ProposalOptions{Seed: s, Split: true}, AllModes: true})
		if err != nil {
			t.Fatal(err)
		}
		var modes []Corner
		for _, c := range ws.Corners {
			if c.Mode {
				modes = append(modes, c)
			}
		}
		if ws.Modes != 2 || ws.Proposal == nil || len(modes) != 1 {
			t.Fatalf("seed %d: %d modes, proposal %v, mode corners %+v; want 2 modes, a proposal and one corner", s, ws.Modes, ws.Proposal != nil, modes)
		}
		// The narrow second mode is the higher: the proposal is fitted
		// there, and the main mode (its u0 a Gumbel's, of unit curvature)
		// is the corner.
		if d := math.Hypot(ws.Mode[0]-far[0], ws.Mode[1]-far[1]); d > 0.01 {
			t.Errorf("seed %d: the best mode %.4v, want the second mode %v", s, ws.Mode, far)
		}
		if c := modes[0]; math.Hypot(c.Center[0], c.Center[1]) > 0.01 || math.Abs(c.Cov[0]-1) > 0.05 {
			t.Errorf("seed %d: the mode corner at %.4v with u0's variance %.4f, want the origin and 1", s, c.Center, c.Cov[0])
		}
		p := ws.Proposal
		o := ImportanceOptions{Seed: s, Batch: 500, Adapt: true, Mixture: 1, Reuse: p, Corners: ws.Corners, Climbs: 4, Mode: ws.Mode}
		r, err := ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || len(r.Modes) > 0 {
			t.Errorf("seed %d: converged %v after %d draws (k̂ %.2f), modes found again %.3v", s, r.Converged, len(r.Draws), r.K, r.Modes)
		}
		var mass float64
		for i, w := range NormalisedWeights(r.LogWeights) {
			if r.Draws[i][0] > 6 {
				mass += w
			}
		}
		if se := math.Sqrt(twoModeWeight * (1 - twoModeWeight) / r.ESS); math.Abs(mass-twoModeWeight) > 4*se {
			t.Errorf("seed %d: the second mode's mass %.4f (ESS %.0f), want %v", s, mass, r.ESS, twoModeWeight)
		}
		z2.add(r, mean)
	}
	z2.check(t, 4)
}

// BenchmarkImportanceClimbs measures importance sampling on the two-mode
// target, from the warm start's proposal with its corners as FitGP runs
// it, over 20 seeds, with and without climbs: the fresh draws per fit,
// the fits that found the second mode, the fits that stopped more than 4
// standard errors off in u0 or u1, and the mean squared error of u0's
// and u1's means in standard errors, over all fits (z2) and over those
// not off (z2-near).
func BenchmarkImportanceClimbs(b *testing.B) {
	var tg twoModeTarget
	mean := tg.truth()
	for _, climbs := range []int{0, 4} {
		b.Run(fmt.Sprintf("climbs=%d", climbs), func(b *testing.B) {
			const seeds = 20
			for b.Loop() {
				var z2, z2near float64
				var draws, found, off int
				for s := range uint64(seeds) {
					ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: s + 1, Proposal: &ProposalOptions{Seed: s + 1, Split: true}, AllModes: true})
					if err != nil {
						b.Fatal(err)
					}
					p := ws.Proposal
					o := ImportanceOptions{Seed: s + 1, Batch: 500, Adapt: true, Mixture: 1, Reuse: p, Corners: ws.Corners, Climbs: climbs, Mode: ws.Mode}
					r, err := ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o)
					if err != nil {
						b.Fatal(err)
					}
					draws += len(r.Draws) - r.Reused
					if len(r.Modes) > 0 {
						found++
					}
					far, zz := false, 0.0
					for j := range 2 {
						z := (r.Means[j] - mean[j]) / r.SE[j]
						zz += z * z / 2
						far = far || math.Abs(z) > 4
					}
					z2 += zz
					if far {
						off++
					} else {
						z2near += zz
					}
				}
				b.ReportMetric(float64(draws)/seeds, "draws/fit")
				b.ReportMetric(float64(found), "found")
				b.ReportMetric(float64(off), "off")
				b.ReportMetric(z2/seeds, "z2")
				b.ReportMetric(z2near/float64(seeds-off), "z2-near")
			}
		})
	}
}

// TestImportanceClimbsWorkers checks that the climbs leave the sample the
// same whatever the number of workers: on the two-mode target, with
// climbs that find its second mode, 1 and 3 workers give the same draws,
// weights, climbs and modes.
func TestImportanceClimbsWorkers(t *testing.T) {
	var tg twoModeTarget
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 2, Proposal: &ProposalOptions{Seed: 2, Split: true}})
	if err != nil {
		t.Fatal(err)
	}
	p := ws.Proposal
	var rs [2]*ImportanceResult
	for i, workers := range []int{1, 3} {
		o := ImportanceOptions{Seed: 2, Batch: 500, Adapt: true, Mixture: 1, Reuse: p, Corners: ws.Corners, Climbs: 4, Mode: ws.Mode, Workers: workers}
		if rs[i], err = ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o); err != nil {
			t.Fatal(err)
		}
	}
	if len(rs[0].Modes) == 0 {
		t.Fatal("no mode found: the test needs climbs that find one")
	}
	if !reflect.DeepEqual(rs[0].Draws, rs[1].Draws) || !reflect.DeepEqual(rs[0].LogWeights, rs[1].LogWeights) || !reflect.DeepEqual(rs[0].Modes, rs[1].Modes) ||
		rs[0].Climbs != rs[1].Climbs || rs[0].ClimbEvals != rs[1].ClimbEvals {
		t.Errorf("1 and 3 workers: %d and %d draws, %d and %d climbs, modes %.4v and %.4v", len(rs[0].Draws), len(rs[1].Draws), rs[0].Climbs, rs[1].Climbs, rs[0].Modes, rs[1].Modes)
	}
}

// scaledTwoMode is the two-mode target with its coordinates scaled by
// twoModeScales, as a GP's log length scales, signal and noise are
// pinned down to different widths: u_j = s_j·z_j, z the two-mode
// target's.
type scaledTwoMode struct{ twoModeTarget }

var twoModeScales = []float64{0.01, 1, 30, 0.3}

func (tg scaledTwoMode) Clone() (Target, error) { return tg, nil }

func (tg scaledTwoMode) LogLik(_ []int, u, grad []float64) (float64, error) {
	z := make([]float64, len(u))
	for j := range u {
		z[j] = u[j] / twoModeScales[j]
	}
	lp, err := tg.twoModeTarget.LogLik(nil, z, grad)
	for j := range grad {
		grad[j] /= twoModeScales[j]
	}
	return lp, err
}

// TestClimbWhitened checks that the climbs run in the coordinates the
// kernel whitens: on the two-mode target scaled to widths from 0.01 to
// 30, climbs from the same four starts (two in each mode's basin) reach
// the same optima as in u, with fewer log densities.
func TestClimbWhitened(t *testing.T) {
	var tg scaledTwoMode
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 2, Proposal: &ProposalOptions{Seed: 2}})
	if err != nil {
		t.Fatal(err)
	}
	k := ws.Proposal.Kernel()
	ts, err := clonePool(tg, 2)
	if err != nil {
		t.Fatal(err)
	}
	pool := evalPool{ts: ts}
	var starts [][]float64
	for _, z := range [][]float64{{1, -1, 0.5, 0.5}, {-0.5, 1, -1, 0}, {4, 2, 0.5, -0.5}, {5, 3, -0.5, 1}} {
		u := make([]float64, 4)
		for j := range u {
			u[j] = z[j] * twoModeScales[j]
		}
		starts = append(starts, u)
	}
	var got [2][]optimum
	var evals [2]int
	for i, white := range []bool{false, true} {
		c := newClimber(k, 4, toTarget(nil, 4), nil, ws.Mode, nil)
		if c.white == nil {
			t.Fatal("the kernel's scale matrix has no Cholesky factor")
		}
		if !white {
			c.white = nil
		}
		if got[i], evals[i], err = c.optimise(context.Background(), pool, starts); err != nil {
			t.Fatal(err)
		}
	}
	for s := range starts {
		u, w := got[0][s], got[1][s]
		for j := range u.u {
			if d := (u.u[j] - w.u[j]) / twoModeScales[j]; math.Abs(d) > 0.01 {
				t.Errorf("start %d: the climb in u ended at %.5g, whitened at %.5g", s, u.u, w.u)
				break
			}
		}
		if math.Abs(u.logPost-w.logPost) > 1e-6 {
			t.Errorf("start %d: log density %.8f in u, %.8f whitened", s, u.logPost, w.logPost)
		}
	}
	if evals[1] >= evals[0] {
		t.Errorf("the climbs took %d log densities whitened, %d in u", evals[1], evals[0])
	}
	t.Logf("log densities: %d in u, %d whitened", evals[0], evals[1])
}

// BenchmarkClimbWhitening measures the climbs' cost on a GP posterior,
// the §4.2 generator's at N = 1024, D = 8 (data seed 1): from the warm
// start's mode and proposal (in gp.VarianceSplit's space, as FitGP fits
// it), four climbs from draws of a t of nine times the proposal's
// spread, in u (white=false) and in the coordinates the proposal's scale
// matrix whitens (white=true, what the climbs do). It reports the log
// densities with gradient per climb and the largest difference between
// the two variants' optima's log densities. Run with -benchtime 1x.
func BenchmarkClimbWhitening(b *testing.B) {
	be, err := linalg.Get("")
	if err != nil {
		b.Fatal(err)
	}
	data, _, err := gp.Synthetic(1024, 8, 1, gp.Prior{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := gp.New(be, data, gp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ws, err := FindMode(ctx, m, WarmStartOptions{Seed: 1, Proposal: &ProposalOptions{Transform: gp.VarianceSplit{}, Seed: 1}})
	if err != nil {
		b.Fatal(err)
	}
	p := ws.Proposal
	k := p.Kernel()
	ts, err := clonePool(Reparam(m, p.Transform), 2)
	if err != nil {
		b.Fatal(err)
	}
	defer closePool(ts)
	far := k
	far.Scale *= 9
	lk, err := far.NewLevel(len(k.Center), 1)
	if err != nil {
		b.Fatal(err)
	}
	starts := lk.(*indepLevel).drawBatch(rand.New(rand.NewPCG(5, 2)), 4)
	var lps [2][]float64
	for i, white := range []bool{false, true} {
		b.Run(fmt.Sprintf("white=%v", white), func(b *testing.B) {
			for b.Loop() {
				c := newClimber(k, 4, toTarget(p.Transform, len(k.Center)), p.Transform, ws.Mode, nil)
				if !white {
					c.white = nil
				}
				res, evals, err := c.optimise(ctx, evalPool{ts: ts}, starts)
				if err != nil {
					b.Fatal(err)
				}
				lps[i] = nil
				for _, r := range res {
					lps[i] = append(lps[i], r.logPost)
				}
				b.ReportMetric(float64(evals)/float64(len(starts)), "grads/climb")
				if i == 1 {
					var d float64
					for s := range lps[1] {
						d = max(d, math.Abs(lps[1][s]-lps[0][s]))
					}
					b.ReportMetric(d, "max-dlogpost")
				}
			}
		})
	}
}

// BenchmarkFindModeWhitening measures the warm start's last stage on the
// GP of the §4.2 generator at D = 8 (data seed 1), N = 1024 and 2048,
// searching in u (white=false) or in the coordinates that the Laplace
// approximation on the stage before whitens (white=true, the default):
// the last stage's evaluations on all the data (its Laplace
// approximation's D + 3 included), the warm start's gradient-equivalents
// and the log posterior at the mode. Run with -benchtime 1x.
func BenchmarkFindModeWhitening(b *testing.B) {
	be, err := linalg.Get("")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1024, 2048} {
		data, _, err := gp.Synthetic(n, 8, 1, gp.Prior{})
		if err != nil {
			b.Fatal(err)
		}
		m, err := gp.New(be, data, gp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, white := range []bool{false, true} {
			b.Run(fmt.Sprintf("N=%d/white=%v", n, white), func(b *testing.B) {
				for b.Loop() {
					whitenLastStage = white
					ws, err := FindMode(context.Background(), m, WarmStartOptions{Seed: 1})
					whitenLastStage = true
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(ws.Stages[len(ws.Stages)-1].Evals), "last-stage-evals")
					b.ReportMetric(ws.GradEquivalents(n), "grad-equiv")
					b.ReportMetric(ws.LogPost, "logpost")
				}
			})
		}
	}
}
