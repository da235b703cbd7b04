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

	"github.com/subtemper/subtemper/linalg"
)

// maxSumBlocks caps the row blocks of the column-sum reductions.
const maxSumBlocks = 256

// NewMVN uploads the observations as [W |w|²] (n×(d+1), the squared norms
// computed once on the host) and allocates the gather buffer; the
// batch-dependent buffers grow on demand with the largest batch seen.
func (b *backend) NewMVN(w []float64, n, d int) (linalg.MVN, error) {
	if n < 1 || d < 1 || len(w) != n*d {
		return nil, fmt.Errorf("linalg/cuda: mvn data: %d values for %d×%d", len(w), n, d)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/cuda: mvn data: w[%d,%d] = %v", i/d, i%d, v)
		}
	}
	dev, err := b.device()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new mvn: %w", err)
	}
	wx := make([]float64, n*(d+1))
	for i := 0; i < n; i++ {
		var s float64
		for j, v := range w[i*d : i*d+d] {
			wx[i*(d+1)+j] = v
			s += v * v
		}
		wx[i*(d+1)+d] = s
	}
	leave, err := dev.enter()
	if err != nil {
		return nil, fmt.Errorf("linalg/cuda: new mvn: %w", err)
	}
	defer leave()
	m := &mvn{n: n, d: d}
	if m.h, err = newHandles(dev, 0); err == nil {
		if m.wx, err = devAlloc(8*n*(d+1), "observations"); err == nil {
			if m.gat, err = devAlloc(8*n*(d+1), "gathered observations"); err == nil {
				if m.pw, err = devAlloc(8*maxSumBlocks*(d+1), "partial sums"); err == nil {
					err = firstErr(
						htod(m.wx, unsafe.Pointer(&wx[0]), 8*len(wx), m.h.stream),
						m.h.sync("upload"),
					)
				}
			}
		}
	}
	if err != nil {
		m.free()
		return nil, fmt.Errorf("linalg/cuda: new mvn of %d×%d: %w", n, d, err)
	}
	return m, nil
}

// mvn is a linalg.MVN on the device.
type mvn struct {
	h    *handles
	n, d int
	wx   devptr // n×(d+1): [W |w|²]
	gat  devptr // gathered subset rows
	pw   devptr // maxSumBlocks×(d+1) partial column sums of [W_S |w|²]

	capB  int    // the batch the buffers below hold
	in    devptr // t (B×d), then the subset (n int32)
	g     devptr // n×B: G = W_S·Tᵀ
	pg    devptr // maxSumBlocks×B partial column sums of G
	res   devptr // out (B), then resid (B×d)
	stage pinned // host side of in
	out   pinned // host side of res

	pos []int32 // the row of each observation since Reorder (nil: row i holds observation i)
	pre pinned  // host side of G's and the squared norms' leading entries, for SumSqPrefixes
}

func (m *mvn) N() int { return m.n }
func (m *mvn) D() int { return m.d }

func (m *mvn) Close() error {
	if m.h == nil {
		return nil
	}
	leave, err := m.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: close mvn: %w", err)
	}
	defer leave()
	m.free()
	return nil
}

func (m *mvn) freeBatch() {
	for _, p := range []devptr{m.in, m.g, m.pg, m.res} {
		devFree(p)
	}
	m.in, m.g, m.pg, m.res = 0, 0, 0, 0
	m.stage.free()
	m.out.free()
	m.capB = 0
}

func (m *mvn) free() {
	if m.h != nil && m.h.stream != nil {
		C.cuStreamSynchronize(m.h.stream)
	}
	m.freeBatch()
	m.pre.free()
	devFree(m.wx)
	devFree(m.gat)
	devFree(m.pw)
	m.h.destroy()
	*m = mvn{n: m.n, d: m.d}
}

// grow makes the batch buffers hold a batch of B; the context is current
// and the stream idle.
func (m *mvn) grow(B int) error {
	if B <= m.capB {
		return nil
	}
	m.freeBatch()
	n, d := m.n, m.d
	var err error
	if m.in, err = devAlloc(8*B*d+4*n, "batch and subset"); err != nil {
		return err
	}
	if m.g, err = devAlloc(8*n*B, "products"); err != nil {
		return err
	}
	if m.pg, err = devAlloc(8*maxSumBlocks*B, "partial sums"); err != nil {
		return err
	}
	if m.res, err = devAlloc(8*B*(d+1), "results"); err != nil {
		return err
	}
	if m.stage, err = pinnedAlloc(8*B*d + 4*n); err != nil {
		return err
	}
	if m.out, err = pinnedAlloc(8 * B * (d + 1)); err != nil {
		return err
	}
	m.capB = B
	return nil
}

