package tempering

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/diag"
)

// cornerTarget is a posterior with a corner: u0 has a broad top and a
// cliff below −1, and u1's spread given u0 grows from 0.15 to 0.5 (its
// mean rising by 0.6) as u0 nears the cliff, as a length scale's does
// once another input takes its part; u2 … u7 are standard normal.
type cornerTarget struct{}

// cornerShape returns the mean and sd of u1 given u0, and their
// derivatives in u0.
func cornerShape(u0 float64) (m, s, dm, ds float64) {
	g := 1 / (1 + math.Exp(4*(u0+0.5)))
	dg := -4 * g * (1 - g)
	return 0.6 * g, 0.15 + 0.35*g, 0.6 * dg, 0.35 * dg
}

// cornerLog0 is u0's marginal log density, up to a constant.
func cornerLog0(u0 float64) float64 {
	z := (u0 - 0.5) / 1.5
	lp := -0.5 * z * z
	if u0 < -1 {
		c := (u0 + 1) / 0.1
		lp -= 0.5 * c * c
	}
	return lp
}

func (cornerTarget) Dim() int                           { return 8 }
func (cornerTarget) NumObs() int                        { return 1 }
func (cornerTarget) LogPrior(_, grad []float64) float64 { clear(grad); return 0 }
func (c cornerTarget) Clone() (Target, error)           { return c, nil }

func (cornerTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	m, s, dm, ds := cornerShape(u[0])
	z := (u[1] - m) / s
	lp := cornerLog0(u[0]) - 0.5*z*z - math.Log(s)
	for _, x := range u[2:] {
		lp -= 0.5 * x * x
	}
	if grad != nil {
		d0 := -(u[0] - 0.5) / (1.5 * 1.5)
		if u[0] < -1 {
			d0 -= (u[0] + 1) / 0.01
		}
		grad[0] = d0 + z*dm/s + z*z*ds/s - ds/s
		grad[1] = -z / s
		for j, x := range u[2:] {
			grad[j+2] = -x
		}
	}
	return lp, nil
}

// cornerEdge is where the corner begins: below it in u0 lies 18.3% of
// the corner target's mass.
const cornerEdge = -0.3

// cornerTruth returns the corner target's mean and its mass below
// cornerEdge in u0, by quadrature over u0.
func cornerTruth() (mean []float64, corner float64) {
	var z, zc, m0, m1 float64
	for i := range 20000 {
		u0 := -3 + 10*(float64(i)+0.5)/20000
		p := math.Exp(cornerLog0(u0))
		m, _, _, _ := cornerShape(u0)
		z, m0, m1 = z+p, m0+p*u0, m1+p*m
		if u0 < cornerEdge {
			zc += p
		}
	}
	return []float64{m0 / z, m1 / z, 0, 0, 0, 0, 0, 0}, zc / z
}

// TestCornerTargetGradient checks the corner target's gradient against
// central differences, at a point in the corner and one in the bulk.
func TestCornerTargetGradient(t *testing.T) {
	checkGradient(t, cornerTarget{}, [][]float64{{-0.7, 0.4, 0.3, -0.2, 0.1, 0, 0.5, 1}, {1.2, -0.1, 0, 1, -1, 0.3, 0, 0}})
}

// checkGradient fails t unless tg's gradient at each of us agrees with
// central differences of its log-likelihood.
func checkGradient(t *testing.T, tg Target, us [][]float64) {
	t.Helper()
	g := make([]float64, tg.Dim())
	for _, u := range us {
		if _, err := tg.LogLik(nil, u, g); err != nil {
			t.Fatal(err)
		}
		for i := range u {
			const h = 1e-5
			v := slices.Clone(u)
			v[i] = u[i] + h
			hi, _ := tg.LogLik(nil, v, nil)
			v[i] = u[i] - h
			lo, _ := tg.LogLik(nil, v, nil)
			if d := (hi - lo) / (2 * h); math.Abs(d-g[i]) > 1e-6*max(1, math.Abs(d)) {
				t.Errorf("at %v: ∂/∂u%d = %v, central difference %v", u, i, g[i], d)
			}
		}
	}
}

