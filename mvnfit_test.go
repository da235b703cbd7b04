package subtemper

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
	"gonum.org/v1/gonum/mat"
)

// mvnSettings are small settings of a PT run: 2 chains of 200 warm-up
// iterations and 400 draws.
func mvnSettings() *tempering.Settings {
	return &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.PT, Kernel: tempering.DefaultKernel(), Levels: 3},
		Control: tempering.Control{Chains: 2, Warmup: 200, Draws: 400, Seed: 3},
	}
}

// exactMVNPosterior is the posterior of θ given x_n ~ N(θ, Σ) and
// θ_d ~ N(0, σ0²), from its formula: precision I/σ0² + N Σ⁻¹, mean
// Cov Σ⁻¹ Σ_n x_n.
func exactMVNPosterior(t *testing.T, d *MVNData, sigma *mat.SymDense, sigma0 float64) (mean, sd []float64) {
	t.Helper()
	var sinv mat.Dense
	if err := sinv.Inverse(sigma); err != nil {
		t.Fatal(err)
	}
	prec := mat.NewDense(d.D, d.D, nil)
	prec.Scale(float64(d.N), &sinv)
	sum := make([]float64, d.D)
	for i := range d.D {
		prec.Set(i, i, prec.At(i, i)+1/(sigma0*sigma0))
		for n := range d.N {
			sum[i] += d.X[n*d.D+i]
		}
	}
	var cov mat.Dense
	if err := cov.Inverse(prec); err != nil {
		t.Fatal(err)
	}
	var b, m mat.VecDense
	b.MulVec(&sinv, mat.NewVecDense(d.D, sum))
	m.MulVec(&cov, &b)
	for i := range d.D {
		mean = append(mean, m.AtVec(i))
		sd = append(sd, math.Sqrt(cov.At(i, i)))
	}
	return mean, sd
}

