// Package linalgtest is the conformance suite, the allocation checks and
// the benchmarks that every linalg.Backend runs, in the manner of gonum's
// lapack/testlapack: a backend's test file is one line per routine,
//
//	func TestCholesky(t *testing.T) { linalgtest.CholeskyTest(t, backend) }
//
// and All runs every check. Results are compared with the pure-Go "gonum"
// backend (linalg.Default) and, wherever one exists, with an independent
// computation: a matrix built from known eigenvalues and eigenvectors, a
// plain dense loop, gonum/mat, central finite differences.
//
// # Tolerances
//
// Let ε = 2⁻⁵² (machine epsilon), n the order and κ the 2-norm condition
// number of the SPD matrix (known exactly for the generated test matrices;
// for a GP kernel bounded by κ ≤ 1 + n·σf²/(σn²+jitter), Gershgorin above
// and the noise below). Backward-stable Cholesky, triangular solves and
// potri give results whose relative norm-wise forward error is O(n·ε·κ),
// so two correct backends differ by at most the sum of theirs. The suite
// uses
//
//	tol(n, κ)   = 16·n·ε·κ           relative (max-norm) error of L, x, A⁻¹
//	tolLD(n, κ) = 16·n²·ε·κ          absolute error of log det A
//	                                 (|tr(A⁻¹ΔA)| ≤ n·‖A⁻¹‖·‖ΔA‖, ‖ΔA‖ ≤ c·n·ε·‖A‖)
//	resid       = 4·(n+1)·ε·√(a_ii·a_jj)  componentwise |A − L·Lᵀ|_ij
//	                                 (|L||Lᵀ|_ij ≤ √(a_ii·a_jj) for SPD A)
//	mul         = 2·(n+1)·ε·(|A|·|B|)_ij  componentwise |C − A·B|_ij
//
// and, for the GP log-likelihood and gradient, tol(n, κ)·max(n, |value|).
// The factor 16 is head-room over the textbook constants (which are
// worst-case bounds attained almost never), so a backend that is off by
// one part in 10⁶ of a value still fails while rounding differences pass.
package linalgtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/linalg"
)

// Sizes are the orders of the random SPD matrices every routine is
// checked at.
var Sizes = []int{1, 2, 7, 64, 129, 500}

// IllConditionedSizes are the orders of the extra test matrices with
// condition number IllCond.
var IllConditionedSizes = []int{64, 129}

// IllCond is the condition number of the ill-conditioned test matrices.
const IllCond = 1e10

// wellCond is the condition number of the other test matrices.
const wellCond = 100

const eps = 0x1p-52

func tol(n int, kappa float64) float64   { return 16 * float64(n) * eps * kappa }
func tolLD(n int, kappa float64) float64 { return 16 * float64(n) * float64(n) * eps * kappa }

// spd is a test matrix A = Q·diag(λ)·Qᵀ with known eigen-decomposition.
type spd struct {
	n     int
	kappa float64
	a     []float64 // n×n row-major, exactly symmetric
	inv   []float64 // Q·diag(1/λ)·Qᵀ, computed independently of any Cholesky
	logdt float64   // Σ log λ
}

var (
	spdOnce sync.Once
	spdSet  []spd
)

// testMatrices returns the shared, deterministic test matrices.
func testMatrices() []spd {
	spdOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 1))
		for _, n := range Sizes {
			spdSet = append(spdSet, newSPD(n, wellCond, rng))
		}
		for _, n := range IllConditionedSizes {
			spdSet = append(spdSet, newSPD(n, IllCond, rng))
		}
	})
	return spdSet
}

