//go:build cuda

package cuda

/*
#cgo CFLAGS: -I/usr/local/cuda/include
#cgo LDFLAGS: -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lcusolver -lcublas -lcuda

#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/subtemper/subtemper/internal/memlimit"
	"github.com/subtemper/subtemper/model"
)

// devptr is a device address (CUdeviceptr).
type devptr = C.CUdeviceptr

// Launch geometry shared with kernels.cu.
const (
	tile     = 32  // TILE
	rows     = 8   // ROWS
	redBlock = 512 // threads of the single-block reductions (power of two ≤ 1024)
	flatBlk  = 256 // threads of the element-wise kernels
)

// cuErr turns a driver result into an error naming the call.
func cuErr(r C.CUresult, what string) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return fmt.Errorf("cuda: %s: %s", what, cuName(r))
}

// cuName is the name and number of a driver result.
func cuName(r C.CUresult) string {
	var name *C.char
	if C.cuGetErrorName(r, &name) != C.CUDA_SUCCESS || name == nil {
		return fmt.Sprintf("CUresult %d", int(r))
	}
	return fmt.Sprintf("%s (%d)", C.GoString(name), int(r))
}

var cublasNames = map[C.cublasStatus_t]string{
	C.CUBLAS_STATUS_NOT_INITIALIZED:  "CUBLAS_STATUS_NOT_INITIALIZED",
	C.CUBLAS_STATUS_ALLOC_FAILED:     "CUBLAS_STATUS_ALLOC_FAILED",
	C.CUBLAS_STATUS_INVALID_VALUE:    "CUBLAS_STATUS_INVALID_VALUE",
	C.CUBLAS_STATUS_ARCH_MISMATCH:    "CUBLAS_STATUS_ARCH_MISMATCH",
	C.CUBLAS_STATUS_MAPPING_ERROR:    "CUBLAS_STATUS_MAPPING_ERROR",
	C.CUBLAS_STATUS_EXECUTION_FAILED: "CUBLAS_STATUS_EXECUTION_FAILED",
	C.CUBLAS_STATUS_INTERNAL_ERROR:   "CUBLAS_STATUS_INTERNAL_ERROR",
	C.CUBLAS_STATUS_NOT_SUPPORTED:    "CUBLAS_STATUS_NOT_SUPPORTED",
}

func blasErr(s C.cublasStatus_t, what string) error {
	if s == C.CUBLAS_STATUS_SUCCESS {
		return nil
	}
	if n, ok := cublasNames[s]; ok {
		return fmt.Errorf("cuda: cublas %s: %s", what, n)
	}
	return fmt.Errorf("cuda: cublas %s: status %d", what, int(s))
}

var cusolverNames = map[C.cusolverStatus_t]string{
	C.CUSOLVER_STATUS_NOT_INITIALIZED:  "CUSOLVER_STATUS_NOT_INITIALIZED",
	C.CUSOLVER_STATUS_ALLOC_FAILED:     "CUSOLVER_STATUS_ALLOC_FAILED",
	C.CUSOLVER_STATUS_INVALID_VALUE:    "CUSOLVER_STATUS_INVALID_VALUE",
	C.CUSOLVER_STATUS_ARCH_MISMATCH:    "CUSOLVER_STATUS_ARCH_MISMATCH",
	C.CUSOLVER_STATUS_EXECUTION_FAILED: "CUSOLVER_STATUS_EXECUTION_FAILED",
	C.CUSOLVER_STATUS_INTERNAL_ERROR:   "CUSOLVER_STATUS_INTERNAL_ERROR",
	C.CUSOLVER_STATUS_NOT_SUPPORTED:    "CUSOLVER_STATUS_NOT_SUPPORTED",
}

func solverErr(s C.cusolverStatus_t, what string) error {
	if s == C.CUSOLVER_STATUS_SUCCESS {
		return nil
	}
	if n, ok := cusolverNames[s]; ok {
		return fmt.Errorf("cuda: cusolver %s: %s", what, n)
	}
	return fmt.Errorf("cuda: cusolver %s: status %d", what, int(s))
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// devAlloc allocates n bytes (at least 8) of device memory.
func devAlloc(n int, what string) (devptr, error) {
	if n < 8 {
		n = 8
	}
	var p devptr
	r := C.cuMemAlloc(&p, C.size_t(n))
	if r == C.CUDA_ERROR_OUT_OF_MEMORY {
		return 0, fmt.Errorf("cuMemAlloc %s (%s): %w", what, gib(int64(n)), model.ErrOutOfMemory)
	}
	if err := cuErr(r, "cuMemAlloc "+what+fmt.Sprintf(" (%d bytes)", n)); err != nil {
		return 0, err
	}
	return p, nil
}

// memGetInfo returns the device's free and total memory in bytes; the
// context is current.
func memGetInfo() (free, total int64, err error) {
	var f, t C.size_t
	if err := cuErr(C.cuMemGetInfo(&f, &t), "cuMemGetInfo"); err != nil {
		return 0, 0, err
	}
	return int64(f), int64(t), nil
}

// fits returns an error wrapping model.ErrOutOfMemory, saying what is
// needed and what is free, when need bytes exceed the device's free
// memory. The context is current.
func fits(need int64, why string) error {
	free, total, err := memGetInfo()
	if err != nil || need <= free {
		return err
	}
	return fmt.Errorf("needs %s of device memory (%s), but %s of the device's %s are free: %w",
		gib(need), why, gib(free), gib(total), model.ErrOutOfMemory)
}

// gib formats a byte count (memlimit.Format).
func gib(b int64) string { return memlimit.Format(float64(b)) }

func devFree(p devptr) {
	if p != 0 {
		C.cuMemFree(p)
	}
}

// pinned is page-locked host memory for asynchronous copies.
type pinned struct {
	p unsafe.Pointer
	n int
}

func pinnedAlloc(n int) (pinned, error) {
	if n < 8 {
		n = 8
	}
	var p unsafe.Pointer
	if err := cuErr(C.cuMemAllocHost(&p, C.size_t(n)), fmt.Sprintf("cuMemAllocHost (%d bytes)", n)); err != nil {
		return pinned{}, err
	}
	return pinned{p: p, n: n}, nil
}

func (h *pinned) free() {
	if h.p != nil {
		C.cuMemFreeHost(h.p)
		h.p, h.n = nil, 0
	}
}

// f64 views the pinned block from byte offset off as n float64.
func (h pinned) f64(off, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Add(h.p, off)), n)
}

// i32 views the pinned block from byte offset off as n int32.
func (h pinned) i32(off, n int) []int32 {
	return unsafe.Slice((*int32)(unsafe.Add(h.p, off)), n)
}

// htod copies n bytes from host src to device dst on stream s. From
// pageable memory the driver stages the data before returning, so src may
// be reused at once; from pinned memory the copy is asynchronous.
func htod(dst devptr, src unsafe.Pointer, n int, s C.CUstream) error {
	if n == 0 {
		return nil
	}
	return cuErr(C.st_memcpy_htod(dst, src, C.size_t(n), s), "cuMemcpyHtoDAsync")
}

// dtoh copies n bytes from device src to host dst on stream s; into
// pageable memory it returns when the copy is done.
func dtoh(dst unsafe.Pointer, src devptr, n int, s C.CUstream) error {
	if n == 0 {
		return nil
	}
	return cuErr(C.st_memcpy_dtoh(dst, src, C.size_t(n), s), "cuMemcpyDtoHAsync")
}

// tiles is the number of lower TILE×TILE tiles of an n×n matrix.
func tiles(n int) int {
	t := (n + tile - 1) / tile
	return t * (t + 1) / 2
}

// chunks returns a fixed split of rows into at most maxBlocks blocks of
// rpb rows each (a multiple of rows), and the number of blocks. The split
// depends on the row count only, so reductions are reproducible.
func chunks(n, maxBlocks int) (rpb, nb int) {
	rpb = (n + maxBlocks - 1) / maxBlocks
	if rpb < 64 {
		rpb = 64
	}
	rpb = (rpb + rows - 1) / rows * rows
	nb = (n + rpb - 1) / rpb
	return rpb, nb
}

// grid1 is the number of blocks of flatBlk threads for n elements, capped.
func grid1(n int) C.uint {
	g := (n + flatBlk - 1) / flatBlk
	if g < 1 {
		g = 1
	}
	if g > 65535 {
		g = 65535
	}
	return C.uint(g)
}
