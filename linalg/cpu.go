package linalg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

// LAPACK is the part of LAPACK a CPU backend needs: the Cholesky
// factorisation, the inverse from it and the inverse of a triangular
// matrix (the factor, for predictions), on row-major matrices, lower
// triangle. They report false when the matrix is not positive definite
// (Dpotrf) or the factor or triangle is singular (Dpotri, Dtrtri).
// gonum.org/v1/gonum/lapack/gonum.Implementation satisfies it.
type LAPACK interface {
	Dpotrf(ul blas.Uplo, n int, a []float64, lda int) (ok bool)
	Dpotri(ul blas.Uplo, n int, a []float64, lda int) (ok bool)
	Dtrtri(ul blas.Uplo, d blas.Diag, n int, a []float64, lda int) (ok bool)
}

// RowKernels are the elementwise passes of the CPU GP evaluation and
// prediction, in a form a backend may supply: the openblas backend brings
// vectorised C loops. Without them (NewCPU) the passes are Go loops and
// the gradient's product P·[Z 1] is a BLAS Dsymm. In SERows and GradRows
// matrices are m×m row-major, lower triangle; each call covers rows
// lo..hi−1 and may run concurrently with calls on other rows (SERows) or
// on other q and w buffers (GradRows).
type RowKernels interface {
	// SERows turns rows of the Gram matrix a into kernel rows: for j < i,
	// a[i,j] ← sf2·exp(−½·max(0, sq[i] + sq[j] − 2·a[i,j])), and a[i,i] ←
	// diag. If kf is not nil it receives the same values for j < i and
	// kf[i,i] = sf2.
	SERows(a, kf, sq []float64, m, lo, hi int, sf2, diag float64)
	// GradRows adds the rows' part of q = P·z, P the symmetric matrix with
	// lower triangle P_ij = (α_i α_j − a_ij)·kf_ij: q_i += Σ_{j≤i} P_ij z_j
	// and, for j < i, q_j += P_ij z_i. z and q are m×ld row-major with ld a
	// multiple of 4; w is scratch of length m.
	GradRows(a, kf, alpha, z, q, w []float64, m, ld, lo, hi int)
	// SECross sets the m×k row-major cross-kernel block c between the m
	// rows of the m×d row-major za and the k columns of the d×k row-major
	// zbT (inputs divided by the length scales):
	// c[i,t] = sf2·exp(−½·Σ_j (za[i,j] − zbT[j,t])²), the squares summed
	// in order of j.
	SECross(c, za, zbT []float64, m, k, d int, sf2 float64)
	// ColSumSquares sets dst[t] = Σ_i x[i,t]² for the k columns of the m×k
	// row-major x, the rows added in order.
	ColSumSquares(dst, x []float64, m, k int)
	// MaternRows fills rows lo..hi−1 of the lower triangle of a with the
	// Matérn kernel fam (not KernelSE) of the scaled inputs, given as the
	// d×m row-major zt (column j: input j): for j < i, with r the
	// Euclidean distance between inputs i and j from explicit differences,
	// the squares summed in order of the d rows of zt, a[i,j] ← the
	// covariance at r and, if w is not nil, w[i,j] ← the length-scale
	// weight −(∂k/∂r)/r (0 at r = 0); a[i,i] ← diag and w[i,i] ← 0
	// (Kernel documents the families).
	MaternRows(fam Kernel, a, w, zt []float64, m, d, lo, hi int, sf2, diag float64)
	// MaternCross is SECross for the Matérn kernel fam (not KernelSE).
	MaternCross(fam Kernel, c, za, zbT []float64, m, k, d int, sf2 float64)
}

// NewCPU returns a host-memory backend named name that runs the dense
// routines through the given BLAS and LAPACK implementations (row-major,
// as gonum's). The kernel build and the reductions are plain Go; the
// O(n³) and O(n²D) work goes through bl and la. The pure-Go "gonum"
// backend is built this way.
func NewCPU(name string, bl blas.Float64, la LAPACK) Backend {
	return &cpuBackend{name: name, bl: bl, la: la}
}

// NewCPUWithKernels is NewCPU with the GP evaluation's elementwise passes
// done by rk (nil: as NewCPU). The "openblas" backend is built this way.
func NewCPUWithKernels(name string, bl blas.Float64, la LAPACK, rk RowKernels) Backend {
	return &cpuBackend{name: name, bl: bl, la: la, rk: rk}
}

type cpuBackend struct {
	name string
	bl   blas.Float64
	la   LAPACK
	rk   RowKernels
}

func (c *cpuBackend) Name() string { return c.name }

func (c *cpuBackend) NewMatrix(maxN int) (Matrix, error) {
	if maxN < 1 {
		return nil, fmt.Errorf("linalg/%s: matrix workspace of order %d", c.name, maxN)
	}
	return &cpuMatrix{be: c, a: make([]float64, maxN*maxN), max: maxN}, nil
}

type cpuMatrix struct {
	be       *cpuBackend
	a        []float64
	n, max   int
	factored bool
}

func (m *cpuMatrix) Cap() int { return m.max }
func (m *cpuMatrix) N() int   { return m.n }

