package tempering

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// TestFindModeGaussian checks the warm start on the MVN model, whose
// posterior is Gaussian and known: the mode is the posterior mean and the
// Laplace covariance the posterior covariance (the gradient is linear, so
// forward differences are exact but for rounding). With N = 1200 the
// optimisation runs on subsets of 300 and 600 observations first.
func TestFindModeGaussian(t *testing.T) {
	tg := newMVNTarget(1200, 2, 3)
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, MinSubset: 300})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ws.Stages); got != 3 || ws.Stages[0].Size != 300 || ws.Stages[2].Size != 1200 {
		t.Fatalf("stages %+v, want sizes 300, 600, 1200", ws.Stages)
	}
	mean, cov := tg.posterior(nil, 1)
	D := tg.Dim()
	sd := make([]float64, D)
	for i := range D {
		sd[i] = math.Sqrt(cov[i*D+i])
	}
	for i := range D {
		// The optimiser stops at a gradient of 10⁻³·√N: a Newton step
		// far below 10⁻² posterior sd.
		if e := math.Abs(ws.Mode[i]-mean[i]) / sd[i]; e > 1e-2 {
			t.Errorf("mode[%d] = %.6f, posterior mean %.6f: %.2g sd off", i, ws.Mode[i], mean[i], e)
		}
		for j := range D {
			if e := math.Abs(ws.Cov[i*D+j]-cov[i*D+j]) / (sd[i] * sd[j]); e > 1e-4 {
				t.Errorf("Laplace cov[%d,%d] = %.8g, posterior %.8g (relative to sd·sd: %.2g)", i, j, ws.Cov[i*D+j], cov[i*D+j], e)
			}
		}
	}
	// A Gaussian falls by ½(2 sd_i)²(Σ⁻¹)_ii = 2·Σ_ii·(Σ⁻¹)_ii each way
	// at ±2 sd along coordinate i with the others held.
	var prec mat.SymDense
	{
		var chol mat.Cholesky
		if !chol.Factorize(mat.NewSymDense(D, append([]float64(nil), cov...))) {
			t.Fatal("posterior covariance not positive definite")
		}
		if err := chol.InverseTo(&prec); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range ws.Drops {
		want := 2 * cov[i*D+i] * prec.At(i, i)
		for _, v := range d {
			if math.Abs(v-want) > 1e-2*want {
				t.Errorf("log density falls by %v at ∓2 sd along parameter %d, want %.4f", d, i, want)
			}
		}
	}
	if len(ws.NonGaussian) != 0 {
		t.Errorf("parameters %v flagged as not Gaussian", ws.NonGaussian)
	}
	if ws.Modes != 1 || len(ws.Optima) != 1 {
		t.Errorf("%d modes and %d optima on a Gaussian posterior, want 1 and 1", ws.Modes, len(ws.Optima))
	}
	if len(ws.Inits) != 3 {
		t.Fatalf("%d starting points, want 3", len(ws.Inits))
	}
	// Over-dispersed (Dispersion 2): the starts lie around the mode at
	// about 2 sd per coordinate, not on it and not far beyond.
	var s2 float64
	for _, u := range ws.Inits {
		for i := range D {
			z := (u[i] - ws.Mode[i]) / sd[i]
			s2 += z * z
		}
	}
	if rms := math.Sqrt(s2 / float64(3*D)); rms < 0.5 || rms > 6 {
		t.Errorf("starting points at %.2f sd rms from the mode, want about 2", rms)
	}
	// Nearly all the optimisation is paid on the subsets: the full-data
	// stage refines a near-optimum.
	if ws.GradEquivalents(1200) > 60 {
		t.Errorf("warm start cost %.1f full-data gradients, want few: stages %+v", ws.GradEquivalents(1200), ws.Stages)
	}
	// Same seed, same result.
	ws2, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, MinSubset: 300, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for c := range ws.Inits {
		for i := range D {
			if ws.Inits[c][i] != ws2.Inits[c][i] {
				t.Fatalf("starting points differ with Workers 1: %v against %v", ws2.Inits, ws.Inits)
			}
		}
	}
}

