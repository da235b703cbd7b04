package tempering

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/diag"
)

// misfitProposal returns an independence kernel whose t is centred half a
// posterior sd off the MVN target's posterior mean, in the space of tr
// (nil: u), with 1.5 times its covariance: a proposal that covers the
// posterior but does not fit it.
func misfitProposal(tg *mvnTarget, tr Transform, wide float64) Independence {
	mean, cov := tg.posterior(nil, 1)
	d := len(mean)
	c := slices.Clone(mean)
	for i := range c {
		c[i] += 0.5 * math.Sqrt(cov[i*d+i])
	}
	if tr != nil {
		v := make([]float64, d)
		tr.FromTarget(c, v)
		cov = CovInChainSpace(tr, c, cov)
		c = v
	}
	for i := range cov {
		cov[i] *= 1.5
	}
	return Independence{Center: c, Cov: cov, DF: 5, Wide: wide}
}

// sumZ2 returns the sum over parameters of r's squared errors of the
// means, each over its standard error.
func sumZ2(r *ImportanceResult, mean []float64) float64 {
	var s float64
	for j := range mean {
		z := (r.Means[j] - mean[j]) / r.SE[j]
		s += z * z
	}
	return s
}

// TestImportanceSampleCalibrated checks ImportanceSample's estimates and
// their errors on a posterior known exactly (the MVN target's), from a
// proposal that misfits it, in u and in a space whose Jacobian is not
// constant (sinhFirst): over 30 seeds, each stopped by the rule at ESS
// 400, the means' errors over their standard errors have a mean square
// near 1 (it is 4 if the SE is half what it should be, and far above 1
// with the Jacobian left out), and so do the errors of the estimated mass
// below each parameter's true 5% quantile over √(p(1−p)/ESSTail).
func TestImportanceSampleCalibrated(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	mean, cov := tg.posterior(nil, 1)
	d := len(mean)
	for _, tc := range []struct {
		name string
		tr   Transform
	}{{"u", nil}, {"sinh", sinhFirst{}}} {
		t.Run(tc.name, func(t *testing.T) {
			k := misfitProposal(tg, tc.tr, 0.15)
			var zm, zt float64
			var n int
			for seed := range uint64(30) {
				r, err := ImportanceSample(context.Background(), tg, k, tc.tr, ImportanceOptions{Seed: seed + 1, Batch: 200})
				if err != nil {
					t.Fatal(err)
				}
				if !r.Converged || r.K > 0.7 || r.MinESS() < 400 {
					t.Fatalf("seed %d: not converged (k̂ %.2f, min ESS %.0f)", seed+1, r.K, r.MinESS())
				}
				w := NormalisedWeights(r.LogWeights)
				for j := range d {
					sd := math.Sqrt(cov[j*d+j])
					z := (r.Means[j] - mean[j]) / r.SE[j]
					zm += z * z
					q05 := mean[j] - 1.6448536269514722*sd
					var p float64
					for i, u := range r.Draws {
						if u[j] <= q05 {
							p += w[i]
						}
					}
					z = (p - 0.05) / math.Sqrt(0.05*0.95/r.ESSTail[j])
					zt += z * z
					n++
				}
			}
			zm /= float64(n)
			zt /= float64(n)
			t.Logf("mean z² of the means %.2f, of the 5%% tails %.2f over %d", zm, zt, n)
			// Over 90 z's the mean square of exact ones has sd √(2/90) ≈ 0.15.
			if zm < 0.55 || zm > 1.6 {
				t.Errorf("means: mean z² = %.2f, want about 1", zm)
			}
			if zt < 0.45 || zt > 1.8 {
				t.Errorf("5%% tails: mean z² = %.2f, want about 1", zt)
			}
		})
	}
}

