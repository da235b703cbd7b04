//go:build cuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/subtemper/subtemper/model"
)

// The GP handle gives, as the CPU backends' do, the log-likelihoods of a
// subset's leading parts from the same factor (model.PrefixLiker) and the
// gradient from the factor kept by an evaluation without one
// (model.GradResumer), so that SPT's and STT's shortcuts are taken on the
// GPU too.
var (
	_ model.PrefixLiker = (*gp)(nil)
	_ model.GradResumer = (*gp)(nil)
)

// kept records the evaluation without gradient whose factor is still in
// the handle's kernel buffer (and α, the subset's targets and scaled
// inputs in theirs).
type kept struct {
	ok  bool
	u   []float64 // the point, len D+2
	sub []int     // the subset, empty for all observations (capacity n, allocated once)
	m   int       // its size
}

// keep records that the buffers hold the factor of the subset's kernel at u.
func (g *gp) keep(subset []int, u []float64, m int) {
	k := &g.kept
	copy(k.u, u)
	k.sub = append(k.sub[:0], subset...)
	k.m, k.ok = m, true
}

// at reports whether the kept point is u, bit for bit.
func (k *kept) at(u []float64) bool {
	if len(u) != len(k.u) {
		return false
	}
	for i, v := range u {
		if math.Float64bits(v) != math.Float64bits(k.u[i]) {
			return false
		}
	}
	return true
}

// prefixOf reports whether the subset of m observations (nil: all of
// them, in order) is a leading part of the kept one.
func (k *kept) prefixOf(subset []int, m int) bool {
	if m > k.m {
		return false
	}
	for r := range m {
		i, ki := r, r
		if subset != nil {
			i = subset[r]
		}
		if len(k.sub) > 0 {
			ki = k.sub[r]
		}
		if i != ki {
			return false
		}
	}
	return true
}

// checkPrefixes validates the prefix lengths ks, with their values' slice
// pre, for a subset of m observations, and returns the longest (0 for
// none); what names the handle in errors.
func checkPrefixes(what string, ks []int, pre []float64, m int) (kmax int, err error) {
	if len(pre) != len(ks) {
		return 0, fmt.Errorf("linalg/cuda: %s: %d prefix lengths and %d values", what, len(ks), len(pre))
	}
	for _, k := range ks {
		if k < 1 || k > m {
			return 0, fmt.Errorf("linalg/cuda: %s: prefix of %d observations of a subset of %d", what, k, m)
		}
		kmax = max(kmax, k)
	}
	return kmax, nil
}

// LogLikPrefixes is LogLik that also sets pre[j] to the log-likelihood of
// the leading ks[j] observations of the subset: with L the kernel's
// factor, the leading block of L is the prefix's factor and the leading
// entries of v = L⁻¹y the prefix's, so pre[j] = −½Σ_{i<k} v_i² −
// Σ_{i<k} log L_ii − ½k·log 2π. One cublasDtrsv on the longest prefix's
// block and a strided copy of L's diagonal are enqueued before the
// gradient's work; both vectors come back in the evaluation's one
// synchronisation and the sums are taken on the host in a fixed order.
// The full value and gradient are LogLik's.
func (g *gp) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	ll, err := g.logLik(subset, u, grad, ks, pre)
	return ll, err == nil, err
}

// enqueuePrefixes enqueues the leading kmax entries of v = L⁻¹y_S (into w;
// forward substitution, so they need only the leading kmax×kmax block of
// the m×m factor) and of diag(L) (into q), and their copies to the pinned
// prefix buffer, after the factorisation and before anything overwrites
// L, w or q.
func (g *gp) enqueuePrefixes(m, kmax int) error {
	h := g.h
	if g.pre.p == nil {
		var err error
		if g.pre, err = pinnedAlloc(16 * g.n); err != nil {
			return err
		}
	}
	return firstErr(
		cuErr(C.cuMemcpyDtoDAsync(g.w, g.ys, C.size_t(8*kmax), h.stream), "cuMemcpyDtoDAsync"),
		blasErr(C.st_dtrsv_lower(h.blas, C.int(kmax), g.a, C.int(m), g.w), "dtrsv"),
		blasErr(C.st_dcopy(h.blas, C.int(kmax), g.a, C.int(m+1), g.q, 1), "dcopy"),
		dtoh(g.pre.p, g.w, 8*kmax, h.stream),
		dtoh(unsafe.Add(g.pre.p, 8*g.n), g.q, 8*kmax, h.stream),
	)
}