// TestImportanceCornerBroad checks the corner target's mean (by
// quadrature) and importance sampling's arithmetic on it: from a fixed t
// broad enough to cover the corner, the estimated means of u0 and u1 and
// the mass of the corner agree with the quadrature's.
func TestImportanceCornerBroad(t *testing.T) {
	var tg cornerTarget
	k := Independence{Center: make([]float64, 8), Cov: make([]float64, 64), DF: 5, Scale: 1}
	for i := range 8 {
		k.Cov[i*8+i] = 1
	}
	k.Center[0], k.Cov[0], k.Cov[9] = 0.5, 4, 0.25
	r, err := ImportanceSample(context.Background(), tg, k, nil, ImportanceOptions{Seed: 1, Batch: 5000, MinESS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	checkCorner(t, r)
}

// BenchmarkImportanceCorner measures importance sampling on the corner
// target as FitGP runs it: the warm start's mode and split-t proposal
// (FindMode, whose proposal rounds find the corner only in part), then
// importance sampling from that proposal, reusing its rounds' draws, in
// batches of 500, refitted after each batch as a single split-t (refits=1) or
// as a mixture of five t's (refits=5), until the stop rule (every ESS ≥
// 400, Pareto k̂ ≤ 0.7). The variants change one thing: the stop rule's
// largest k̂ (maxk=0.5), a wide component of weight 0.1 and twice the
// spread (wide=0.1), 3 degrees of freedom in place of the proposal's 5
// (df=3), the warm start's corners mixed into every proposal
// (corners; FitGP refits a single t with them), or refits by a
// symmetric t in place of a split-t (symmetric). Over 200 seeds it
// reports the draws per fit and each estimate's squared error in units
// of its standard error (z², about 1 when the estimates are calibrated;
// its sd over 200 seeds is about 0.1 where z is normal, more where one
// fit stops far off) for u0, for u1 (whose spread grows in the corner)
// and for the six standard normals. Run with -benchtime 1x.
func BenchmarkImportanceCorner(b *testing.B) {
	var tg cornerTarget
	mean, _ := cornerTruth()
	for _, v := range []struct {
		name       string
		refits     int
		maxK, wide float64
		df         float64
		corners    bool
		symmetric  bool
	}{{"refits=1", 1, 0, 0, 0, false, false}, {"refits=5", 5, 0, 0, 0, false, false}, {"refits=5/maxk=0.5", 5, 0.5, 0, 0, false, false},
		{"refits=5/wide=0.1", 5, 0, 0.1, 0, false, false}, {"refits=5/df=3", 5, 0, 0, 3, false, false},
		{"refits=1/corners", 1, 0, 0, 0, true, false}, {"refits=1/corners/symmetric", 1, 0, 0, 0, true, true},
		{"refits=5/corners", 5, 0, 0, 0, true, false}, {"refits=5/corners/maxk=0.5", 5, 0.5, 0, 0, true, false}} {
		b.Run(v.name, func(b *testing.B) {
			const seeds = 200
			defer func(s bool) { splitRefits = s }(splitRefits)
			splitRefits = !v.symmetric
			for b.Loop() {
				var z2 [3]float64
				var draws int
				for s := range uint64(seeds) {
					ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: s + 1, Proposal: &ProposalOptions{Seed: s + 1, Split: true}})
					if err != nil {
						b.Fatal(err)
					}
					p := ws.Proposal
					if p == nil {
						b.Fatalf("seed %d: no proposal fitted", s+1)
					}
					k := p.Kernel()
					k.Wide = v.wide
					if v.df > 0 {
						k.DF = v.df
					}
					o := ImportanceOptions{Seed: s + 1, Batch: 500, Adapt: true, Mixture: v.refits, Reuse: p, MaxK: v.maxK}
					if v.corners {
						o.Corners = ws.Corners
					}
					r, err := ImportanceSample(context.Background(), tg, k, p.Transform, o)
					if err != nil {
						b.Fatal(err)
					}
					draws += len(r.Draws)
					for j, m := range mean {
						z := (r.Means[j] - m) / r.SE[j]
						z2[min(j, 2)] += z * z
					}
				}
				b.ReportMetric(float64(draws)/seeds, "draws/fit")
				b.ReportMetric(z2[0]/seeds, "z2-u0")
				b.ReportMetric(z2[1]/seeds, "z2-u1")
				b.ReportMetric(z2[2]/seeds/float64(len(mean)-2), "z2-normals")
			}
		})
	}
}