// TestFindModeCancelled checks that a cancelled context ends the warm
// start with its error.
func TestFindModeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FindMode(ctx, newMVNTarget(100, 2, 1), WarmStartOptions{}); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}

// TestFindModeOptions checks that invalid options are refused.
func TestFindModeOptions(t *testing.T) {
	tg := newMVNTarget(50, 2, 1)
	for _, o := range []WarmStartOptions{{Starts: -1}, {MinSubset: -2}, {Chains: -1}, {Dispersion: -1}, {Dispersion: math.Inf(1)}, {ModeGap: -1}, {Workers: -1}} {
		if _, err := FindMode(context.Background(), tg, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestWarmStartApply checks what Apply sets: the starting points, the
// Laplace covariance as the target level's dense metric, step-only
// adaptation, the short warm-up; and that a run takes them (the chains'
// first states are the starting points' neighbours, and the frozen dense
// metric is the Laplace covariance).
func TestWarmStartApply(t *testing.T) {
	tg := newMVNTarget(200, 2, 1)
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Sampler: Sampler{Driver: None, Kernel: PerLevel{Target: HMC{Length: 1.5, Jitter: 0.2}, Hot: MH{}}}, Control: Control{Draws: 20, Seed: 1}}
	ws.Apply(&s)
	if s.Warmup != WarmStartWarmup || len(s.Init) != 3 || s.InitTuning == nil {
		t.Fatalf("Apply set Warmup %d, %d starts, tuning %v", s.Warmup, len(s.Init), s.InitTuning)
	}
	if k := s.Kernel.(PerLevel).Target.(HMC); k.Adapt != AdaptStep {
		t.Fatalf("target kernel adapts %v, want step", k.Adapt)
	}
	res, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Tunings[0][0].InvMetricDense
	if len(got) != len(ws.Cov) {
		t.Fatalf("frozen metric %v, want the dense Laplace covariance", res.Tunings[0][0])
	}
	for i := range got {
		if got[i] != ws.Cov[i] {
			t.Fatalf("frozen metric %v, want the Laplace covariance %v", got, ws.Cov)
		}
	}
}

// TestHMCLength checks that HMC with an integration time makes
// round(Length/ε) leapfrog steps per transition.
func TestHMCLength(t *testing.T) {
	tg := newMVNTarget(30, 2, 1)
	res, err := Run(context.Background(), tg, &Settings{Sampler: Sampler{Driver: None, Kernel: HMC{StepSize: 0.1, Length: 0.55, Adapt: AdaptNone}}, Control: Control{Warmup: NoWarmup, Draws: 40, Chains: 1, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Stats.Levels[0]
	if per := float64(lv.LeapfrogSteps) / float64(lv.Transitions); per != 6 {
		t.Errorf("%.2f leapfrog steps per transition, want round(0.55/0.1) = 6", per)
	}
	if _, err := (HMC{Length: -1}).NewLevel(2, 1); err == nil {
		t.Error("negative Length accepted")
	}
}

// skewTarget's posterior is a Gamma(2, 1) density of θ = exp(u_0), in
// u_0 (heavy on the left, light on the right), times a standard normal
// in u_1; each of its 512 observations carries 1/512 of the
// log-likelihood.
type skewTarget struct{}

func (skewTarget) Dim() int                        { return 2 }
func (skewTarget) NumObs() int                     { return 512 }
func (skewTarget) Clone() (Target, error)          { return skewTarget{}, nil }
func (skewTarget) LogPrior(u, g []float64) float64 { clear(g); return 0 }
func (skewTarget) LogLik(subset []int, u, g []float64) (float64, error) {
	w := 1.0
	if subset != nil {
		w = float64(len(subset)) / 512
	}
	if g != nil {
		g[0], g[1] = w*(2-math.Exp(u[0])), -w*u[1]
	}
	return w * (2*u[0] - math.Exp(u[0]) - 0.5*u[1]*u[1]), nil
}

// TestFindModeNonGaussian checks that the warm start flags the skewed
// parameter, and only it.
func TestFindModeNonGaussian(t *testing.T) {
	ws, err := FindMode(context.Background(), skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ws.Mode[0]-math.Log(2)) > 1e-3 || math.Abs(ws.Mode[1]) > 1e-3 {
		t.Errorf("mode %v, want (log 2, 0)", ws.Mode)
	}
	if len(ws.NonGaussian) != 1 || ws.NonGaussian[0] != 0 {
		t.Errorf("non-Gaussian parameters %v (falls %v), want [0]", ws.NonGaussian, ws.Drops)
	}
}

// TestFitProposalSkew checks that the importance-sampling fit moves the
// proposal from the Laplace approximation to the posterior's own moments
// on skewTarget, whose u_0 is the log of a Gamma(2, 1) variable: mean
// ψ(2) = 1 − γ and variance ψ′(2) = π²/6 − 1, where the Laplace
// approximation says log 2 and ½.
func TestFitProposalSkew(t *testing.T) {
	ws, err := FindMode(context.Background(), skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ws.FitProposal(context.Background(), skewTarget{}, ProposalOptions{Seed: 2, Draws: 4000, Rounds: 3, EnoughESS: 2})
	if err != nil {
		t.Fatal(err)
	}
	const eulerGamma = 0.5772156649015329
	mean, vr := 1-eulerGamma, math.Pi*math.Pi/6-1
	// Standard errors at an importance ESS of about 3 000: 0.015 for the
	// mean, 0.021 for the variance (excess kurtosis 1.19).
	if e := math.Abs(p.Center[0] - mean); e > 0.06 {
		t.Errorf("centre[0] = %.4f, posterior mean %.4f (Laplace %.4f)", p.Center[0], mean, ws.Mode[0])
	}
	if e := math.Abs(p.Cov[0] - vr); e > 0.085 {
		t.Errorf("cov[0,0] = %.4f, posterior variance %.4f (Laplace %.4f)", p.Cov[0], vr, ws.Cov[0])
	}
	if math.Abs(p.Center[1]) > 0.06 || math.Abs(p.Cov[3]-1) > 0.12 || math.Abs(p.Cov[1]) > 0.06 {
		t.Errorf("u_1: centre %.4f, variance %.4f, covariance with u_0 %.4f: want 0, 1, 0", p.Center[1], p.Cov[3], p.Cov[1])
	}
	if len(p.Rounds) != 3 || p.Evals() != 12000 {
		t.Errorf("rounds %+v, want 3 of 4000 draws", p.Rounds)
	}
	if !(p.ESS() > 0.7 && p.ESS() <= 1) || p.ESS() != max(p.Rounds[0].ESS, p.Rounds[1].ESS, p.Rounds[2].ESS) {
		t.Errorf("importance ESS %.3f, rounds %+v: want the best round's, a t proposal close to the posterior (> 0.7)", p.ESS(), p.Rounds)
	}
	// Once a round's ESS is enough, the rounds stop and its proposal is
	// kept: here the Laplace approximation's.
	q, err := ws.FitProposal(context.Background(), skewTarget{}, ProposalOptions{Seed: 2, EnoughESS: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Rounds) != 1 || q.Center[0] != ws.Mode[0] || q.ESS() != q.Rounds[0].ESS {
		t.Errorf("EnoughESS 0.1: rounds %+v, centre %v: want one round from the mode %v", q.Rounds, q.Center, ws.Mode)
	}
	if !(p.SecondsPerEval > 0) {
		t.Errorf("SecondsPerEval %v", p.SecondsPerEval)
	}
	k := p.Kernel()
	if k.DF != 5 || k.Scale != 1.2 || len(k.Center) != 2 {
		t.Errorf("kernel %+v, want the fitted t (DF 5, scale 1.2)", k)
	}
}

func TestFitProposalOptions(t *testing.T) {
	ws, err := FindMode(context.Background(), skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ProposalOptions{{Draws: 5}, {Rounds: -1}, {DF: 2}, {Scale: math.Inf(1)}, {Workers: -1}, {EnoughESS: -1}} {
		if _, err := ws.FitProposal(context.Background(), skewTarget{}, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.FitProposal(ctx, skewTarget{}, ProposalOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit returned %v", err)
	}
}

// TestFitProposalWorkers checks that the fitted proposal does not depend
// on how many evaluations run at once.
func TestFitProposalWorkers(t *testing.T) {
	tg := newMVNTarget(600, 2, 3)
	ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got [2]*Proposal
	for i, w := range []int{1, 3} {
		if got[i], err = ws.FitProposal(context.Background(), tg, ProposalOptions{Seed: 5, Workers: w, EnoughESS: 2, Draws: 200}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got[0].Center, got[1].Center) || !slices.Equal(got[0].Cov, got[1].Cov) || !slices.Equal(got[0].Rounds, got[1].Rounds) {
		t.Errorf("1 worker: %v %v; 3 workers: %v %v", got[0].Center, got[0].Rounds, got[1].Center, got[1].Rounds)
	}
}

// TestFitProposalSplit checks the split-t's scales on skewTarget against
// the log-Gamma(2, 1) density's own fall along u_0 from its mode (longer
// on the left, shorter on the right than a Gaussian's), and u_1's,
// a standard normal's, whose scales stay 1 within the fitted variance's
// error.
func TestFitProposalSplit(t *testing.T) {
	ws, err := FindMode(context.Background(), skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ws.FitProposal(context.Background(), skewTarget{}, ProposalOptions{Seed: 2, Draws: 4000, Rounds: 2, EnoughESS: 2, Split: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Center[0] != ws.Mode[0] || p.Center[1] != ws.Mode[1] {
		t.Errorf("split-t centre %v, want the mode %v", p.Center, ws.Mode)
	}
	f := func(u float64) float64 { return 2*u - math.Exp(u) }
	m, sd := math.Log(2), math.Sqrt(p.Cov[0])
	want := [2]float64{1, 1}
	for _, d := range []float64{2, 4, 6} {
		for side, sign := range []float64{-1, 1} {
			fall := f(m) - f(m+sign*d*sd)
			want[side] = max(want[side], min(splitMax, d/math.Sqrt(2*fall)))
		}
	}
	if want[0] < 1.3 || want[1] != 1 {
		t.Fatalf("the oracle's scales %v: want a long left side and a short right one", want)
	}
	if math.Abs(p.Split[0]-want[0]) > 0.02 || math.Abs(p.Split[1]-want[1]) > 0.02 {
		t.Errorf("u_0's split scales %.3f, %.3f, want %.3f, %.3f", p.Split[0], p.Split[1], want[0], want[1])
	}
	if p.Split[2] > 1.1 || p.Split[3] > 1.1 {
		t.Errorf("u_1's split scales %.3f, %.3f, want about 1 (a Gaussian)", p.Split[2], p.Split[3])
	}
	if p.SplitEvals != 13 || p.Evals() != 8013 {
		t.Errorf("split evaluations %d, all %d: want 13 (the mode and 3 on each side of 2 axes) and 8013", p.SplitEvals, p.Evals())
	}
	if k := p.Kernel(); len(k.Split) != 4 || k.Split[0] != p.Split[0] {
		t.Errorf("kernel split %v, want the proposal's %v", k.Split, p.Split)
	}
}

// TestFitProposalTransformAt: the proposal lives in the space
// TransformAt chooses from the target and the mode, whose evaluations
// count in Evals, and its error stops the fit.
func TestFitProposalTransformAt(t *testing.T) {
	ctx := context.Background()
	ws, err := FindMode(ctx, skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var gotMode []float64
	at := func(_ context.Context, tg Target, mode, cov []float64) (Transform, int, error) {
		gotMode = mode
		return sinhFirst{}, 7, nil
	}
	p, err := ws.FitProposal(ctx, skewTarget{}, ProposalOptions{Seed: 2, Rounds: 1, Transform: Identity{}, TransformAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Transform.(sinhFirst); !ok || p.TransformEvals != 7 || p.Evals() != 507 || !slices.Equal(gotMode, ws.Mode) {
		t.Errorf("Transform %T, TransformEvals %d, Evals %d, mode %v: want sinhFirst, 7, 507 and the warm start's mode %v", p.Transform, p.TransformEvals, p.Evals(), gotMode, ws.Mode)
	}
	fail := func(context.Context, Target, []float64, []float64) (Transform, int, error) {
		return nil, 0, errors.New("no space")
	}
	if _, err := ws.FitProposal(ctx, skewTarget{}, ProposalOptions{Seed: 2, TransformAt: fail}); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("TransformAt's error: got %v", err)
	}
}

// wallTarget is skewTarget cut off where u_1 > 0.8: about a fifth of a
// proposal's draws there have no finite log density.
type wallTarget struct{ skewTarget }

func (wallTarget) Clone() (Target, error) { return wallTarget{}, nil }
func (w wallTarget) LogLik(subset []int, u, g []float64) (float64, error) {
	if u[1] > 0.8 {
		return math.Inf(-1), nil
	}
	return w.skewTarget.LogLik(subset, u, g)
}

// TestFitProposalSurrogate checks that ProposalOptions.Surrogate fits the
// proposal's surrogate, and that where its fit fails (here, 10 draws of
// which too few are finite for a regression in 2 dimensions) the proposal
// is still returned, without one, saying why.
func TestFitProposalSurrogate(t *testing.T) {
	ws, err := FindMode(context.Background(), skewTarget{}, WarmStartOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ws.FitProposal(context.Background(), skewTarget{}, ProposalOptions{Seed: 2, Surrogate: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Surrogate == nil || p.Surrogate.Dim() != 2 || p.SurrogateFailure != "" {
		t.Errorf("surrogate %v, failure %q: want one of dimension 2", p.Surrogate, p.SurrogateFailure)
	}
	for seed := range uint64(50) {
		q, err := ws.FitProposal(context.Background(), wallTarget{}, ProposalOptions{Seed: seed, Surrogate: true, Draws: 10, Rounds: 1})
		if err != nil {
			continue // no finite weight, or too few for a covariance
		}
		if q.Surrogate == nil {
			if !strings.Contains(q.SurrogateFailure, "finite log density") {
				t.Errorf("seed %d: no surrogate, failure %q", seed, q.SurrogateFailure)
			}
			return
		}
	}
	t.Error("no seed of 50 gave a proposal whose surrogate's fit failed")
}

// TestFindModeProgress checks what WarmStartOptions.Progress is told: each
// stage's end in order of size, then the Laplace approximation's with the
// rounds to come, then each proposal round's, whose importance ESS is the
// one the proposal records and whose bound on the time left counts the
// rounds still allowed; and no rounds where no proposal is fitted.
func TestFindModeProgress(t *testing.T) {
	tg := newMVNTarget(1200, 2, 3)
	for _, enough := range []float64{2, 0.3} {
		var got []WarmProgress
		ws, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, MinSubset: 300,
			Proposal: &ProposalOptions{Seed: 2, Draws: 200, EnoughESS: enough},
			Progress: func(p WarmProgress) { got = append(got, p) }})
		if err != nil {
			t.Fatal(err)
		}
		rounds := ws.Proposal.Rounds
		if enough == 2 && len(rounds) != 3 || enough == 0.3 && len(rounds) != 1 {
			t.Fatalf("EnoughESS %v: %d rounds (%+v)", enough, len(rounds), rounds)
		}
		if len(got) != 3+1+len(rounds) {
			t.Fatalf("EnoughESS %v: %d reports for 3 stages, the Laplace step and %d rounds: %+v", enough, len(got), len(rounds), got)
		}
		var last time.Duration
		for i, p := range got {
			if p.N != 1200 || p.Elapsed < last || p.Elapsed > ws.Wall || p.StepTime > p.Elapsed {
				t.Errorf("report %d: N %d, elapsed %v after %v (warm start %v), step %v", i, p.N, p.Elapsed, last, ws.Wall, p.StepTime)
			}
			last = p.Elapsed
			switch {
			case i < 3:
				if p.Step != WarmStage || p.Size != ws.Stages[i].Size || p.Optima < 1 {
					t.Errorf("report %d: %+v, want the end of the stage on %d observations", i, p, ws.Stages[i].Size)
				}
			case i == 3:
				if p.Step != WarmLaplace || p.Optima != ws.Modes || p.Rounds != 3 || p.Draws != 200 || p.EnoughESS != enough {
					t.Errorf("report %d: %+v, want the Laplace step with 3 rounds of 200 to come", i, p)
				}
			default:
				r := i - 3
				left := time.Duration(3-r) * p.StepTime
				if p.ESS >= enough {
					left = 0
				}
				if p.Step != WarmRound || p.Round != r || p.ESS != rounds[r-1].ESS || p.MaxLeft != left {
					t.Errorf("report %d: %+v, want round %d of ESS %v and at most %v left", i, p, r, rounds[r-1].ESS, left)
				}
			}
		}
	}
	var got []WarmProgress
	if _, err := FindMode(context.Background(), tg, WarmStartOptions{Seed: 1, MinSubset: 600,
		Progress: func(p WarmProgress) { got = append(got, p) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Step != WarmLaplace || got[2].Rounds != 0 {
		t.Errorf("no proposal: reports %+v, want 2 stages and the Laplace step with no rounds", got)
	}
}

// scaledData is a Gaussian posterior whose parameters' sds span 0.01 to
// 30 (scaledSD), as a GP's log length scales, signal and noise can, made
// of 1024 observations, each carrying an equal share of the log density:
// a subset's posterior is the full one's at the temperature
// |subset|/1024, centred at the same scaledMean.
type scaledData struct{}

var (
	scaledMean = []float64{0.3, -1, 2, 0.5}
	scaledSD   = []float64{0.01, 1, 30, 0.3}
)

func (scaledData) Dim() int                        { return 4 }
func (scaledData) NumObs() int                     { return 1024 }
func (scaledData) Clone() (Target, error)          { return scaledData{}, nil }
func (scaledData) LogPrior(u, g []float64) float64 { clear(g); return 0 }
func (scaledData) LogLik(subset []int, u, g []float64) (float64, error) {
	w := 1.0
	if subset != nil {
		w = float64(len(subset)) / 1024
	}
	var lp float64
	for j, x := range u {
		z := (x - scaledMean[j]) / scaledSD[j]
		lp -= 0.5 * w * z * z
		if g != nil {
			g[j] = -w * z / scaledSD[j]
		}
	}
	return lp, nil
}

// TestFindModeWhitenedStage checks the warm start's last stage, which
// searches in the coordinates that the Laplace approximation on the stage
// before whitens: on a Gaussian whose sds span 0.01 to 30 it ends within
// 10⁻³ sd of the mean. The search in u stops short there (its gradient
// threshold is met where the widest parameter is still 0.08 sd off).
func TestFindModeWhitenedStage(t *testing.T) {
	for _, white := range []bool{false, true} {
		whitenLastStage = white
		ws, err := FindMode(context.Background(), scaledData{}, WarmStartOptions{Seed: 1, Starts: 2})
		whitenLastStage = true
		if err != nil {
			t.Fatal(err)
		}
		var off float64
		for j, m := range scaledMean {
			off = max(off, math.Abs(ws.Mode[j]-m)/scaledSD[j])
		}
		if white && off > 1e-3 {
			t.Errorf("whitened %v: mode %.6g, %.2g sd from %v", white, ws.Mode, off, scaledMean)
		}
		t.Logf("whitened %v: %.2g sd off, stages %+v", white, off, ws.Stages)
	}
}