// TestImportanceSampleDetectsMissingJacobian checks that the calibration
// test's check fails when the proposal's space is sampled without its
// Jacobian (the sample then targets another distribution).
func TestImportanceSampleDetectsMissingJacobian(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	mean, _ := tg.posterior(nil, 1)
	// A posterior centred far from 0 along the sinh coordinate makes
	// log cosh v₀ vary across it.
	k := misfitProposal(tg, sinhFirst{}, 0.15)
	good, err := ImportanceSample(context.Background(), tg, k, sinhFirst{}, ImportanceOptions{Seed: 1, MinESS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := ImportanceSample(context.Background(), tg, k, sinhFirst{noJacobian: true}, ImportanceOptions{Seed: 1, MinESS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	zg := (good.Means[0] - mean[0]) / good.SE[0]
	zb := (bad.Means[0] - mean[0]) / bad.SE[0]
	if math.Abs(zg) > 4 || math.Abs(zb) < 4 {
		t.Errorf("first mean's z: %.1f with the Jacobian (want |z| < 4), %.1f without (want |z| > 4)", zg, zb)
	}
}

// TestImportanceSampleStops checks the stop rule both ways: a proposal
// that covers the posterior stops before MaxDraws with every ESS at least
// MinESS; one centred 8 sd off with a tenth of its spread is not trusted
// (Converged false) after MaxDraws.
func TestImportanceSampleStops(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	r, err := ImportanceSample(context.Background(), tg, misfitProposal(tg, nil, 0), nil, ImportanceOptions{Seed: 3, Batch: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged || len(r.Draws) >= 20000 || r.MinESS() < 400 {
		t.Errorf("good proposal: converged %v after %d draws, min ESS %.0f", r.Converged, len(r.Draws), r.MinESS())
	}
	if len(r.Draws)%100 != 0 {
		t.Errorf("%d draws: not whole batches of 100", len(r.Draws))
	}
	mean, cov := tg.posterior(nil, 1)
	d := len(mean)
	off := Independence{Center: slices.Clone(mean), Cov: slices.Clone(cov), DF: 5}
	for i := range d {
		off.Center[i] += 8 * math.Sqrt(cov[i*d+i])
	}
	for i := range off.Cov {
		off.Cov[i] *= 0.01
	}
	r, err = ImportanceSample(context.Background(), tg, off, nil, ImportanceOptions{Seed: 3, MaxDraws: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged || len(r.Draws) != 2000 {
		t.Errorf("poor proposal: converged %v after %d draws (k̂ %.2f, min ESS %.0f), want not after 2000", r.Converged, len(r.Draws), r.K, r.MinESS())
	}
}

// TestImportanceSampleWorkers checks that the same seed gives the same
// sample with 1 and 3 evaluations at once.
func TestImportanceSampleWorkers(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	k := misfitProposal(tg, sinhFirst{}, 0.15)
	var got [][]float64
	for _, w := range []int{1, 3} {
		r, err := ImportanceSample(context.Background(), tg, k, sinhFirst{}, ImportanceOptions{Seed: 5, Workers: w, Batch: 50})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, append(slices.Concat(r.Draws...), r.LogWeights...))
	}
	if !slices.Equal(got[0], got[1]) {
		t.Error("1 and 3 workers gave different samples")
	}
}

// TestImportanceResample checks that systematic resampling gives each
// TestImportanceLeast checks that Least names the parameter and the kind
// of ESS that MinESS returns.
func TestImportanceLeast(t *testing.T) {
	for _, c := range []struct {
		bulk, tail []float64
		param      int
		isTail     bool
	}{
		{[]float64{500, 90, 700}, []float64{400, 300, 95}, 1, false},
		{[]float64{500, 90, 700}, []float64{400, 300, 80}, 2, true},
		{[]float64{60, 90}, []float64{60, 70}, 0, false},
		{[]float64{600, 90}, []float64{50, 70}, 0, true},
	} {
		r := &ImportanceResult{ESSBulk: c.bulk, ESSTail: c.tail}
		p, tail := r.Least()
		if p != c.param || tail != c.isTail {
			t.Errorf("bulk %v, tail %v: Least %d, %v; want %d, %v", c.bulk, c.tail, p, tail, c.param, c.isTail)
		}
		if got := map[bool][]float64{false: c.bulk, true: c.tail}[tail][p]; got != r.MinESS() {
			t.Errorf("bulk %v, tail %v: Least's ESS %v, MinESS %v", c.bulk, c.tail, got, r.MinESS())
		}
	}
}

// draw m·w̃ copies, give or take one.
func TestImportanceResample(t *testing.T) {
	r := &ImportanceResult{Draws: [][]float64{{0}, {1}, {2}, {3}}, LogWeights: []float64{math.Log(0.1), math.Log(0.6), math.Inf(-1), math.Log(0.3)}}
	out := r.Resample(rand.New(rand.NewPCG(1, 2)), 1000)
	counts := make([]int, 4)
	for _, u := range out {
		counts[int(u[0])]++
	}
	for i, want := range []float64{100, 600, 0, 300} {
		if math.Abs(float64(counts[i])-want) > 1 {
			t.Errorf("draw %d: %d copies, want %.0f ± 1", i, counts[i], want)
		}
	}
	if len(out) != 1000 {
		t.Errorf("%d draws, want 1000", len(out))
	}
}

// TestProposalDensitiesNormalised checks the normalised log densities the
// deterministic mixture weighs with: the independence kernel's (a split
// t with its wide component) and a fit round's t each integrate to 1 on a
// grid in two dimensions.
func TestProposalDensitiesNormalised(t *testing.T) {
	cov := []float64{0.5, 0.2, 0.2, 0.8}
	k := Independence{Center: []float64{0.3, -0.2}, Cov: cov, Scale: 1.3, DF: 5, Wide: 0.2, Split: []float64{0.7, 1.6, 1.2, 0.9}}
	lk, err := k.NewLevel(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := lk.(*indepLevel)
	lq := l.logDensityFunc()
	lr := newTDraw([]float64{-0.4, 0.1}, cov, 1.2, 5).logDensityFunc()
	const h, lim = 0.1, 40.0
	var sk, sr float64
	x := make([]float64, 2)
	for a := -lim; a <= lim; a += h {
		for b := -lim; b <= lim; b += h {
			x[0], x[1] = a, b
			sk += math.Exp(lq(x))
			sr += math.Exp(lr(x))
		}
	}
	sk *= h * h
	sr *= h * h
	// The mass beyond 40 (over 15 of the widest scale's units) and the
	// grid's error are both below 10⁻³.
	if math.Abs(sk-1) > 2e-3 || math.Abs(sr-1) > 2e-3 {
		t.Errorf("the densities integrate to %.5f (kernel) and %.5f (round's t), want 1", sk, sr)
	}
}

// TestImportanceSampleReuse checks the deterministic mixture: a proposal
// fitted to the MVN posterior, whose first round (the Laplace
// approximation, here deliberately a poor fit) and later rounds join the
// sample, gives calibrated means over 30 fits of their own seeds, and the
// sample holds the rounds' draws.
func TestImportanceSampleReuse(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	mean, cov := tg.posterior(nil, 1)
	d := len(mean)
	var zm float64
	var n int
	for seed := range uint64(30) {
		ws := &WarmStart{Mode: slices.Clone(mean), Cov: slices.Clone(cov)}
		for i := range d {
			ws.Mode[i] += 0.8 * math.Sqrt(cov[i*d+i])
		}
		for i := range ws.Cov {
			ws.Cov[i] *= 0.5
		}
		p, err := ws.FitProposal(context.Background(), tg, ProposalOptions{Seed: seed + 100, Draws: 200, EnoughESS: 0.99})
		if err != nil {
			t.Fatal(err)
		}
		k := p.Kernel()
		k.Wide = 0.15
		r, err := ImportanceSample(context.Background(), tg, k, nil, ImportanceOptions{Seed: seed + 1, Batch: 200, Reuse: p})
		if err != nil {
			t.Fatal(err)
		}
		if fresh := len(r.Draws) - p.Evals(); r.Reused != p.Evals() || fresh%50 != 0 || fresh <= 0 {
			t.Fatalf("seed %d: %d draws, %d reused, with %d of the proposal's: the rounds' are not in the sample", seed+1, len(r.Draws), r.Reused, p.Evals())
		}
		if !r.Converged {
			t.Fatalf("seed %d: not converged (k̂ %.2f, min ESS %.0f)", seed+1, r.K, r.MinESS())
		}
		zm += sumZ2(r, mean)
		n += len(mean)
	}
	zm /= float64(n)
	t.Logf("mean z² of the means %.2f over %d", zm, n)
	if zm < 0.55 || zm > 1.6 {
		t.Errorf("means: mean z² = %.2f, want about 1", zm)
	}
}

// TestImportanceSampleAdapt checks adaptive refits (ImportanceOptions.Adapt):
// from a proposal 1.5 posterior sd off and too narrow (a fifth of the
// posterior's variance), over 30 seeds, the means stay calibrated, the
// later batches come from refitted proposals, and the sample needs fewer
// draws in all than without refits (which stop at 2 000 unconverged).
func TestImportanceSampleAdapt(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	mean, cov := tg.posterior(nil, 1)
	d := len(mean)
	k := Independence{Center: slices.Clone(mean), Cov: slices.Clone(cov), DF: 5, Wide: 0.15}
	for i := range d {
		k.Center[i] += 1.5 * math.Sqrt(cov[i*d+i])
	}
	for i := range k.Cov {
		k.Cov[i] *= 0.2
	}
	var zm float64
	var n, drawsAdapt, drawsFixed int
	for seed := range uint64(30) {
		r, err := ImportanceSample(context.Background(), tg, k, nil, ImportanceOptions{Seed: seed + 1, Batch: 200, Adapt: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || r.Components < 2 {
			t.Fatalf("seed %d: converged %v with %d proposals", seed+1, r.Converged, r.Components)
		}
		drawsAdapt += len(r.Draws)
		zm += sumZ2(r, mean)
		n += len(mean)
		f, err := ImportanceSample(context.Background(), tg, k, nil, ImportanceOptions{Seed: seed + 1, Batch: 200, MaxDraws: 2000})
		if err != nil {
			t.Fatal(err)
		}
		drawsFixed += len(f.Draws)
	}
	zm /= float64(n)
	t.Logf("mean z² %.2f over %d; draws %d with refits, %d without", zm, n, drawsAdapt, drawsFixed)
	if zm < 0.55 || zm > 1.6 {
		t.Errorf("means: mean z² = %.2f, want about 1", zm)
	}
	if drawsAdapt >= drawsFixed {
		t.Errorf("%d draws with refits, %d without: the refits did not help", drawsAdapt, drawsFixed)
	}
}

// TestImportanceSampleCancel checks that a cancelled sampling returns the
// batches evaluated before the cancellation with the context's error.
func TestImportanceSampleCancel(t *testing.T) {
	tg := newMVNTarget(40, 3, 7)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	r, err := ImportanceSample(ctx, tg, misfitProposal(tg, nil, 0), nil, ImportanceOptions{Seed: 1, Batch: 20, MinESS: 1e6,
		Batched: func(*ImportanceResult) {
			if batches++; batches == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || r == nil || len(r.Draws) != 40 {
		n := -1
		if r != nil {
			n = len(r.Draws)
		}
		t.Errorf("cancelled after 2 batches of 20: %d draws, error %v; want 40 and context.Canceled", n, err)
	}
}

// gumbelTarget is a three-dimensional posterior with a long upper tail:
// u0 is standard Gumbel (its density exp(−u0 − e^−u0) falls as e^−u0
// above its mode and doubly exponentially below), u1 given u0 is
// N(u0/2, 1) and u2 standard normal, as a length scale's posterior
// flattens on the side where the data stop fixing it.
type gumbelTarget struct{}

// gumbelMean is gumbelTarget's mean (Euler's γ for u0).
var gumbelMean = []float64{0.5772156649015329, 0.5772156649015329 / 2, 0}

func (gumbelTarget) Dim() int                           { return 3 }
func (gumbelTarget) NumObs() int                        { return 1 }
func (gumbelTarget) LogPrior(_, grad []float64) float64 { clear(grad); return 0 }
func (g gumbelTarget) Clone() (Target, error)           { return g, nil }

func (gumbelTarget) LogLik(_ []int, u, grad []float64) (float64, error) {
	e, d := math.Exp(-u[0]), u[1]-u[0]/2
	if grad != nil {
		grad[0], grad[1], grad[2] = -1+e+d/2, -d, -u[2]
	}
	return -u[0] - e - d*d/2 - u[2]*u[2]/2 - math.Log(2*math.Pi), nil
}

// TestImportanceSplitRefits checks that refits by a split-t
// (fitWeightedSplit) follow a long tail: on gumbelTarget, from the
// Laplace approximation at its mode, 40 seeds need at most 0.9 times the
// draws that refits by a symmetric t need to meet the stop rule, with
// calibrated means (0.85 times measured, z² 0.99 against 1.29).
func TestImportanceSplitRefits(t *testing.T) {
	defer func(v bool) { splitRefits = v }(splitRefits)
	var draws [2]int
	for i, split := range []bool{false, true} {
		splitRefits = split
		var z2 float64
		for seed := range uint64(40) {
			k := Independence{Center: make([]float64, 3), Cov: []float64{1, 0, 0, 0, 1.25, 0, 0, 0, 1}, DF: 5, Scale: 1.2}
			r, err := ImportanceSample(context.Background(), gumbelTarget{}, k, nil, ImportanceOptions{Seed: seed + 1, Batch: 200, Adapt: true})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("split %v, seed %d: not converged after %d draws", split, seed+1, len(r.Draws))
			}
			draws[i] += len(r.Draws)
			z2 += sumZ2(r, gumbelMean)
		}
		z2 /= 40 * 3
		t.Logf("split refits %v: %d draws, mean z² %.2f", split, draws[i], z2)
		if split && (z2 < 0.5 || z2 > 1.7) {
			t.Errorf("split refits: mean z² = %.2f, want about 1", z2)
		}
	}
	if float64(draws[1]) > 0.9*float64(draws[0]) {
		t.Errorf("%d draws with split refits, %d with symmetric ones: the split did not help", draws[1], draws[0])
	}
}

// TestImportanceReported checks ImportanceOptions.Reported: on a normal
// posterior in u whose exp(u) has a long upper tail, from a fixed t
// narrower than the posterior, every fit that stops by the stop rule
// with exp reported gives exp(u)'s means an ESS of at least MinESS,
// while some fits without it stop with less (the test's premise: 2 of
// 10, at 387 and 391).
func TestImportanceReported(t *testing.T) {
	tg := newGaussTarget([]float64{1.5, 1}, 0.5)
	exp := func(dst, u []float64) {
		for j, v := range u {
			dst[j] = math.Exp(v)
		}
	}
	least := func(r *ImportanceResult) float64 {
		w := NormalisedWeights(r.LogWeights)
		x := make([]float64, len(r.Draws))
		out := math.Inf(1)
		for j := range 2 {
			for i, u := range r.Draws {
				x[i] = math.Exp(u[j])
			}
			_, _, ess := diag.WeightedMean(x, w)
			out = min(out, ess)
		}
		return out
	}
	short := 0
	for seed := range uint64(10) {
		for _, rep := range []bool{false, true} {
			k := Independence{Center: []float64{0, 0}, Cov: []float64{0.5, 0, 0, 0.5}, DF: 5, Scale: 1.2}
			o := ImportanceOptions{Seed: seed + 1, Batch: 200, MinESS: 400}
			if rep {
				o.Reported = exp
			}
			r, err := ImportanceSample(context.Background(), tg, k, nil, o)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Fatalf("seed %d, reported %v: not converged after %d draws", seed+1, rep, len(r.Draws))
			}
			switch ess := least(r); {
			case rep && ess < o.MinESS:
				t.Errorf("seed %d: stopped with exp(u)'s least ESS %.0f, below %.0f", seed+1, ess, o.MinESS)
			case !rep && ess < o.MinESS:
				short++
			}
		}
	}
	t.Logf("%d of 10 fits without Reported stopped with exp(u)'s ESS short", short)
	if short == 0 {
		t.Error("no fit without Reported stopped short: the test shows nothing")
	}
}