// newSPD builds Q·diag(λ)·Qᵀ with Q the orthogonal factor of a Gaussian
// matrix and λ log-spaced from 1 down to 1/cond.
func newSPD(n int, cond float64, rng *rand.Rand) spd {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	lam := make([]float64, n)
	var ld float64
	for i := range lam {
		if n == 1 {
			lam[i] = 1
		} else {
			lam[i] = math.Pow(cond, -float64(i)/float64(n-1))
		}
		ld += math.Log(lam[i])
	}
	kappa := 1.0
	if n > 1 {
		kappa = cond
	}
	build := func(f func(float64) float64) []float64 {
		qd := mat.NewDense(n, n, nil)
		qd.Apply(func(_, j int, v float64) float64 { return v * f(lam[j]) }, &q)
		out := mat.NewDense(n, n, nil)
		out.Mul(qd, q.T())
		a := out.RawMatrix().Data
		for i := 0; i < n; i++ { // make it exactly symmetric
			for j := 0; j < i; j++ {
				a[j*n+i] = a[i*n+j]
			}
		}
		return a
	}
	return spd{
		n: n, kappa: kappa,
		a:     build(func(l float64) float64 { return l }),
		inv:   build(func(l float64) float64 { return 1 / l }),
		logdt: ld,
	}
}

// BenchSPD returns a random symmetric, strictly diagonally dominant (hence
// positive definite, condition number below 3) n×n row-major matrix:
// off-diagonal entries uniform in (−1, 1), diagonal n+1. It costs O(n²),
// so benchmark set-up stays fast at n = 16384; Cholesky does the same
// work on any SPD matrix, so the timing is that of a general one.
func BenchSPD(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := 2*rng.Float64() - 1
			a[i*n+j] = v
			a[j*n+i] = v
		}
		a[i*n+i] = float64(n + 1)
	}
	return a
}

// failures collects the problems a check finds.
type failures struct {
	errs []error
	more int
}

func (f *failures) errorf(format string, args ...any) {
	if len(f.errs) >= 20 {
		f.more++
		return
	}
	f.errs = append(f.errs, fmt.Errorf(format, args...))
}

func (f *failures) err() error {
	if f.more > 0 {
		f.errs = append(f.errs, fmt.Errorf("... and %d more", f.more))
	}
	return errors.Join(f.errs...)
}

// safely runs check, turning a panic into an error: a backend must report
// failures as errors, never panic.
func safely(check func(b linalg.Backend) error, b linalg.Backend) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("backend %s panicked: %v\n%s", b.Name(), r, debug.Stack())
		}
	}()
	return check(b)
}

func run(t testing.TB, b linalg.Backend, check func(linalg.Backend) error) {
	t.Helper()
	if err := safely(check, b); err != nil {
		t.Error(err)
	}
}

// CholeskyTest checks Matrix.Cholesky: L·Lᵀ = A componentwise and L equal
// to the gonum backend's factor.
func CholeskyTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkCholesky) }

// LogDetTest checks Matrix.LogDet against the known eigenvalues and the
// gonum backend.
func LogDetTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkLogDet) }

// SolveTest checks Matrix.Solve: the residual, the gonum backend's
// solution, and x aliasing b.
func SolveTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkSolve) }

// InverseTest checks Matrix.Inverse against Q·diag(1/λ)·Qᵀ and the gonum
// backend, and that the inverse is exactly symmetric.
func InverseTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkInverse) }

// MulTest checks Matrix.Mul against a plain triple loop, componentwise.
func MulTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkMul) }

// GPKernelTest checks GP.Kernel against the kernel computed from explicit
// differences of the inputs, with and without jitter and subsets.
func GPKernelTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkGPKernel) }

// GPLogLikTest checks GP.LogLik and its gradient against the gonum
// backend, a naive dense computation with gonum/mat, and central finite
// differences of the naive computation.
func GPLogLikTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkGPLogLik) }

// GPPrefixTest checks model.PrefixLiker on the backend's GP handles (it
// passes at once for a backend whose handles do not implement it):
// unchanged full value and gradient, prefix values equal to LogLik on the
// prefixes, and out-of-range prefix lengths refused.
func GPPrefixTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkGPPrefixes) }

