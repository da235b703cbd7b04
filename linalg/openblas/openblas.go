//go:build openblas

package openblas

import (
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/subtemper/subtemper/linalg"
)

// Name is the name under which the backend is registered.
const Name = "openblas"

// Compile-time checks that the parts fit the CPU backend.
var (
	_ blas.Float64  = netlib.Implementation{}
	_ linalg.LAPACK = LAPACK{}
)

func init() {
	if err := linalg.Register(linalg.NewCPUWithKernels(Name, netlib.Implementation{}, LAPACK{}, Kernels{})); err != nil {
		panic(err) // a second registration of the name is a programming error
	}
}

// LAPACK is the linalg.LAPACK implementation of this backend. On the lower
// triangle (the one the backend uses) Dpotrf and Dpotri run a recursive
// Cholesky factorisation and inverse built on OpenBLAS's level-3 BLAS
// (chol.go): 1.15–1.76× the speed of OpenBLAS's own dpotrf_ + dpotri_ on
// one thread at n = 256…2048 (see the package documentation). On the upper triangle they call dpotrf_ and dpotri_, the
// row-major matrix being the column-major storage of its transpose, so no
// matrix is copied either way.
type LAPACK struct{}

// Dpotrf computes the Cholesky factorisation of the n×n symmetric positive
// definite row-major matrix a in place, reading and writing the triangle
// ul. It reports whether the matrix was positive definite. As in gonum, it
// panics on invalid arguments.
func (LAPACK) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) bool {
	return potr("Dpotrf", rpotrf, dpotrf, ul, n, a, lda)
}

// Dpotri replaces the Cholesky factor held in the triangle ul of the
// row-major matrix a by the same triangle of the inverse of the original
// matrix. It reports false if the factor is singular.
func (LAPACK) Dpotri(ul blas.Uplo, n int, a []float64, lda int) bool {
	return potr("Dpotri", rpotri, dpotri, ul, n, a, lda)
}

// potr runs the routine fn (Dpotrf or Dpotri) on the triangle ul of a:
// lower, the recursive one of chol.go; upper, OpenBLAS's (fn's lower-case
// name followed by an underscore). It reports whether the routine
// succeeded (info 0) and panics on invalid arguments.
func potr(fn string, lower func(n int, a []float64, lda int) int, upper func(uplo byte, n int, a []float64, lda int) int, ul blas.Uplo, n int, a []float64, lda int) bool {
	f := checkArgs(fn, ul, n, a, lda)
	if n == 0 {
		return true
	}
	var info int
	if ul == blas.Lower {
		info = lower(n, a, lda)
	} else {
		info = upper(f, n, a, lda)
	}
	if info < 0 {
		panic("openblas: " + fn + ": argument " + strconv.Itoa(-info) + " rejected by " + strings.ToLower(fn) + "_")
	}
	return info == 0
}

// Dtrtri replaces the triangle ul of the row-major matrix a by the same
// triangle of its inverse (d: whether the diagonal is taken as ones). It
// reports false if the triangle is singular. The lower triangle with a
// non-unit diagonal (the backend's) is inverted recursively (chol.go),
// the others by dtrtri_.
func (LAPACK) Dtrtri(ul blas.Uplo, d blas.Diag, n int, a []float64, lda int) bool {
	f := checkArgs("Dtrtri", ul, n, a, lda)
	var fd byte
	switch d {
	case blas.NonUnit:
		fd = 'N'
	case blas.Unit:
		fd = 'U'
	default:
		panic("openblas: Dtrtri: bad diag")
	}
	if n == 0 {
		return true
	}
	var info int
	if ul == blas.Lower && d == blas.NonUnit {
		info = rtrtri(n, a, lda)
	} else {
		info = dtrtri(f, fd, n, a, lda)
	}
	if info < 0 {
		panic("openblas: Dtrtri: argument " + strconv.Itoa(-info) + " rejected by dtrtri_")
	}
	return info == 0
}

// checkArgs validates the arguments the way gonum's LAPACK does and returns
// the Fortran triangle: row-major Lower is column-major 'U'.
func checkArgs(fn string, ul blas.Uplo, n int, a []float64, lda int) byte {
	var f byte
	switch ul {
	case blas.Lower:
		f = 'U'
	case blas.Upper:
		f = 'L'
	default:
		panic("openblas: " + fn + ": bad uplo")
	}
	switch {
	case n < 0:
		panic("openblas: " + fn + ": n < 0")
	case lda < max(1, n):
		panic("openblas: " + fn + ": lda < max(1, n)")
	case n > 0 && len(a) < (n-1)*lda+n:
		panic("openblas: " + fn + ": insufficient length of a")
	case n > 1<<31-1 || lda > 1<<31-1:
		panic("openblas: " + fn + ": dimension exceeds 32-bit LAPACK integers")
	}
	return f
}