func (m *cpuMatrix) Set(n int, a []float64) error {
	if n < 1 || n > m.max {
		return fmt.Errorf("linalg/%s: set: order %d outside 1..%d", m.be.name, n, m.max)
	}
	if len(a) < n*n {
		return fmt.Errorf("linalg/%s: set: %d values for a %d×%d matrix", m.be.name, len(a), n, n)
	}
	m.n = n
	copy(m.a[:n*n], a[:n*n])
	m.factored = false
	return nil
}

func (m *cpuMatrix) Get(dst []float64) error {
	if len(dst) < m.n*m.n {
		return fmt.Errorf("linalg/%s: get: dst has %d values, need %d", m.be.name, len(dst), m.n*m.n)
	}
	copy(dst, m.a[:m.n*m.n])
	return nil
}

func (m *cpuMatrix) Cholesky() error {
	if m.n == 0 {
		return fmt.Errorf("linalg/%s: cholesky of an empty workspace", m.be.name)
	}
	if err := cholesky(m.be.la, m.n, m.a); err != nil {
		m.factored = false
		return fmt.Errorf("linalg/%s: cholesky of %d×%d matrix: %w", m.be.name, m.n, m.n, err)
	}
	m.factored = true
	return nil
}

func (m *cpuMatrix) LogDet() (float64, error) {
	if !m.factored {
		return 0, fmt.Errorf("linalg/%s: logdet: %w", m.be.name, ErrNotFactored)
	}
	return logDetChol(m.n, m.a), nil
}

func (m *cpuMatrix) Solve(b, x []float64) error {
	if !m.factored {
		return fmt.Errorf("linalg/%s: solve: %w", m.be.name, ErrNotFactored)
	}
	if len(b) < m.n || len(x) < m.n {
		return fmt.Errorf("linalg/%s: solve: vectors of length %d, %d for order %d", m.be.name, len(b), len(x), m.n)
	}
	copy(x[:m.n], b[:m.n])
	cholSolve(m.be.bl, m.n, m.a, x[:m.n])
	return nil
}

func (m *cpuMatrix) Inverse() error {
	if !m.factored {
		return fmt.Errorf("linalg/%s: inverse: %w", m.be.name, ErrNotFactored)
	}
	if !m.be.la.Dpotri(blas.Lower, m.n, m.a, m.n) {
		return fmt.Errorf("linalg/%s: inverse of %d×%d matrix: singular factor: %w", m.be.name, m.n, m.n, ErrNotPositiveDefinite)
	}
	mirrorLower(m.n, m.a)
	m.factored = false
	return nil
}

func (m *cpuMatrix) Mul(a, b Matrix) error {
	ca, ok1 := a.(*cpuMatrix)
	cb, ok2 := b.(*cpuMatrix)
	if !ok1 || !ok2 || ca.be != m.be || cb.be != m.be {
		return fmt.Errorf("linalg/%s: mul: operands from another backend", m.be.name)
	}
	if ca == m || cb == m {
		return fmt.Errorf("linalg/%s: mul: receiver aliases an operand", m.be.name)
	}
	n := ca.n
	if n == 0 || cb.n != n || n > m.max {
		return fmt.Errorf("linalg/%s: mul: orders %d and %d into capacity %d", m.be.name, ca.n, cb.n, m.max)
	}
	m.n = n
	m.factored = false
	m.be.bl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, ca.a, n, cb.a, n, 0, m.a, n)
	return nil
}

func (m *cpuMatrix) Close() error { m.a = nil; m.n = 0; m.max = 0; return nil }

// cholesky factors the n×n row-major matrix a (lower) in place. On failure
// it returns ErrNotPositiveDefinite; the caller must not use a.
func cholesky(la LAPACK, n int, a []float64) error {
	if !la.Dpotrf(blas.Lower, n, a, n) {
		return ErrNotPositiveDefinite
	}
	// A pivot can be positive yet the factor hold Inf/NaN when the input
	// held them; refuse to let them travel on.
	for i := 0; i < n; i++ {
		if d := a[i*n+i]; !(d > 0) || math.IsInf(d, 0) {
			return ErrNotPositiveDefinite
		}
	}
	return nil
}

func logDetChol(n int, l []float64) float64 {
	var s float64
	for i := 0; i < n; i++ {
		s += math.Log(l[i*n+i])
	}
	return 2 * s
}

// cholSolve overwrites x with A⁻¹x given the lower factor l of A.
func cholSolve(bl blas.Float64, n int, l, x []float64) {
	bl.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, n, l, n, x, 1)
	bl.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, n, l, n, x, 1)
}

// mirrorLower copies the strict lower triangle into the upper one.
func mirrorLower(n int, a []float64) {
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[j*n+i] = a[i*n+j]
		}
	}
}

// checkSubset validates subset indices against n observations and returns
// the subset size.
func checkSubset(name string, subset []int, n int) (int, error) {
	if subset == nil {
		return n, nil
	}
	if len(subset) == 0 {
		return 0, fmt.Errorf("linalg/%s: empty subset", name)
	}
	if len(subset) > n {
		// The workspaces hold n rows; an index list may repeat indices
		// but not be longer than the data.
		return 0, fmt.Errorf("linalg/%s: subset of %d indices for %d observations", name, len(subset), n)
	}
	for k, i := range subset {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("linalg/%s: subset[%d] = %d outside 0..%d", name, k, i, n-1)
		}
	}
	return len(subset), nil
}