// GPResumeTest checks model.GradResumer on the backend's GP handles (it
// passes at once for a backend whose handles do not implement it): the
// same value and gradient as LogLik on the subset of the last evaluation
// and on its prefixes, once per evaluation, and refusals where the factor
// does not apply.
func GPResumeTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkGPResume) }

// MVNPrefixTest checks linalg.PrefixMVN on the backend's MVN handles (it
// passes at once for a backend whose handles do not implement it).
func MVNPrefixTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkMVNPrefixes) }

// MVNTest checks MVN.SumSq and its residual sums against a plain loop and
// the gonum backend.
func MVNTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkMVN) }

// NotPDTest checks the failure path: matrices that are not positive
// definite and GP kernels that are singular give errors wrapping
// linalg.ErrNotPositiveDefinite, never a panic or a NaN, and the handle
// works normally afterwards.
func NotPDTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkNotPD) }

// StateTest checks that handles leak no state between calls: repeated
// calls on different sizes and subsets give what fresh handles give, and
// misuse gives errors.
func StateTest(t *testing.T, b linalg.Backend) { t.Helper(); run(t, b, checkState) }

// All runs every conformance check as a subtest.
func All(t *testing.T, b linalg.Backend) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { run(t, b, c.f) })
	}
}

var checks = []struct {
	name string
	f    func(linalg.Backend) error
}{
	{"Cholesky", checkCholesky},
	{"LogDet", checkLogDet},
	{"Solve", checkSolve},
	{"Inverse", checkInverse},
	{"Mul", checkMul},
	{"GPKernel", checkGPKernel},
	{"GPLogLik", checkGPLogLik},
	{"MVN", checkMVN},
	{"NotPD", checkNotPD},
	{"State", checkState},
}

// relMax returns max|got−want| / max|want| (max|want| floored at the
// smallest normal number).
func relMax(got, want []float64) float64 {
	var d, s float64
	for i, w := range want {
		d = math.Max(d, math.Abs(got[i]-w))
		s = math.Max(s, math.Abs(w))
	}
	if math.IsNaN(d) || anyNaN(got) {
		return math.Inf(1)
	}
	return d / math.Max(s, 0x1p-1022)
}

func anyNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// lower returns the lower triangle of the n×n matrix a, zeros above.
func lower(n int, a []float64) []float64 {
	l := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(l[i*n:i*n+i+1], a[i*n:i*n+i+1])
	}
	return l
}

// factor uploads a into a fresh workspace of b and factors it.
func factor(b linalg.Backend, n int, a []float64) (linalg.Matrix, error) {
	m, err := b.NewMatrix(n)
	if err != nil {
		return nil, err
	}
	if err := m.Set(n, a); err != nil {
		return nil, err
	}
	if err := m.Cholesky(); err != nil {
		return nil, err
	}
	return m, nil
}

// agree records a failure for each of a log-likelihood ll and its gradient
// grad, of a subset of m points with kernel condition number kap, that
// differs from the reference's (rll, rgrad) by more than the tolerance,
// tol(m, kap) times m or the reference's size; what names the case. It
// returns the log-likelihood's and the gradient's tolerances.
func (f *failures) agree(what string, m int, kap, ll, rll float64, grad, rgrad []float64) (tl, tg float64) {
	tl = tol(m, kap) * math.Max(float64(m), math.Abs(rll))
	if d := math.Abs(ll - rll); !(d <= tl) {
		f.errorf("%s: loglik %.17g, gonum %.17g: differ by %.3g, tolerance %.3g", what, ll, rll, d, tl)
	}
	var gmax float64
	for _, v := range rgrad {
		gmax = math.Max(gmax, math.Abs(v))
	}
	tg = tol(m, kap) * math.Max(float64(m), gmax)
	for j := range grad {
		if d := math.Abs(grad[j] - rgrad[j]); !(d <= tg) {
			f.errorf("%s: grad[%d] = %.17g, gonum %.17g: differ by %.3g, tolerance %.3g", what, j, grad[j], rgrad[j], d, tg)
		}
	}
	return tl, tg
}
