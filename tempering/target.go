package tempering

// Target is a Bayesian model whose likelihood can be evaluated on any subset
// of its observations. Models (gp.Model, mvn.Model) satisfy it; tempering
// never imports them.
//
// Parameters live in the sampling space u (for the GP, u = log θ). A Target
// holds evaluation workspaces and is not safe for concurrent use: the runner
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
// mapped to the sampling space, θ* the prior mean). Run uses it when
// Settings.Init is empty.
type Starter interface {
	// Start writes the starting point of chain c (0 ≤ c < chains) into u
	// (len Dim).
	Start(c, chains int, u []float64)
}

// Reorderer is an optional interface: a Target that implements it can lay
// its observations out in the order perm (a permutation of 0..N−1), so
// that the subsets the subsampling drivers use — prefixes perm[:N_m] —
// are read contiguously. SPT calls it once, STT after drawing each
// iteration's subsets (counted in Stats.Reorders). It must not change any
// result; an error only turns the reordering off for the chain.
type Reorderer interface {
	Reorder(perm []int) error
}

// PrefixLiker is an optional interface: a Target that implements it can,
// while it evaluates the log-likelihood on a subset, also give the
// log-likelihoods of leading parts of that subset at the same point, for
// little extra cost (a GP from the same Cholesky factor, an MVN model from
// the same pass over the observations). SPT and STT draw their subsets as
// prefixes X_m = perm[:N_m] of one permutation, so an evaluation on X_m
// also gives the values on X_{m+1}, …, X_M: an SPT swap then needs one new
// evaluation instead of two, and STT's ascent with a kernel that needs no
// gradient none after the first level. The values are counted in
// LevelStats.PrefixReuses, not as evaluations.
type PrefixLiker interface {
	// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood
	// of the observations subset[:ks[j]] at u (with subset nil, of
	// 0..ks[j]−1), 1 ≤ ks[j] ≤ the subset's size, len(pre) = len(ks). It
	// returns ok = false when it cannot give them cheaply (then pre is
	// unspecified and only ll, grad and err mean anything), and pre is
	// unspecified whenever err is non-nil.
	LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (ll float64, ok bool, err error)
}

// GradResumer is an optional interface: a Target that implements it keeps
// what its last log-likelihood evaluation without gradient computed (a
// GP: the Cholesky factor), so that the gradient at the same point on the
// same subset, or on a prefix of it, can follow for less than a new
// evaluation (a GP: without building and factorising the kernel again).
// An SPT swap evaluates a state on a colder level's subset without
// gradient; when the state then stays on that level, or on its own level
// whose subset is a prefix of it, SPT resumes the gradient that level's
// transition will need. Resumes are counted in LevelStats.GradResumes,
// not as evaluations.
type GradResumer interface {
	// LogLikResume is LogLik(subset, u, grad) with grad non-nil, computed
	// from the target's last evaluation if that was LogLik (or
	// LogLikPrefixes) without gradient at the same u on a subset of which
	// subset is a prefix, with nothing else evaluated since. Otherwise it
	// returns ok = false and changes nothing. With ok, ll, grad and err
	// mean what LogLik's do, and agree with LogLik's to rounding.
	LogLikResume(subset []int, u, grad []float64) (ll float64, ok bool, err error)
}