// TestFitMVN: the fit's exact posterior is the formula's; its draws are
// those tempering.Run makes with the same settings on the model built
// by hand, and their means lie within 0.5 posterior sd of the exact
// posterior's; the phases are reported in order.
func TestFitMVN(t *testing.T) {
	ctx := context.Background()
	data, sigma, _, err := SyntheticMVNData(ctx, 200, 2, 11, 1.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	var before int
	fit, err := FitMVN(ctx, data, sigma, MVNOptions{
		Backend: "gonum", Sigma0: 1.5, Settings: mvnSettings(), WarmStart: WarmStartOff,
		OnPhase:        func(p string) { phases = append(phases, p) },
		BeforeSampling: func(*MVNFit, *tempering.Settings) { before++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if want := []string{"the model's set-up", "the chains' set-up"}; !slices.Equal(phases, want) || before != 1 {
		t.Errorf("phases %q, BeforeSampling called %d times; want %q, once", phases, before, want)
	}
	mean, sd := exactMVNPosterior(t, data, sigma, 1.5)
	for i := range mean {
		if math.Abs(fit.PostMean[i]-mean[i]) > 1e-9 || math.Abs(fit.PostSD[i]-sd[i]) > 1e-9 {
			t.Errorf("θ_%d: the fit's exact posterior N(%v, %v²), the formula's N(%v, %v²)", i+1, fit.PostMean[i], fit.PostSD[i], mean[i], sd[i])
		}
	}
	m, err := mvn.New(linalg.Default(), data, sigma, mvn.Options{Sigma0: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := tempering.Run(ctx, m, mvnSettings())
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Draws) != 2 || len(fit.Draws[0]) != 400 {
		t.Fatalf("the fit holds %d chains of %d draws, want 2 of 400", len(fit.Draws), len(fit.Draws[0]))
	}
	for c := range res.Draws {
		for s := range res.Draws[c] {
			if !slices.Equal(fit.Draws[c][s], res.Draws[c][s]) {
				t.Fatalf("chain %d draw %d: the fit's %v, tempering.Run's %v", c, s, fit.Draws[c][s], res.Draws[c][s])
			}
		}
	}
	for i := range mean {
		var s float64
		for _, ch := range fit.Draws {
			for _, u := range ch {
				s += u[i]
			}
		}
		if got := s / 800; math.Abs(got-mean[i]) > 0.5*sd[i] {
			t.Errorf("θ_%d: mean of the draws %v, exact %v (sd %v)", i+1, got, mean[i], sd[i])
		}
	}
}

// TestFitMVNErrors: a Σ of the wrong size is a *ModelError; a context
// cancelled before sampling gives no fit and an error wrapping
// context.Canceled; one cancelled during sampling, the fit of the draws
// so far.
func TestFitMVNErrors(t *testing.T) {
	ctx := context.Background()
	data, sigma, _, err := SyntheticMVNData(ctx, 50, 2, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var me *ModelError
	if _, err := FitMVN(ctx, data, mat.NewSymDense(3, nil), MVNOptions{Backend: "gonum"}); !errors.As(err, &me) {
		t.Errorf("Σ of 3×3 for D = 2: error %v, want a *ModelError", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if fit, err := FitMVN(cctx, data, sigma, MVNOptions{Backend: "gonum", Settings: mvnSettings()}); fit != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: fit %v, error %v; want none, context.Canceled", fit, err)
	}
	sctx, stop := context.WithCancel(ctx)
	st := mvnSettings()
	st.Draws = 200000
	// Stop once every chain is 100 draws past its warm-up: stopping when
	// the first got there could cut another still warming up, on a loaded
	// machine, and leave no draws.
	var past [2]atomic.Bool
	st.Progress = func(chain, iter, total int) {
		if iter >= st.Warmup+100 {
			past[chain].Store(true)
		}
		if past[0].Load() && past[1].Load() {
			stop()
		}
	}
	fit, err := FitMVN(sctx, data, sigma, MVNOptions{Backend: "gonum", Settings: st, WarmStart: WarmStartOff})
	if fit == nil || !errors.Is(err, context.Canceled) || !fit.Result.Interrupted || len(fit.Draws[0]) == 0 {
		t.Fatalf("cancelled during sampling: fit %v, error %v; want the draws so far, context.Canceled", fit != nil, err)
	}
	fit.Close()
}

// TestFitMVNStartError: with a prior so narrow that its density at the
// chains' starting points underflows, the fit says which chain cannot
// start and why (a *StartError on the prior), not only that the sampler
// met a log density of −∞.
func TestFitMVNStartError(t *testing.T) {
	ctx := context.Background()
	data, sigma, _, err := SyntheticMVNData(ctx, 20, 2, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := mvnSettings()
	st.Warmup = tempering.NoWarmup
	fit, err := FitMVN(ctx, data, sigma, MVNOptions{Backend: "gonum", Sigma0: 1e-300, Settings: st, WarmStart: WarmStartOff})
	var se *StartError
	if fit != nil || !errors.As(err, &se) || !se.Prior || se.Chain != 1 || !math.IsInf(se.Value, -1) {
		t.Fatalf("fit %v, error %v; want none and chain 1's prior density −Inf", fit != nil, err)
	}
}

// TestFitGPStartError: on inputs of scale 1e300 the GP cannot be
// evaluated at the chains' starting points; the fit's error is the
// model's own (a *StartError wrapping it, got while the model is still
// open), not the sampler's "log density −∞" nor a closed model's.
func TestFitGPStartError(t *testing.T) {
	data := &GPData{N: 3, D: 1, X: []float64{1e300, 2e300, 3e300}, Y: []float64{1, 2, 0}}
	st := mvnSettings()
	st.Warmup = tempering.NoWarmup
	fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", Settings: st, WarmStart: WarmStartOff})
	var se *StartError
	if fit != nil || !errors.As(err, &se) || se.Chain != 1 || se.Err == nil || strings.Contains(err.Error(), "closed") {
		t.Fatalf("fit %v, error %v; want none and chain 1's model error", fit != nil, err)
	}
}

// TestFitMVNWarmStart: started from the posterior mode, the fit reports
// the search as a phase and holds the mode, which for the Gaussian
// posterior is the exact posterior mean; the chains then run from it.
func TestFitMVNWarmStart(t *testing.T) {
	ctx := context.Background()
	data, sigma, _, err := SyntheticMVNData(ctx, 300, 2, 4, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	fit, err := FitMVN(ctx, data, sigma, MVNOptions{Backend: "gonum", Settings: mvnSettings(), WarmStart: WarmStartOn,
		OnPhase: func(p string) { phases = append(phases, p) }})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if want := []string{"the model's set-up", "the search for the posterior mode", "the chains' set-up"}; !slices.Equal(phases, want) {
		t.Errorf("phases %q, want %q", phases, want)
	}
	mean, sd := exactMVNPosterior(t, data, sigma, 1)
	if fit.Mode == nil {
		t.Fatal("no mode")
	}
	for i := range mean {
		if math.Abs(fit.Mode.Mode[i]-mean[i]) > 1e-3*sd[i] {
			t.Errorf("θ_%d: mode %v, exact posterior mean %v (sd %v)", i+1, fit.Mode.Mode[i], mean[i], sd[i])
		}
	}
	if len(fit.Draws) != 2 || len(fit.Draws[0]) == 0 {
		t.Fatalf("the fit holds %d chains", len(fit.Draws))
	}
	if _, ok := fit.Settings.Transform.(tempering.Identity); !ok {
		t.Errorf("the chains moved in %T's space, want the MVN's own (tempering.Identity)", fit.Settings.Transform)
	}
}

// TestFitMVNDefaults: without settings the fit runs DefaultGPSettings'
// sampler, its stop rule judging θ itself, not the GP's exp(u) (whose
// folded R̂ differs from θ's).
func TestFitMVNDefaults(t *testing.T) {
	ctx := context.Background()
	data, sigma, _, err := SyntheticMVNData(ctx, 100, 2, 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := FitMVN(ctx, data, sigma, MVNOptions{Backend: "gonum"})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	def := DefaultGPSettings()
	rule, ok := fit.Settings.Stop.(diag.StopRule)
	if !ok || rule.Transform != nil || rule.MinESS != DefaultMinESS || fit.Settings.Driver != def.Driver || fit.Settings.Chains != def.Chains {
		t.Errorf("settings: driver %v, %d chains, stop rule %+v (ok %v); want %v, %d, MinESS %v on θ itself", fit.Settings.Driver, fit.Settings.Chains, rule, ok, def.Driver, def.Chains, float64(DefaultMinESS))
	}
}
