// Package model is the contract between the models and the samplers: the
// Target a sampler draws from, and the optional capabilities by which a
// target (or the backend handle behind it) makes the subsampling samplers
// cheaper. It imports only the standard library's errors, so that the
// models (gp.Model, mvn.Model) and the backends (linalg) implement these
// interfaces without importing the sampler package (tempering), which
// names them as aliases.
package model

import "errors"

// Target is a Bayesian model whose likelihood can be evaluated on any subset
// of its observations. The models gp.Model and mvn.Model satisfy it, as can
// a user's own model.
//
// Parameters live in the sampling space u (for the GP, u = log θ). A Target
// holds evaluation workspaces and is not safe for concurrent use: a sampler
// calls Clone once per chain.
type Target interface {
	// Dim is the number of parameters.
	Dim() int
	// NumObs is the number of observations N.
	NumObs() int
	// LogPrior returns log p(u) in the sampling space, including any
	// log-Jacobian of the transform. If grad is non-nil (len Dim) it is
	// overwritten with the gradient with respect to u.
	LogPrior(u, grad []float64) float64
	// LogLik returns the log-likelihood of the observations whose indices are
	// in subset (nil means all N) at u. If grad is non-nil (len Dim) it is
	// overwritten with the gradient with respect to u. A non-nil error means
	// the density could not be evaluated at u (for example a kernel matrix
	// that is not positive definite); samplers treat it as log-density −∞
	// and count it.
	LogLik(subset []int, u, grad []float64) (float64, error)
	// Clone returns an independent Target over the same (read-only) data,
	// with its own workspaces, for use by another goroutine.
	Clone() (Target, error)
}

// Starter is an optional interface: a Target that implements it supplies the
// default starting point of each chain (for example θ*, θ*/2 and 2θ*
// mapped to the sampling space, θ* the prior mean). tempering.Run uses it
// when Settings.Init is empty.
type Starter interface {
	// Start writes the starting point of chain c (0 ≤ c < chains) into u
	// (len Dim).
	Start(c, chains int, u []float64)
}

// ErrOutOfMemory is wrapped by the error of a Target's Clone (or of a
// backend's constructor) that could not get the memory its workspaces
// need, such as a GPU's. Code that clones a target only to run
// evaluations side by side may then go on with the clones it has.
var ErrOutOfMemory = errors.New("not enough memory for another copy of the model")

// Reorderer is an optional interface of a Target, or of a backend's data
// handle: it can lay its observations out in the order perm (a
// permutation of 0..N−1), so that the subsets the subsampling samplers
// use — prefixes perm[:N_m] — are read contiguously, as fast per
// observation as the full data. SPT calls it once, STT after drawing each
// iteration's subsets (counted in tempering's Stats.Reorders). It changes
// speed only: subsets still name observations by their original index,
// any subset is accepted, and no result changes; an error only turns the
// reordering off for the chain.
type Reorderer interface {
	// Reorder lays the observations out in the order perm. It costs one
	// pass over the data.
	Reorder(perm []int) error
}

// PrefixLiker is an optional interface of a Target, or of a backend's GP
// handle: while it evaluates the log-likelihood on a subset, it can also
// give the log-likelihoods of leading parts of that subset at the same
// point, for little extra cost (a GP from the same Cholesky factor — the
// factor of a leading block of K_SS is the leading block of its factor —
// an MVN model from the same pass over the observations). SPT and STT
// draw their subsets as prefixes X_m = perm[:N_m] of one permutation, so
// an evaluation on X_m also gives the values on X_{m+1}, …, X_M: an SPT
// swap then needs one new evaluation instead of two, and STT's ascent
// with a kernel that needs no gradient none after the first level. The
// values are counted in tempering's LevelStats.PrefixReuses, not as
// evaluations.
type PrefixLiker interface {
	// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood
	// of the observations subset[:ks[j]] at u (with subset nil, of
	// 0..ks[j]−1), 1 ≤ ks[j] ≤ the subset's size, len(pre) = len(ks). The
	// full value and the gradient are exactly those LogLik returns; pre
	// agrees with LogLik on each prefix to rounding. It returns ok = false
	// when it cannot give them cheaply (then pre is unspecified and only
	// ll, grad and err mean anything), and pre is unspecified whenever err
	// is non-nil.
	LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (ll float64, ok bool, err error)
}

// GradResumer is an optional interface of a Target, or of a backend's GP
// handle: it keeps what its last log-likelihood evaluation without
// gradient computed (a GP: the Cholesky factor), so that the gradient at
// the same point on the same subset, or on a prefix of it, can follow for
// less than a new evaluation (a GP: the inverse from the factor and the
// gradient's own work, without building and factorising the kernel
// again). An SPT swap evaluates a state on a colder level's subset without
// gradient; when the state then stays on that level, or on its own level
// whose subset is a prefix of it, SPT resumes the gradient that level's
// transition will need. Resumes are counted in tempering's
// LevelStats.GradResumes, not as evaluations.
type GradResumer interface {
	// LogLikResume is LogLik(subset, u, grad) with grad non-nil, computed
	// from the last evaluation if that was LogLik (or LogLikPrefixes)
	// without gradient that succeeded, at the same u (bit for bit), on a
	// subset of which subset is a prefix (nil stands for all
	// observations), with nothing else evaluated since. Otherwise it
	// returns ok = false and changes nothing. With ok, ll, grad and err
	// mean what LogLik's do and agree with LogLik's to rounding (bit for
	// bit on the same subset), and what was kept is used up: a second
	// LogLikResume returns ok = false.
	LogLikResume(subset []int, u, grad []float64) (ll float64, ok bool, err error)
}

// CloneOf returns a model's typed copy c as a Target, for its Clone method
// (func (m *M) Clone() (Target, error) { return CloneOf(m.Copy()) }): nil
// and err if err is not nil, never a Target holding a nil pointer.
func CloneOf[T Target](c T, err error) (Target, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}