// BenchmarkChainsCorner measures the chains' warm-started kernels on the
// corner target, as FitGP runs them where importance sampling is off: the
// warm start's mode and proposal (a t, not split, with its surrogate; no
// corners), then three chains without tempering from over-dispersed
// starts, 75 warm-up iterations and at most 10 000 draws, until every
// R̂ < 1.01 and bulk- and tail-ESS ≥ 400. kernel=imh is the screened
// independence sampler from the fitted t with one local step (and the
// wide component below an importance ESS of 0.5); kernel=hmc is
// WarmKernel. Over 8 seeds it reports the draws per chain, the fits that
// converged, and each mean's squared error in units of its MCSE (z²,
// about 1 when calibrated) for u0, for u1 (whose spread grows in the
// corner) and for the six standard normals. Run with -benchtime 1x.
func BenchmarkChainsCorner(b *testing.B) {
	var tg cornerTarget
	mean, _ := cornerTruth()
	for _, kind := range []string{"imh", "hmc"} {
		b.Run("kernel="+kind, func(b *testing.B) {
			const seeds = 8
			for b.Loop() {
				var z2 [3]float64
				var draws, converged int
				for s := range uint64(seeds) {
					res, sums, err := chainsCorner(tg, kind, s+1)
					if err != nil {
						b.Fatal(err)
					}
					for j, m := range mean {
						z := (sums[j].Mean - m) / sums[j].MCSEMean
						z2[min(j, 2)] += z * z
					}
					if diag.Judge(sums, len(res.Draws)).Converged {
						converged++
					}
					draws += len(res.Draws[0])
				}
				b.ReportMetric(float64(draws)/seeds, "draws/chain")
				b.ReportMetric(float64(converged), "converged")
				b.ReportMetric(z2[0]/seeds, "z2-u0")
				b.ReportMetric(z2[1]/seeds, "z2-u1")
				b.ReportMetric(z2[2]/seeds/float64(len(mean)-2), "z2-normals")
			}
		})
	}
}

// chainsCorner runs BenchmarkChainsCorner's chains of kind (imh or hmc)
// with seed on tg and summarises each parameter over the chains.
func chainsCorner(tg Target, kind string, seed uint64) (*Result, []diag.Summary, error) {
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: seed, Chains: 3, NoCorners: true,
		Proposal: &ProposalOptions{Seed: seed, Surrogate: true}})
	if err != nil {
		return nil, nil, err
	}
	st := Settings{Sampler: Sampler{Driver: None}, Control: Control{Chains: 3, Draws: 10000, Seed: seed, Stop: diag.StopRule{MinESS: 400}}}
	if p := ws.Proposal; kind == "imh" {
		k := p.Kernel()
		k.Screen, k.Local = p.Surrogate, 1
		if p.ESS() < 0.5 {
			k.Wide = 0.15
		}
		st.Kernel, st.Transform = k, p.Transform
	}
	ws.Apply(&st)
	res, err := Run(context.Background(), tg, &st)
	if err != nil {
		return nil, nil, err
	}
	sums := make([]diag.Summary, tg.Dim())
	for j := range sums {
		ch := make([][]float64, len(res.Draws))
		for c, d := range res.Draws {
			for _, u := range d {
				ch[c] = append(ch[c], u[j])
			}
		}
		if sums[j], err = diag.SummarizeChains(fmt.Sprintf("u%d", j), ch); err != nil {
			return nil, nil, err
		}
	}
	return res, sums, nil
}

// TestFindModeCorners checks the warm start's corners on the corner
// target against its known shape: u0 is found non-Gaussian, and on its
// lower side the corner's centre has u1 at its conditional mean given u0
// and the corner's covariance gives u1 its conditional spread there.
func TestFindModeCorners(t *testing.T) {
	var tg cornerTarget
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, Proposal: &ProposalOptions{Seed: 1, Split: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ws.NonGaussian, 0) {
		t.Fatalf("non-Gaussian parameters %v, want u0 among them", ws.NonGaussian)
	}
	var low *Corner
	for i := range ws.Corners {
		if c := &ws.Corners[i]; c.Center[0] < ws.Mode[0] {
			low = c
		}
	}
	if low == nil {
		t.Fatalf("no corner below the mode's u0 = %.3f among %d", ws.Mode[0], len(ws.Corners))
	}
	m, s, _, _ := cornerShape(low.Center[0])
	if math.Abs(low.Center[1]-m) > 0.05*s {
		t.Errorf("corner at u0 = %.3f: u1 = %.4f, conditional mean %.4f", low.Center[0], low.Center[1], m)
	}
	if v := low.Cov[9] - low.Cov[1]*low.Cov[1]/low.Cov[0]; math.Abs(v/(s*s)-1) > 0.05 {
		t.Errorf("corner at u0 = %.3f: u1's conditional variance %.4f, target's %.4f", low.Center[0], v, s*s)
	}
}

