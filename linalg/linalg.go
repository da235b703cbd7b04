package linalg

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/subtemper/subtemper/model"
)

// ErrNotPositiveDefinite is returned (wrapped) when a Cholesky factorisation
// meets a non-positive pivot: the matrix is not positive definite in
// floating point. The workspace contents are unspecified afterwards, but no
// NaN is ever returned as a result.
var ErrNotPositiveDefinite = errors.New("matrix is not positive definite")

// ErrNotFactored is returned by routines that need a Cholesky factor when
// none is held.
var ErrNotFactored = errors.New("no Cholesky factor held: call Cholesky first")

// Backend is a provider of the dense linear algebra on the models' hot
// paths. A Backend is safe for concurrent use; the handles it returns
// (Matrix, GP, MVN) are not, and each goroutine needs its own.
//
// Data are uploaded once, when a handle is created, and stay resident
// (on the device, for a GPU backend); a subset of the observations is given
// as an index list; per evaluation only scalars and gradients cross back.
// Workspaces are sized at creation for the largest subset, so steady-state
// evaluations do not allocate.
type Backend interface {
	// Name is the name under which the backend is registered.
	Name() string
	// NewMatrix returns a square workspace for matrices up to maxN×maxN.
	NewMatrix(maxN int) (Matrix, error)
	// NewGP uploads the inputs x (n×d, row-major) and targets y (n) of a
	// GP regression with the squared-exponential ARD kernel (other
	// families: NewGPKernel).
	NewGP(x []float64, n, d int, y []float64) (GP, error)
	// NewMVN uploads n observations w (n×d, row-major) of a multivariate
	// normal mean model, already whitened by the caller.
	NewMVN(w []float64, n, d int) (MVN, error)
}

// Matrix is a backend-resident square workspace for the dense routines.
// Matrices are row-major. Cholesky reads only the lower triangle.
type Matrix interface {
	// Cap is the largest order the workspace holds.
	Cap() int
	// N is the order of the matrix held now.
	N() int
	// Set uploads the n×n row-major matrix a (n ≤ Cap) and drops any factor.
	Set(n int, a []float64) error
	// Get downloads the n×n matrix held now into dst (len ≥ n·n). After
	// Cholesky the lower triangle holds L (the strict upper triangle is
	// unspecified); after Inverse the whole symmetric inverse is held.
	Get(dst []float64) error
	// Cholesky factors A = L·Lᵀ in place. A matrix that is not positive
	// definite gives an error wrapping ErrNotPositiveDefinite.
	Cholesky() error
	// LogDet returns log det A from the Cholesky factor.
	LogDet() (float64, error)
	// Solve sets x = A⁻¹·b (len n each) from the Cholesky factor. x and b
	// may be the same slice.
	Solve(b, x []float64) error
	// Inverse replaces the factor by the full symmetric inverse A⁻¹.
	Inverse() error
	// Mul sets the receiver to a·b (general matrix multiply, all n×n with
	// n = a.N() = b.N() ≤ Cap); a and b must come from the same backend
	// and be distinct from the receiver.
	Mul(a, b Matrix) error
	// Close releases the workspace.
	Close() error
}

// GP evaluates Gaussian-process regression likelihoods on resident data
// with a stationary ARD kernel, the squared exponential
//
//	k(x, x') = σf² exp(−Σ_d (x_d − x'_d)² / (2 ℓ_d²))
//
// unless the handle was built for another family (Kernel, NewGPKernel),
// and noise variance σn². Hyperparameters are passed in log space,
// u = (log ℓ_1, …, log ℓ_D, log σf, log σn), len D+2.
type GP interface {
	// N is the number of observations, D the input dimension.
	N() int
	D() int
	// SetJitter sets a constant added to the diagonal of every kernel
	// matrix on top of σn² (default 0). It does not enter the gradient.
	SetJitter(jitter float64)
	// Kernel writes K_SS + (σn² + jitter)·I for the subset (nil: all) into
	// dst (len ≥ n², row-major, n = len(subset)).
	Kernel(dst []float64, subset []int, u []float64) error
	// LogLik returns log N(y_S | 0, K_SS + (σn²+jitter)·I) for the subset
	// (nil: all observations) and, if grad is non-nil (len D+2), overwrites
	// grad with its gradient with respect to u. A kernel matrix that is not
	// positive definite gives an error wrapping ErrNotPositiveDefinite.
	LogLik(subset []int, u, grad []float64) (float64, error)
	// Close releases the data and workspaces.
	Close() error
}

