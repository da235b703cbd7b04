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

// predictBlockValues bounds the cross-kernel block of Predict: block·n
// values (64 MiB on the device), so that at N = 442 one block holds 18 978
// test inputs and one TRSM serves them all.
const predictBlockValues = 1 << 23

var _ linalg.PredictGP = (*gp)(nil)

// predictBufs are Predict's device buffers for blocks of up to block test
// inputs, and the host scratch that feeds and drains them.
type predictBufs struct {
	block   int
	zt      devptr    // block×d scaled test inputs, row-major
	ks      devptr    // n×block column-major: K*ᵀ, then L⁻¹K*ᵀ
	res     devptr    // 2·block: the means, then the squared norms of L⁻¹k_t
	zh, out []float64 // host sides of zt and res
}

func (p *predictBufs) free() {
	for _, q := range []devptr{p.zt, p.ks, p.res} {
		devFree(q)
	}
	*p = predictBufs{}
}

// ensure makes room for blocks of block test inputs at n observations and
// d dimensions. The caller holds the context.
func (p *predictBufs) ensure(block, n, d int) error {
	if p.block >= block {
		return nil
	}
	p.free()
	var err error
	if p.zt, err = devAlloc(8*block*d, "predict test inputs"); err != nil {
		return err
	}
	if p.ks, err = devAlloc(8*block*n, "predict cross-kernel"); err != nil {
		p.free()
		return err
	}
	if p.res, err = devAlloc(16*block, "predict results"); err != nil {
		p.free()
		return err
	}
	p.zh, p.out = make([]float64, block*d), make([]float64, 2*block)
	p.block = block
	return nil
}

// Predict implements linalg.PredictGP on the device. One synchronisation
// checks the factorisation: the kernel over all N observations is built
// (gp_scale, gp_kernel), factored (potrf), α = A⁻¹y solved (potrs) and the
// factor's pivots checked (gp_quad_logdet). Then per block of test inputs
// (at most predictBlockValues/N of them, all 10 000 at N = 442), one
// synchronisation: the host scales the block's inputs and one copy sends
// them; gp_cross builds K*ᵀ (N×b, column-major, a test input's kernel
// vector per column); gp_coldot reduces its columns against α (the means);
// one cublasDtrsm overwrites it with L⁻¹K*ᵀ, b right-hand sides at once;
// gp_coldot reduces the columns' squares; one copy brings back 2b numbers.
// The latent variance is σf² − ‖L⁻¹k_t‖², clamped at 0, as on the CPU.
func (g *gp) Predict(xt []float64, nt int, u, mean, varf []float64) error {
	g.kept.ok = false // the kernel buffer is rebuilt on all observations
	n, d := g.n, g.d
	if nt < 0 || len(xt) != nt*d || len(mean) < nt || len(varf) < nt {
		return fmt.Errorf("linalg/cuda: gp predict: %d test inputs of dimension %d: len(xt) = %d, len(mean) = %d, len(varf) = %d", nt, d, len(xt), len(mean), len(varf))
	}
	for i, v := range xt {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/cuda: gp predict: test input x[%d,%d] = %v", i/d, i%d, v)
		}
	}
	if _, _, err := g.prepare(nil, u); err != nil {
		return fmt.Errorf("gp predict: %w", err)
	}
	if nt == 0 {
		return nil
	}
	leave, err := g.h.dev.enter()
	if err != nil {
		return fmt.Errorf("linalg/cuda: gp predict: %w", err)
	}
	defer leave()
	block := max(1, min(nt, predictBlockValues/n))
	if err := g.pred.ensure(block, n, d); err != nil {
		return fmt.Errorf("linalg/cuda: gp predict at %d×%d: %w", n, d, err)
	}
	h, fn := g.h, &g.h.dev.fn
	if err := firstErr(
		g.enqueueFactor(n, 0),
		dtoh(g.out.p, g.res, g.resBytes(), h.stream),
		h.sync("gp predict factorisation"),
	); err != nil {
		return fmt.Errorf("linalg/cuda: gp predict: factorisation of order %d: %w", n, err)
	}
	if err := g.factorErr(n); err != nil {
		return fmt.Errorf("linalg/cuda: gp predict: %w", err)
	}
	p := &g.pred
	for lo := 0; lo < nt; lo += block {
		b := min(block, nt-lo)
		zh := p.zh[:b*d]
		for t := range b {
			for j, v := range xt[(lo+t)*d : (lo+t)*d+d] {
				zh[t*d+j] = (v - g.xmean[j]) / g.ell[j]
			}
		}
		gy := min((b+rows-1)/rows, 65535)
		gc := min(b, 65535)
		if err := firstErr(
			htod(p.zt, unsafe.Pointer(&zh[0]), 8*b*d, h.stream),
			cuErr(C.k_gp_cross(fn.gpCross, C.uint((n+tile-1)/tile), C.uint(gy), tile, rows, h.stream,
				g.z, C.int(n), C.int(d), p.zt, C.int(b), C.double(g.sf2), p.ks), "launch gp_cross"),
			cuErr(C.k_gp_coldot(fn.gpColdot, C.uint(gc), flatBlk, h.stream, p.ks, C.int(n), C.int(b), g.alpha, p.res), "launch gp_coldot"),
			blasErr(C.st_dtrsm_left_lower(h.blas, C.int(n), C.int(b), g.a, C.int(n), p.ks, C.int(n)), "dtrsm"),
			cuErr(C.k_gp_coldot(fn.gpColdot, C.uint(gc), flatBlk, h.stream, p.ks, C.int(n), C.int(b), 0, p.res+devptr(8*b)), "launch gp_coldot"),
			dtoh(unsafe.Pointer(&p.out[0]), p.res, 16*b, h.stream),
			h.sync("gp predict"),
		); err != nil {
			return fmt.Errorf("linalg/cuda: gp predict: %d test inputs at order %d: %w", b, n, err)
		}
		copy(mean[lo:lo+b], p.out[:b])
		for t, v := range p.out[b : 2*b] {
			varf[lo+t] = max(g.sf2-v, 0)
		}
	}
	return nil
}
