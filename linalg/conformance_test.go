package linalg_test

import (
	"testing"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
)

// The pure-Go backend against the conformance suite. Its comparisons with
// "gonum" are trivial here; the independent checks (known eigenvalues,
// plain loops, gonum/mat, finite differences) are not.

var gonumBackend = linalg.Default()

func TestCholesky(t *testing.T)  { linalgtest.CholeskyTest(t, gonumBackend) }
func TestLogDet(t *testing.T)    { linalgtest.LogDetTest(t, gonumBackend) }
func TestSolve(t *testing.T)     { linalgtest.SolveTest(t, gonumBackend) }
func TestInverse(t *testing.T)   { linalgtest.InverseTest(t, gonumBackend) }
func TestMul(t *testing.T)       { linalgtest.MulTest(t, gonumBackend) }
func TestGPKernel(t *testing.T)  { linalgtest.GPKernelTest(t, gonumBackend) }
func TestGPLogLik(t *testing.T)  { linalgtest.GPLogLikTest(t, gonumBackend) }
func TestGPPrefix(t *testing.T)  { linalgtest.GPPrefixTest(t, gonumBackend) }
func TestGPResume(t *testing.T)  { linalgtest.GPResumeTest(t, gonumBackend) }
func TestMVN(t *testing.T)       { linalgtest.MVNTest(t, gonumBackend) }
func TestMVNPrefix(t *testing.T) { linalgtest.MVNPrefixTest(t, gonumBackend) }
func TestNotPD(t *testing.T)     { linalgtest.NotPDTest(t, gonumBackend) }
func TestState(t *testing.T)     { linalgtest.StateTest(t, gonumBackend) }

// gonum's Dgemm goes parallel, starting goroutines (which allocates), once
// its output has four 64×64 blocks (blas/gonum: blockSize = 64,
// minParBlock = 4): Matrix.Mul from order 65 on, and gonum's blocked
// Dpotrf/Dpotri through their panel updates at larger orders. So the
// zero-allocation check of this backend runs at order 64.
func TestAllocs(t *testing.T) { linalgtest.AllocTest(t, gonumBackend, 64) }

func TestKernelReference(t *testing.T) { linalgtest.KernelReferenceTest(t, gonumBackend) }
func TestMatern(t *testing.T)          { linalgtest.MaternTest(t, gonumBackend) }