// prefixValues sets pre from the vectors enqueuePrefixes brought back,
// for prefixes of at most kmax observations.
func (g *gp) prefixValues(kmax int, ks []int, pre []float64) {
	v, l := g.pre.f64(0, kmax), g.pre.f64(8*g.n, kmax)
	var quad, logdet float64
	for i := range kmax {
		quad += v[i] * v[i]
		logdet += math.Log(l[i])
		for j, k := range ks {
			if k == i+1 {
				pre[j] = -0.5*quad - logdet - 0.5*float64(k)*math.Log(2*math.Pi)
			}
		}
	}
}

// LogLikResume is LogLik with a gradient from the factor the last
// evaluation without gradient kept, at the same u, on a leading part of
// its subset. On the same subset only the gradient's work runs (the
// inverse from the factor, P, the reduction), and value and gradient are
// LogLik's bit for bit. On a shorter prefix of k observations the leading
// k×k block of the factor (column stride m) is packed into a second n×n
// buffer with one strided copy, which then becomes the kernel buffer (it
// is allocated the first time, at 8n² bytes; where that fails the resume
// is refused), and α, the quadratic form and log-determinant of the prefix
// are taken from it (potrs, gp_quad_logdet) before the gradient's work.
func (g *gp) LogLikResume(subset []int, u, grad []float64) (float64, bool, error) {
	if len(grad) != g.d+2 {
		return 0, false, fmt.Errorf("linalg/cuda: gp: gradient of length %d, want %d", len(grad), g.d+2)
	}
	k := &g.kept
	if !k.ok || g.h == nil || !k.at(u) {
		return 0, false, nil
	}
	m, err := checkSubset(subset, g.n)
	if err != nil {
		return 0, false, err
	}
	if !k.prefixOf(subset, m) {
		return 0, false, nil
	}
	leave, err := g.h.dev.enter()
	if err != nil {
		return 0, false, fmt.Errorf("linalg/cuda: gp: %w", err)
	}
	defer leave()
	if m < k.m && g.spare == 0 {
		if g.spare, err = devAlloc(8*g.n*g.n, "kernel matrix for prefixes"); err != nil {
			return 0, false, nil
		}
	}
	km := k.m
	k.ok = false
	if m < km {
		if err := g.packPrefix(m, km); err != nil {
			return math.Inf(-1), true, fmt.Errorf("linalg/cuda: gp: resume on a prefix of %d of %d: %w", m, km, err)
		}
	}
	if err := g.enqueueGrad(m); err != nil {
		return math.Inf(-1), true, fmt.Errorf("linalg/cuda: gp: gradient of order %d: %w", m, err)
	}
	ll, err := g.finish(m, grad)
	return ll, true, err
}

// packPrefix enqueues the packing of the leading m×m block of the factor
// of order km into the spare buffer, which becomes the kernel buffer, and
// the prefix's α, quadratic form, log-determinant and pivot check.
func (g *gp) packPrefix(m, km int) error {
	h, fn := g.h, &g.h.dev.fn
	info := g.res + devptr(g.infoOff())
	if err := cuErr(C.st_memcpy2d_dtod(g.spare, C.size_t(8*m), g.a, C.size_t(8*km), C.size_t(8*m), C.size_t(m), h.stream), "cuMemcpy2DAsync"); err != nil {
		return err
	}
	g.a, g.spare = g.spare, g.a
	return firstErr(
		cuErr(C.cuMemsetD32Async(info, 0, 3, h.stream), "cuMemsetD32Async"),
		cuErr(C.cuMemcpyDtoDAsync(g.alpha, g.ys, C.size_t(8*m), h.stream), "cuMemcpyDtoDAsync"),
		h.potrs(m, 1, g.a, g.alpha, info+8),
		cuErr(C.k_gp_quad_logdet(fn.gpQuadLogdet, redBlock, h.stream, g.a, C.int(m), g.ys, g.alpha, info, g.res), "launch gp_quad_logdet"),
	)
}
