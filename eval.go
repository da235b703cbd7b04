package subtemper

import (
	"fmt"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
)

// GPEvalOptions configures EvalGP: the model's choices, as GPOptions
// has them. The zero value is the paper's model on the fastest backend.
type GPEvalOptions struct {
	// Backend names the linear-algebra backend; "" means the fastest
	// compiled in (linalg.FastestName).
	Backend string
	// Prior is the prior on θ (zero value: the paper's).
	Prior GPPrior
	// Kernel is the covariance family (zero value: the squared
	// exponential).
	Kernel GPKernel
	// Jitter is added to the kernel's diagonal on top of σn² (≥ 0).
	Jitter float64
}

// GPEval is the GP model's log density at one θ, in the data's units.
type GPEval struct {
	// LogMarginalLikelihood is log N(y | 0, K + σn²·I) over every
	// observation, and Gradient its gradient with respect to u = log θ.
	LogMarginalLikelihood float64
	Gradient              []float64
	// LogPrior is the log density of u = log θ under the prior: it
	// includes the log-Jacobian, as the density the sampler uses does.
	LogPrior float64
	// LogJacobian is Σ log θ, the log-Jacobian of θ = exp(u): LogPrior −
	// LogJacobian is the log prior density of θ itself.
	LogJacobian float64
}

// ModelError is the error of a model's set-up from its data and options
// (a backend that lacks the kernel, data it refuses), as opposed to an
// error met while evaluating or sampling the model. Its message is the
// model's own.
type ModelError struct{ Err error }

// Error returns the model's message.
func (e *ModelError) Error() string { return e.Err.Error() }

// Unwrap returns the model's error.
func (e *ModelError) Unwrap() error { return e.Err }

// EvalGP evaluates GP regression on data at theta = (ℓ_1..ℓ_D, σf, σn),
// every value positive and finite: the log marginal likelihood of every
// observation with its gradient, the log prior density of u = log θ and
// the log-Jacobian. An error of the model's set-up is a *ModelError; a
// kernel matrix that is not positive definite at theta is an error of
// the evaluation.
func EvalGP(data *GPData, theta []float64, opt GPEvalOptions) (*GPEval, error) {
	name := opt.Backend
	if name == "" {
		name = linalg.FastestName()
	}
	be, err := linalg.Get(name)
	if err != nil {
		return nil, &ModelError{err}
	}
	if d := data.D + 2; len(theta) != d {
		return nil, fmt.Errorf("subtemper: θ has %d values, the model of %d inputs %d", len(theta), data.D, d)
	}
	u, err := gp.LogTheta(nil, theta)
	if err != nil {
		return nil, err
	}
	m, err := gp.New(be, data, gp.Options{Jitter: opt.Jitter, Prior: opt.Prior, Kernel: opt.Kernel})
	if err != nil {
		return nil, &ModelError{err}
	}
	defer m.Close()
	grad := make([]float64, len(u))
	ll, err := m.LogLik(nil, u, grad)
	if err != nil {
		return nil, err
	}
	out := &GPEval{LogMarginalLikelihood: ll, Gradient: grad, LogPrior: m.LogPrior(u, nil)}
	for _, v := range u {
		out.LogJacobian += v
	}
	return out, nil
}
