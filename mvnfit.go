package subtemper

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
	"gonum.org/v1/gonum/mat"
)

// DefaultMVNSigma0 is the prior standard deviation of each θ_d that
// MVNOptions' zero Sigma0 means (mvn.DefaultSigma0).
const DefaultMVNSigma0 = mvn.DefaultSigma0

// MVNOptions configures FitMVN. The zero value is valid.
type MVNOptions struct {
	// Backend names the linear-algebra backend; "" means the fastest
	// compiled in (linalg.FastestName).
	Backend string
	// Sigma0 is the prior standard deviation of each θ_d; 0 means
	// DefaultMVNSigma0.
	Sigma0 float64
	// Settings are the sampler's settings; nil means DefaultGPSettings()
	// with its stop rule judging θ itself (the GP's judges exp(u)).
	Settings *tempering.Settings
	// WarmStart, WarmKeep and MaxTime are GPOptions': whether the
	// chains start from the posterior mode (WarmStartAuto: from
	// WarmStartMinN observations, when Settings is nil), what of
	// Settings a warm start keeps, and the bound on the search for the
	// mode and the sampling.
	WarmStart WarmStartMode
	WarmKeep  *WarmKeep
	MaxTime   time.Duration
	// OnPhase, if set, is called as FitMVN enters each phase before
	// sampling: "the model's set-up", "the search for the posterior
	// mode", "the chains' set-up".
	OnPhase func(phase string)
	// BeforeSampling, if set, is called once the settings are final
	// (after any warm start: fit.Mode is set), just before sampling; it
	// may change *st.
	BeforeSampling func(fit *MVNFit, st *tempering.Settings)
}

// MVNFit is a fitted multivariate normal mean: the data, Σ, the prior,
// the settings and the draws of θ, with the exact posterior beside them
// to check the draws against. It holds the model on a backend: Close
// releases it.
type MVNFit struct {
	// Data are the observations, Sigma their covariance, Sigma0 the
	// prior standard deviation of each θ_d (defaults filled in).
	Data   *MVNData
	Sigma  *mat.SymDense
	Sigma0 float64
	// Backend is the name of the backend the model runs on.
	Backend string
	// PostMean and PostSD are the exact posterior's mean and standard
	// deviations (nil if it could not be computed).
	PostMean, PostSD []float64
	// Settings are the sampler's settings as given to tempering.Run.
	Settings tempering.Settings
	// Draws[c][s] is draw s of chain c, θ itself.
	Draws [][][]float64
	// Result is the sampler's full result.
	Result *tempering.Result
	// Wall is the wall-clock time of the search for the mode and the
	// sampling; SamplingCPU the process's CPU time during sampling (0
	// where it cannot be read).
	Wall, SamplingCPU time.Duration
	// Mode is the warm start the chains started from (nil without one).
	Mode *tempering.WarmStart
	// StoppedByMaxTime reports that MVNOptions.MaxTime ended sampling.
	StoppedByMaxTime bool

	model *mvn.Model
}

// Model returns the model the draws belong to (nil once the fit is
// closed). It is not safe for concurrent use.
func (f *MVNFit) Model() *mvn.Model { return f.model }

// Close releases the model's backend handle.
func (f *MVNFit) Close() error {
	if f.model == nil {
		return nil
	}
	err := f.model.Close()
	f.model = nil
	return err
}

