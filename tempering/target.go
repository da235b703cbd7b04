package tempering

import "github.com/subtemper/subtemper/model"

// The sampler's contract with the models is declared in package model,
// which imports nothing, so that the models (gp.Model, mvn.Model) and the
// backends satisfy it without importing this package. These aliases name
// the same types here.
type (
	// Target is a Bayesian model whose log-likelihood can be evaluated on
	// any subset of its observations (model.Target). Parameters live in
	// the sampling space u (for the GP, u = log θ); Run calls Clone once
	// per chain.
	Target = model.Target
	// Starter is a Target that supplies each chain's default starting
	// point (model.Starter); Run uses it when Settings.Init is empty.
	Starter = model.Starter
	// Reorderer is a Target that can lay its observations out so that the
	// subsampling drivers' subsets are read contiguously
	// (model.Reorderer).
	Reorderer = model.Reorderer
	// PrefixLiker is a Target whose evaluation on a subset also gives the
	// log-likelihoods of its prefixes, the hotter levels' subsets
	// (model.PrefixLiker).
	PrefixLiker = model.PrefixLiker
	// GradResumer is a Target that can complete its last evaluation
	// without gradient with the gradient, for less than a new evaluation
	// (model.GradResumer).
	GradResumer = model.GradResumer
)

// ErrOutOfMemory is wrapped by a Target's Clone that could not get the
// memory it needs (model.ErrOutOfMemory); the warm start and the proposal
// fit then run with the clones they have.
var ErrOutOfMemory = model.ErrOutOfMemory