// The GP handles of the CPU backends implement model.PrefixLiker (with the
// log-likelihood of a subset S, those of its leading parts S[:k] at the
// same hyperparameters at O(k) extra cost: the Cholesky factor of a
// leading block of K_SS is the leading block of its factor, and the
// leading k entries of L⁻¹y_S are those of the shorter solve) and
// model.GradResumer (the gradient from the factor kept by the last
// evaluation without gradient, on the same subset or a prefix of it).
var (
	_ model.PrefixLiker = (*cpuGP)(nil)
	_ model.GradResumer = (*cpuGP)(nil)
)

// MVN evaluates batched sums of squared distances between resident
// observations w_n (whitened by the caller) and a batch of B points t_b,
// observation by observation with one GEMM over the subset.
type MVN interface {
	// N is the number of observations, D their dimension.
	N() int
	D() int
	// SumSq sets, for each b < B, out[b] = Σ_{n∈S} |w_n − t_b|², where t is
	// B×D row-major and S the subset (nil: all). If resid is non-nil
	// (len B·D) it is set to resid[b,:] = Σ_{n∈S} (w_n − t_b).
	SumSq(subset []int, t []float64, B int, out, resid []float64) error
	// Close releases the data and workspaces.
	Close() error
}

// PrefixMVN is implemented by MVN handles (those of the CPU backends) that
// can give, with the sum of squared distances over a subset S, the sums
// over its leading parts S[:k] from the same pass, when S is held in
// consecutive rows (see model.Reorderer). The subsampling samplers draw nested
// subsets as prefixes of one permutation, so this gives each evaluation
// the values at all hotter levels for free.
type PrefixMVN interface {
	// SumSqPrefixes is SumSq for one point t (B = 1) that also sets, if it
	// returns true, pre[j] = Σ_{n∈S[:ks[j]]} |w_n − t|² for 1 ≤ ks[j] ≤ |S|
	// (len(pre) = len(ks)). It returns false, with out and resid set as
	// SumSq sets them, when S is not held contiguously.
	SumSqPrefixes(subset []int, t, out, resid []float64, ks []int, pre []float64) (bool, error)
}

var _ PrefixMVN = (*cpuMVN)(nil)

// The MVN handles of the CPU backends implement model.Reorderer: a subset
// that is a prefix perm[:k] of the order they were given is then read
// contiguously (and PrefixMVN gives its prefixes' sums).
var _ model.Reorderer = (*cpuMVN)(nil)

var (
	regMu    sync.RWMutex
	registry = map[string]Backend{}
)

// DefaultName is the name of the backend used when none is chosen.
const DefaultName = "gonum"

// Register makes a backend available by its name. It returns an error if
// the name is empty or already taken.
func Register(b Backend) error {
	if b == nil || b.Name() == "" {
		return errors.New("linalg: register: nil backend or empty name")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[b.Name()]; dup {
		return fmt.Errorf("linalg: register: backend %q already registered", b.Name())
	}
	registry[b.Name()] = b
	return nil
}

// Get returns the backend registered under name ("" means DefaultName).
func Get(name string) (Backend, error) {
	if name == "" {
		name = DefaultName
	}
	regMu.RLock()
	defer regMu.RUnlock()
	b, ok := registry[name]
	if !ok {
		names := make([]string, 0, len(registry))
		for n := range registry {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("linalg: backend %q is not compiled in (available: %v; openblas needs -tags openblas, cuda needs -tags cuda)", name, names)
	}
	return b, nil
}

// Names returns the names of the registered backends, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Backends returns the registered backends, sorted by name.
func Backends() []Backend {
	regMu.RLock()
	defer regMu.RUnlock()
	bs := make([]Backend, 0, len(registry))
	for _, b := range registry {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name() < bs[j].Name() })
	return bs
}

// Default returns the pure-Go gonum backend, which is always registered.
func Default() Backend {
	b, _ := Get(DefaultName)
	return b
}

// CloseHandle closes the handle *h and sets it to nil, so that closing it
// again does nothing; a nil *h is not closed. It returns Close's error.
func CloseHandle[H interface {
	comparable
	Close() error
}](h *H) error {
	var none H
	if *h == none {
		return nil
	}
	err := (*h).Close()
	*h = none
	return err
}