// TestFindModeNoCorners checks that NoCorners skips the corners, and
// their evaluations, that the corner target otherwise gets.
func TestFindModeNoCorners(t *testing.T) {
	var tg cornerTarget
	evals := make([]int, 2)
	for i, skip := range []bool{false, true} {
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, Proposal: &ProposalOptions{Seed: 1, Split: true}, NoCorners: skip})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ws.Corners) > 0; got == skip {
			t.Errorf("NoCorners %v: %d corners", skip, len(ws.Corners))
		}
		evals[i] = ws.Stages[len(ws.Stages)-1].Evals
	}
	if evals[1] >= evals[0] {
		t.Errorf("the last stage's evaluations: %d with corners, %d without", evals[0], evals[1])
	}
}

// TestImportanceCorners checks that importance sampling from the warm
// start's proposal with its corners mixed in, refitted as a single t,
// is calibrated on the corner target: over 5 seeds the mean squared
// error of u0's and u1's means in units of their standard errors is at
// most 4 (about 1 when calibrated; without the corners, 26.7 for u1
// over 10 seeds in BenchmarkImportanceCorner).
func TestImportanceCorners(t *testing.T) {
	var tg cornerTarget
	mean, _ := cornerTruth()
	const seeds = 5
	z2 := meanZ2{z2: make([]float64, 2)}
	for s := range uint64(seeds) {
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: s + 1, Proposal: &ProposalOptions{Seed: s + 1, Split: true}})
		if err != nil {
			t.Fatal(err)
		}
		p := ws.Proposal
		o := ImportanceOptions{Seed: s + 1, Batch: 500, Adapt: true, Mixture: 1, Reuse: p, Corners: ws.Corners}
		r, err := ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Errorf("seed %d: not converged after %d draws: k̂ %.2f, least ESS %.0f", s+1, len(r.Draws), r.K, r.MinESS())
		}
		z2.add(r, mean)
	}
	z2.check(t, 4)
}

// checkCorner fails t unless r's means of u0 and u1 and its mass below
// cornerEdge are within 4 standard errors of the quadrature's.
func checkCorner(t *testing.T, r *ImportanceResult) {
	t.Helper()
	mean, want := cornerTruth()
	for j := range 2 {
		if z := (r.Means[j] - mean[j]) / r.SE[j]; math.Abs(z) > 4 {
			t.Errorf("u%d: mean %.4f ± %.4f, quadrature %.4f", j, r.Means[j], r.SE[j], mean[j])
		}
	}
	var corner float64
	for i, w := range NormalisedWeights(r.LogWeights) {
		if r.Draws[i][0] < cornerEdge {
			corner += w
		}
	}
	if math.Abs(corner-want) > 4*math.Sqrt(want*(1-want)/r.ESS) {
		t.Errorf("mass below u0 = %v: %.4f from %d draws (ESS %.0f), quadrature %.4f", cornerEdge, corner, len(r.Draws), r.ESS, want)
	}
}

// TestImportanceCornersFirstBatch checks that the first batch from a
// proposal with corners is a full one even where the reused draws alone
// nearly meet the stop rule: those draws came from proposals without the
// corners, and a first batch of 100 let fits on the corner target stop
// before the corner's far side was sampled.
func TestImportanceCornersFirstBatch(t *testing.T) {
	var tg cornerTarget
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, Proposal: &ProposalOptions{Seed: 1, Split: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Corners) == 0 {
		t.Fatal("the warm start fitted no corners")
	}
	p := ws.Proposal
	for _, corners := range []bool{false, true} {
		first := -1
		o := ImportanceOptions{Seed: 1, Batch: 500, MinESS: 50, Adapt: true, Mixture: 1, Reuse: p, MaxDraws: 600,
			Batched: func(r *ImportanceResult) {
				if first < 0 {
					first = len(r.Draws) - r.Reused
				}
			}}
		if corners {
			o.Corners = ws.Corners
		}
		if _, err := ImportanceSample(context.Background(), tg, p.Kernel(), p.Transform, o); err != nil {
			t.Fatal(err)
		}
		switch {
		case corners && first != o.Batch:
			t.Errorf("with corners the first batch drew %d, want %d", first, o.Batch)
		case !corners && first >= o.Batch:
			t.Errorf("without corners the first batch drew %d, want it shrunk below %d (the test's premise)", first, o.Batch)
		}
	}
}
