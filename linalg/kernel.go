package linalg

import (
	"fmt"
	"math"
)

// Kernel names a stationary covariance family of GP handles, all with ARD
// length scales: with r² = Σ_d (x_d − x'_d)²/ℓ_d² the squared scaled
// distance,
//
//	KernelSE        k = σf² exp(−r²/2)
//	KernelMatern12  k = σf² exp(−r)
//	KernelMatern32  k = σf² (1 + √3 r) exp(−√3 r)
//	KernelMatern52  k = σf² (1 + √5 r + 5r²/3) exp(−√5 r)
//
// (scikit-learn's RBF and Matern with ν = 1/2, 3/2, 5/2 times a constant).
// The zero value is the squared exponential.
type Kernel int

// The kernel families.
const (
	KernelSE Kernel = iota
	KernelMatern12
	KernelMatern32
	KernelMatern52
	numKernels
)

var kernelNames = [numKernels]string{"se", "matern12", "matern32", "matern52"}

// Kernels returns every kernel family, squared exponential first.
func Kernels() []Kernel { return []Kernel{KernelSE, KernelMatern12, KernelMatern32, KernelMatern52} }

// String returns the family's name as ParseKernel reads it: "se",
// "matern12", "matern32" or "matern52".
func (k Kernel) String() string {
	if k.Valid() {
		return kernelNames[k]
	}
	return fmt.Sprintf("Kernel(%d)", int(k))
}

// Valid reports whether k is one of the named families.
func (k Kernel) Valid() bool { return k >= 0 && k < numKernels }

// ParseKernel returns the family named s ("se", "matern12", "matern32" or
// "matern52").
func ParseKernel(s string) (Kernel, error) {
	for k, n := range kernelNames {
		if s == n {
			return Kernel(k), nil
		}
	}
	return 0, fmt.Errorf("linalg: unknown kernel %q (want se, matern12, matern32 or matern52)", s)
}

// Cov returns the covariance k at squared scaled distance d2 = r² ≥ 0 with
// signal variance sf2 = σf², by the formulas in Kernel's documentation;
// the squared exponential's is sf2·math.Exp(−d2/2) exactly. It is the
// reference the backends' own loops follow; it panics on an invalid
// family.
func (k Kernel) Cov(d2, sf2 float64) float64 {
	if k == KernelSE {
		return sf2 * math.Exp(-0.5*d2)
	}
	v, _ := maternCov(k, math.Sqrt(d2), sf2)
	return v
}

// maternCov returns, at scaled distance r ≥ 0, the Matérn covariance v and
// its length-scale weight w: ∂v/∂log ℓ_d = w·(x_d − x'_d)²/ℓ_d², that is
// w = −(∂v/∂r)/r (0 at r = 0, where every such derivative is 0).
func maternCov(k Kernel, r, sf2 float64) (v, w float64) {
	switch k {
	case KernelMatern12:
		e := sf2 * math.Exp(-r)
		if r > 0 {
			w = e / r
		}
		return e, w
	case KernelMatern32:
		a := math.Sqrt(3) * r
		e := sf2 * math.Exp(-a)
		return (1 + a) * e, 3 * e
	case KernelMatern52:
		a := math.Sqrt(5) * r
		e := sf2 * math.Exp(-a)
		return (1 + a + a*a/3) * e, 5.0 / 3 * (1 + a) * e
	}
	panic(fmt.Sprintf("linalg: maternCov of %v", k))
}

// KernelBackend is implemented by backends that build GP handles for
// kernel families other than the squared exponential, the family of
// Backend.NewGP. The CPU backends implement it for every family.
type KernelBackend interface {
	// NewGPKernel is Backend.NewGP with the kernel family k: the handle's
	// Kernel, LogLik (value and gradient, with respect to the same
	// log-parameters) and Predict use k. A family the backend lacks gives
	// an error.
	NewGPKernel(k Kernel, x []float64, n, d int, y []float64) (GP, error)
}

var _ KernelBackend = (*cpuBackend)(nil)

// NewGPKernel uploads GP data to the backend b for the kernel family k:
// b.NewGP for the squared exponential, KernelBackend.NewGPKernel for the
// others; a backend that does not implement KernelBackend (the cuda
// backend, so far) refuses them with an error that says so.
func NewGPKernel(b Backend, k Kernel, x []float64, n, d int, y []float64) (GP, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("linalg: gp on backend %s: invalid kernel family %d", b.Name(), int(k))
	}
	if k == KernelSE {
		return b.NewGP(x, n, d, y)
	}
	kb, ok := b.(KernelBackend)
	if !ok {
		return nil, fmt.Errorf("linalg: backend %s has no %s kernel (it has only se): choose another backend or the se kernel", b.Name(), k)
	}
	return kb.NewGPKernel(k, x, n, d, y)
}