// SumSq gathers the subset (gather_rows; not when it is held in leading
// rows, see Reorder), forms G = W_S·Tᵀ with one cublasDgemm, reduces the
// columns of G and of [W_S |w|²] in two blocked stages and finishes on the
// device (mvn_final); only out (and resid) come back, after one
// synchronisation.
func (m *mvn) SumSq(subset []int, t []float64, B int, out, resid []float64) error {
	_, err := m.sumSq(subset, t, B, out, resid, 0)
	return err
}

// sumSq is SumSq that, with kmax > 0 (and B = 1) and the subset held in
// leading rows, also brings back the first kmax entries of G and of the
// squared norms into m.pre, in the same synchronisation, and reports
// whether it did.
func (m *mvn) sumSq(subset []int, t []float64, B int, out, resid []float64, kmax int) (bool, error) {
	if m.h == nil {
		return false, fmt.Errorf("linalg/cuda: mvn: %w", errClosed)
	}
	k, err := checkSubset(subset, m.n)
	if err != nil {
		return false, err
	}
	d := m.d
	if B < 1 || len(t) < B*d || len(out) < B || (resid != nil && len(resid) < B*d) {
		return false, fmt.Errorf("linalg/cuda: mvn: batch of %d with len(t) = %d, len(out) = %d, len(resid) = %d (D = %d)", B, len(t), len(out), len(resid), d)
	}
	leave, err := m.h.dev.enter()
	if err != nil {
		return false, fmt.Errorf("linalg/cuda: mvn: %w", err)
	}
	defer leave()
	if err := m.grow(B); err != nil {
		m.freeBatch()
		return false, fmt.Errorf("linalg/cuda: mvn: buffers for a batch of %d: %w", B, err)
	}
	h, fn := m.h, &m.h.dev.fn
	copy(m.stage.f64(0, B*d), t[:B*d])
	nbytes := 8 * B * d
	// Rows 0..k−1 hold the subset, in its order, when it is a prefix of
	// the layout; all rows hold all observations in some order, which a
	// sum does not see (but its prefixes do).
	leading := m.leading(subset)
	gather := !leading && subset != nil
	if gather {
		idx := m.stage.i32(8*B*d, k)
		for r, i := range subset {
			idx[r] = int32(i)
			if m.pos != nil {
				idx[r] = m.pos[i]
			}
		}
		nbytes += 4 * k
	}
	upload := htod(m.in, m.stage.p, nbytes, h.stream)
	src, gathered := m.wx, error(nil)
	if gather {
		src = m.gat
		gathered = cuErr(C.k_gather_rows(fn.gatherRows, grid1(k*(d+1)), flatBlk, h.stream, m.wx,
			m.in+devptr(8*B*d), C.int(k), C.int(d+1), C.int(d+1), m.gat), "launch gather_rows")
	}
	var residPtr devptr
	outBytes := 8 * B
	if resid != nil {
		residPtr = m.res + devptr(8*B)
		outBytes += 8 * B * d
	}
	gemm := m.h.gemm(true, false, B, k, d, 1, m.in, d, src, d+1, 0, m.g, B)
	prefixes := kmax > 0 && B == 1 && leading
	var preErr error
	if prefixes { // after the GEMM, in stream order
		preErr = m.enqueuePrefixes(src, kmax)
	}
	rpb, nb := chunks(k, maxSumBlocks)
	if err := firstErr(
		upload, gathered, gemm, preErr,
		cuErr(C.k_colsum_partial(fn.colsumPartial, C.uint((B+tile-1)/tile), C.uint(nb), tile, rows, h.stream,
			m.g, C.int(k), C.int(B), C.int(B), C.int(rpb), m.pg), "launch colsum_partial (G)"),
		cuErr(C.k_colsum_partial(fn.colsumPartial, C.uint((d+1+tile-1)/tile), C.uint(nb), tile, rows, h.stream,
			src, C.int(k), C.int(d+1), C.int(d+1), C.int(rpb), m.pw), "launch colsum_partial (W)"),
		cuErr(C.k_mvn_final(fn.mvnFinal, grid1(B*(d+1)), flatBlk, h.stream, m.pg, C.int(nb), m.pw, C.int(nb),
			m.in, C.int(B), C.int(d), C.int(k), m.res, residPtr), "launch mvn_final"),
		dtoh(m.out.p, m.res, outBytes, h.stream),
		h.sync("mvn"),
	); err != nil {
		return false, fmt.Errorf("linalg/cuda: mvn: batch of %d over %d observations: %w", B, k, err)
	}
	copy(out[:B], m.out.f64(0, B))
	if resid != nil {
		copy(resid[:B*d], m.out.f64(8*B, B*d))
	}
	return prefixes, nil
}
