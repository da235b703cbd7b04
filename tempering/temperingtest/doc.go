// Package temperingtest is the conformance kit for user-defined models and
// kernels of package tempering, in the manner of gonum's lapack/testlapack
// and this module's linalg/linalgtest: a model's test file is one line per
// check,
//
//	func TestModel(t *testing.T) {
//		temperingtest.TargetTest(t, NewModel(data), temperingtest.TargetOptions{})
//	}
//
//	func TestKernel(t *testing.T) {
//		g, _ := temperingtest.NewGaussian(30, 3, 1)
//		temperingtest.InvarianceTest(t, MyKernel{}, g, temperingtest.InvarianceOptions{})
//	}
//
// # Targets
//
// CheckTarget checks a tempering.Target: gradients against central finite
// differences (FiniteDiff, CompareGrad), the subsets the subsampling
// drivers (SPT, STT) evaluate — prefixes of a random permutation, largest
// first — against fresh evaluations, Clone's independence (sequential and
// concurrent: run with -race), and the optional interfaces the target
// implements (tempering.PrefixLiker, GradResumer, Reorderer, Starter,
// PriorSampler) against plain LogLik. Every value it compares must agree
// to TargetOptions.ValueTol, relative.
//
// # Kernels
//
// CheckInvariance is Pigeons.jl's invariance test for a tempering.Kernel:
// start replicates at exact draws from a known posterior (an Exact target,
// such as Gaussian, or a conjugate model embedding a *Normal), apply a few
// of the kernel's fixed transitions, and compare the moments before and
// after, pair by pair, within a few Monte Carlo standard errors. A kernel
// whose acceptance ratio is wrong moves the draws off the posterior within
// a few transitions and fails.
//
// # Errors, not test failures
//
// Each check is a function that returns an error (CheckTarget,
// CheckInvariance), so that it can be shown to fail: this package's tests
// feed it deliberately broken targets and kernels (test-only
// implementations) and assert an error. TargetTest and InvarianceTest are
// the thin testing.TB wrappers that report it.
package temperingtest