// FitMVN samples the mean θ of the multivariate normal model x_n ~ N(θ,
// sigma), θ_d ~ N(0, σ0²), on data, and returns the fit, which owns the
// model it sampled with (Close releases it). Cancellation, MaxTime and
// the errors are FitGP's: cancelled during sampling, the fit of the
// draws so far with an error wrapping the context's cause; cancelled
// before, a nil fit. An error of the model's set-up wraps a *ModelError.
func FitMVN(ctx context.Context, data *MVNData, sigma *mat.SymDense, opt MVNOptions) (*MVNFit, error) {
	f, st, err := newMVNFit(ctx, data, sigma, opt)
	if err != nil {
		return nil, err
	}
	pinChainThreads(f.Backend, st.Chains)
	sctx, cancel := maxTimeContext(ctx, opt.MaxTime)
	defer cancel()
	start := time.Now()
	if opt.warm(data.N) {
		opt.phase("the search for the posterior mode")
		keep := WarmKeep{Kernel: opt.Settings != nil, Driver: opt.Settings != nil, Warmup: opt.Settings != nil, Draws: opt.Settings != nil}
		if opt.WarmKeep != nil {
			keep = *opt.WarmKeep
		}
		if st.Transform == nil {
			// The warm start's default space is the GP's variance split.
			st.Transform = tempering.Identity{}
		}
		if f.Mode, err = findWarm(sctx, f.model, &st, warmCall{keep: keep, fitProposal: !keep.Kernel, backend: f.Backend}); err != nil {
			f.Close()
			return nil, err
		}
	}
	if opt.BeforeSampling != nil {
		opt.BeforeSampling(f, &st)
	}
	f.Settings = st
	opt.phase("the chains' set-up")
	r := runChains(sctx, f.model, st)
	f.Wall, f.SamplingCPU = time.Since(start), r.cpu
	failed, maxTime, err := r.settle(ctx, sctx, f.model, st.Chains)
	if failed {
		f.Close()
		return nil, err
	}
	f.Result, f.Draws, f.StoppedByMaxTime = r.res, r.res.Draws, maxTime
	return f, err
}

// newMVNFit checks the options and makes the fit before sampling: the
// model on its backend and the exact posterior.
func newMVNFit(ctx context.Context, data *MVNData, sigma *mat.SymDense, opt MVNOptions) (*MVNFit, tempering.Settings, error) {
	if opt.WarmStart != WarmStartAuto && opt.WarmStart != WarmStartOn && opt.WarmStart != WarmStartOff {
		return nil, tempering.Settings{}, fmt.Errorf("subtemper: unknown warm-start mode %d", int(opt.WarmStart))
	}
	st := DefaultGPSettings()
	st.Stop = diag.StopRule{MinESS: DefaultMinESS}
	if opt.Settings != nil {
		st = *opt.Settings
	}
	f := &MVNFit{Data: data, Sigma: sigma, Sigma0: opt.Sigma0, Backend: opt.Backend, Settings: st}
	if f.Sigma0 == 0 {
		f.Sigma0 = DefaultMVNSigma0
	}
	if f.Backend == "" {
		f.Backend = linalg.FastestName()
	}
	opt.phase("the model's set-up")
	be, err := linalg.Get(f.Backend)
	if err == nil {
		f.model, err = mvn.New(be, data, sigma, mvn.Options{Sigma0: opt.Sigma0})
	}
	if err != nil {
		return nil, st, fmt.Errorf("subtemper: the model's set-up: %w", &ModelError{err})
	}
	if post, err := f.model.Posterior(nil, 1); err == nil {
		f.PostMean, f.PostSD = post.Mean, make([]float64, data.D)
		for i := range f.PostSD {
			f.PostSD[i] = math.Sqrt(post.Cov.At(i, i))
		}
	}
	if ctx.Err() != nil {
		f.Close()
		return nil, st, fmt.Errorf("subtemper: the model's set-up: %w", context.Cause(ctx))
	}
	return f, st, nil
}

// warm reports whether the options start from the posterior mode for N
// observations.
func (o *MVNOptions) warm(n int) bool {
	return o.WarmStart == WarmStartOn || o.WarmStart == WarmStartAuto && o.Settings == nil && n >= WarmStartMinN
}

// phase reports a phase to OnPhase, if set.
func (o *MVNOptions) phase(name string) {
	if o.OnPhase != nil {
		o.OnPhase(name)
	}
}
