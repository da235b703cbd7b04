//go:build cuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/model"
)

// The MVN handle, as the CPU backends' do, lays its observations out in a
// given order (model.Reorderer), so that the subsampling samplers'
// subsets, prefixes of one permutation, are read from leading rows
// without a gather, and gives the sums over such a subset's leading parts
// from the same evaluation (linalg.PrefixMVN).
var (
	_ model.Reorderer  = (*mvn)(nil)
	_ linalg.PrefixMVN = (*mvn)(nil)
)

// Reorder lays the observations out in the order perm on the device: one
// gather of the rows of [W |w|²] into the gather buffer and one copy back.
func (m *mvn) Reorder(perm []int) error {
	if m.h == nil {
		return fmt.Errorf("linalg/cuda: mvn: %w", errClosed)
	}
	n := m.n
	if len(perm) != n {
		return fmt.Errorf("linalg/cuda: mvn: reorder: permutation of %d for %d observations", len(perm), n)
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = -1
	}
	for r, i := range perm {
		if i < 0 || i >= n || pos[i] >= 0 {
			return fmt.Errorf("linalg/cuda: mvn: reorder: perm[%d] = %d is not a new index in 0..%d", r, i, n-1)
		}
		pos[i] = int32(r)
	}
	// Row r of the new layout is observation perm[r], now in row
	// m.pos[perm[r]].
	idx := make([]int32, n)
	for r, i := range perm {
		idx[r] = int32(i)
		if m.pos != nil {
			idx[r] = m.pos[i]
		}
	}
	leave, err := m.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: mvn: reorder: %w", err)
	}
	defer leave()
	dIdx, err := devAlloc(4*n, "permutation")
	if err != nil {
		return fmt.Errorf("linalg/cuda: mvn: reorder: %w", err)
	}
	h, fn, d := m.h, &m.h.dev.fn, m.d
	err = firstErr(
		htod(dIdx, unsafe.Pointer(&idx[0]), 4*n, h.stream),
		cuErr(C.k_gather_rows(fn.gatherRows, grid1(n*(d+1)), flatBlk, h.stream, m.wx, dIdx,
			C.int(n), C.int(d+1), C.int(d+1), m.gat), "launch gather_rows"),
		cuErr(C.cuMemcpyDtoDAsync(m.wx, m.gat, C.size_t(8*n*(d+1)), h.stream), "cuMemcpyDtoDAsync"),
		h.sync("mvn reorder"),
	)
	devFree(dIdx)
	if err != nil {
		return fmt.Errorf("linalg/cuda: mvn: reorder: %w", err)
	}
	m.pos = pos
	return nil
}

// leading reports whether the subset (nil: all observations in their
// original order) is held in rows 0..k−1, in its order.
func (m *mvn) leading(subset []int) bool {
	if subset == nil {
		return m.pos == nil
	}
	for r, i := range subset {
		if m.pos == nil && i != r || m.pos != nil && m.pos[i] != int32(r) {
			return false
		}
	}
	return true
}

// SumSqPrefixes is SumSq for one point that, when the subset is held in
// leading rows (all observations before any Reorder, or a prefix of the
// order Reorder was given), also sets pre[j] to the sum over the subset's
// first ks[j] observations: the entries g_r = w_r·t and |w_r|² of those
// rows come back with the evaluation and |w_r − t|² = |w_r|² − 2g_r + |t|²
// is summed on the host in row order. Otherwise it returns false, with
// out and resid set.
func (m *mvn) SumSqPrefixes(subset []int, t, out, resid []float64, ks []int, pre []float64) (bool, error) {
	k := m.n
	if subset != nil {
		k = len(subset)
	}
	kmax, err := checkPrefixes("mvn", ks, pre, k)
	if err != nil {
		return false, err
	}
	gave, err := m.sumSq(subset, t, 1, out, resid, kmax)
	if err != nil || !gave {
		return false, err
	}
	d := m.d
	var tt float64
	for _, v := range t[:d] {
		tt += v * v
	}
	g, w2 := m.pre.f64(0, kmax), m.pre.f64(8*m.n, kmax)
	var s float64
	for r := range kmax {
		s += w2[r] - 2*g[r] + tt
		for j, kk := range ks {
			if kk == r+1 {
				pre[j] = s
			}
		}
	}
	return true, nil
}

// enqueuePrefixes enqueues, after the GEMM, the copies of G's first kmax
// entries and of the squared norms of src's first kmax rows (a strided
// copy into the gather buffer, unused when the rows are leading) to the
// pinned prefix buffer.
func (m *mvn) enqueuePrefixes(src devptr, kmax int) error {
	h, d := m.h, m.d
	if m.pre.p == nil {
		var err error
		if m.pre, err = pinnedAlloc(16 * m.n); err != nil {
			return err
		}
	}
	return firstErr(
		blasErr(C.st_dcopy(h.blas, C.int(kmax), src+devptr(8*d), C.int(d+1), m.gat, 1), "dcopy"),
		dtoh(m.pre.p, m.g, 8*kmax, h.stream),
		dtoh(unsafe.Add(m.pre.p, 8*m.n), m.gat, 8*kmax, h.stream),
	)
}
