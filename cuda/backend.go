//go:build cuda

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/subtemper/subtemper/linalg"
)

//go:generate sh gen_ptx.sh

// kernelsPTX is kernels.cu compiled to PTX (see go:generate above and the
// package documentation).
//
//go:embed kernels.ptx
var kernelsPTX string

// Compiled reports whether the package was built with the cuda tag.
const Compiled = true

// Compile-time check that the backend satisfies the contract.
var _ linalg.Backend = (*backend)(nil)

func init() {
	// The backend is registered whenever the package is compiled in; the
	// device is initialised lazily, by the first constructor, so that a
	// binary built with -tags cuda starts (and runs its other backends) on
	// a machine without a GPU, and `--backend cuda` there fails with an
	// error that says no device is present rather than "not compiled in".
	if err := linalg.Register(theBackend); err != nil {
		panic(err) // unreachable: "cuda" is registered only here
	}
}

var theBackend = &backend{}

// backend is the "cuda" linalg.Backend. Its device state is created once,
// on first use, and shared by every handle: the primary context of one
// device and the module of custom kernels. Each handle owns a stream, a
// cuBLAS and a cuSOLVER handle and its device buffers.
type backend struct {
	once sync.Once
	dev  *device
	err  error
}

// device is the initialised device.
type device struct {
	ordinal int
	name    string
	cc      [2]int
	mem     int64
	ctx     C.CUcontext
	mod     C.CUmodule
	fn      kernels
}

// kernels are the functions of kernels.cu.
type kernels struct {
	gpScale, gpKernel, gpPmat, gpQuadLogdet, gpGradPartial, gpGradFinal C.CUfunction
	mirror, trtriLeaf, lauumLeaf, colsumPartial, gatherRows, mvnFinal   C.CUfunction
	logdetDiag, gpCross, gpColdot                                       C.CUfunction
}

func (b *backend) Name() string { return "cuda" }

// Available implements linalg.Availabler: nil when a device can be used,
// so that linalg.FastestName picks this backend only on a GPU machine.
func (b *backend) Available() error {
	_, err := b.device()
	return err
}

var _ linalg.Availabler = (*backend)(nil)

// Available reports whether a CUDA device can be used: nil, or an error
// wrapping ErrNoDevice when the driver finds none (or cannot start), or
// another error when the device is present but could not be set up.
func Available() error {
	_, err := theBackend.device()
	return err
}

// DeviceName returns the name and compute capability of the device in
// use, initialising it if needed.
func DeviceName() (string, error) {
	d, err := theBackend.device()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (sm_%d%d, %.1f GiB)", d.name, d.cc[0], d.cc[1], float64(d.mem)/(1<<30)), nil
}

// MemInfo returns the free and total memory, in bytes, of the device in
// use (initialising it on first use), or an error wrapping ErrNoDevice
// where there is none.
func MemInfo() (free, total int64, err error) {
	d, err := theBackend.device()
	if err != nil {
		return 0, 0, err
	}
	leave, err := d.enter()
	if err != nil {
		return 0, 0, err
	}
	defer leave()
	return memGetInfo()
}

// defaultSync is how host threads wait for the device when
// SUBTEMPER_CUDA_SYNC is unset: blocking, which on an H200 cost 1–3% more
// time per evaluation than the driver's spinning (N = 2048 and 8192) and
// cut the host CPU of a whole N = 4096 fit ninefold.
const defaultSync = "blocking"

// schedFlags reads SUBTEMPER_CUDA_SYNC, how a host thread waits for the
// device: "spin" (busy-waits, the driver's choice when it has the cores:
// a full host core per waiting thread), "yield" (spins but yields its
// core), "blocking" (sleeps until the device signals), "auto" (the
// driver's heuristic). The default is defaultSync.
func schedFlags() (C.uint, error) {
	s := os.Getenv("SUBTEMPER_CUDA_SYNC")
	if s == "" {
		s = defaultSync
	}
	switch s {
	case "auto":
		return C.CU_CTX_SCHED_AUTO, nil
	case "spin":
		return C.CU_CTX_SCHED_SPIN, nil
	case "yield":
		return C.CU_CTX_SCHED_YIELD, nil
	case "blocking":
		return C.CU_CTX_SCHED_BLOCKING_SYNC, nil
	}
	return 0, fmt.Errorf("cuda: SUBTEMPER_CUDA_SYNC=%q: want auto, spin, yield or blocking", s)
}

func (b *backend) device() (*device, error) {
	b.once.Do(func() { b.dev, b.err = openDevice() })
	return b.dev, b.err
}

// openDevice initialises the driver, retains the primary context of the
// device SUBTEMPER_CUDA_DEVICE (default 0) and loads the kernels.
// Long: one straight-line sequence of driver calls, in the order the
// driver needs them, on one locked OS thread, each checked as it comes.
func openDevice() (*device, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := C.cuInit(0); r != C.CUDA_SUCCESS {
		return nil, fmt.Errorf("%w (cuInit: %s)", ErrNoDevice, cuName(r))
	}
	var count C.int
	if r := C.cuDeviceGetCount(&count); r != C.CUDA_SUCCESS {
		return nil, fmt.Errorf("%w (cuDeviceGetCount: %s)", ErrNoDevice, cuName(r))
	}
	if count == 0 {
		return nil, fmt.Errorf("%w (the driver reports 0 devices)", ErrNoDevice)
	}
	ord := 0
	if s := os.Getenv("SUBTEMPER_CUDA_DEVICE"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v >= int(count) {
			return nil, fmt.Errorf("cuda: SUBTEMPER_CUDA_DEVICE=%q: want an ordinal in 0..%d", s, int(count)-1)
		}
		ord = v
	}
	d := &device{ordinal: ord}
	var dev C.CUdevice
	if err := cuErr(C.cuDeviceGet(&dev, C.int(ord)), "cuDeviceGet"); err != nil {
		return nil, err
	}
	var name [256]C.char
	if err := cuErr(C.cuDeviceGetName(&name[0], C.int(len(name)), dev), "cuDeviceGetName"); err != nil {
		return nil, err
	}
	d.name = C.GoString(&name[0])
	var maj, mnr C.int
	if err := firstErr(
		cuErr(C.cuDeviceGetAttribute(&maj, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute"),
		cuErr(C.cuDeviceGetAttribute(&mnr, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute"),
	); err != nil {
		return nil, err
	}
	d.cc = [2]int{int(maj), int(mnr)}
	var mem C.size_t
	if err := cuErr(C.cuDeviceTotalMem(&mem, dev), "cuDeviceTotalMem"); err != nil {
		return nil, err
	}
	d.mem = int64(mem)
	sched, err := schedFlags()
	if err != nil {
		return nil, err
	}
	if err := cuErr(C.cuDevicePrimaryCtxSetFlags(dev, sched), "cuDevicePrimaryCtxSetFlags"); err != nil {
		return nil, err
	}
	if err := cuErr(C.cuDevicePrimaryCtxRetain(&d.ctx, dev), "cuDevicePrimaryCtxRetain"); err != nil {
		return nil, err
	}
	if err := cuErr(C.cuCtxSetCurrent(d.ctx), "cuCtxSetCurrent"); err != nil {
		return nil, err
	}
	ptx := C.CString(kernelsPTX)
	defer C.free(unsafe.Pointer(ptx))
	if err := cuErr(C.cuModuleLoadData(&d.mod, unsafe.Pointer(ptx)), "cuModuleLoadData (kernels.ptx)"); err != nil {
		return nil, fmt.Errorf("%w (device %s, sm_%d%d)", err, d.name, maj, mnr)
	}
	for _, f := range []struct {
		p    *C.CUfunction
		name string
	}{
		{&d.fn.gpScale, "gp_scale"}, {&d.fn.gpKernel, "gp_kernel"}, {&d.fn.gpPmat, "gp_pmat"},
		{&d.fn.gpQuadLogdet, "gp_quad_logdet"}, {&d.fn.gpGradPartial, "gp_grad_partial"},
		{&d.fn.gpGradFinal, "gp_grad_final"}, {&d.fn.mirror, "mirror"},
		{&d.fn.trtriLeaf, "trtri_leaf"}, {&d.fn.lauumLeaf, "lauum_leaf"},
		{&d.fn.colsumPartial, "colsum_partial"}, {&d.fn.gatherRows, "gather_rows"},
		{&d.fn.mvnFinal, "mvn_final"}, {&d.fn.logdetDiag, "logdet_diag"},
		{&d.fn.gpCross, "gp_cross"}, {&d.fn.gpColdot, "gp_coldot"},
	} {
		// The function is fetched into a local: cgo's pointer check
		// would otherwise inspect the whole device struct, which holds
		// Go pointers (its name), and refuse the call.
		var fn C.CUfunction
		cs := C.CString(f.name)
		r := C.cuModuleGetFunction(&fn, d.mod, cs)
		C.free(unsafe.Pointer(cs))
		*f.p = fn
		if err := cuErr(r, "cuModuleGetFunction "+f.name); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// enter makes the device's context current on a locked OS thread, as every
// driver, cuBLAS and cuSOLVER call needs; the returned function unlocks.
func (d *device) enter() (func(), error) {
	runtime.LockOSThread()
	if err := cuErr(C.cuCtxSetCurrent(d.ctx), "cuCtxSetCurrent"); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// handles are the per-handle stream and library handles, and a cuSOLVER
// workspace sized for the largest order.
type handles struct {
	dev    *device
	stream C.CUstream
	blas   C.cublasHandle_t
	solver C.cusolverDnHandle_t
	work   devptr
	lwork  int // in float64
}

// newHandles creates a stream, the cuBLAS and cuSOLVER handles on it and,
// if maxN > 0, a cuSOLVER workspace large enough for potrf of every order
// up to maxN. The caller holds the context (enter).
func newHandles(d *device, maxN int) (*handles, error) {
	h := &handles{dev: d}
	if err := cuErr(C.cuStreamCreate(&h.stream, C.CU_STREAM_NON_BLOCKING), "cuStreamCreate"); err != nil {
		return nil, err
	}
	if err := blasErr(C.cublasCreate(&h.blas), "create"); err != nil {
		h.destroy()
		return nil, err
	}
	if err := blasErr(C.cublasSetStream(h.blas, C.cudaStream_t(unsafe.Pointer(h.stream))), "set stream"); err != nil {
		h.destroy()
		return nil, err
	}
	if err := solverErr(C.cusolverDnCreate(&h.solver), "create"); err != nil {
		h.destroy()
		return nil, err
	}
	if err := solverErr(C.cusolverDnSetStream(h.solver, C.cudaStream_t(unsafe.Pointer(h.stream))), "set stream"); err != nil {
		h.destroy()
		return nil, err
	}
	if maxN > 0 {
		// The workspace is queried at the largest order and at a few
		// smaller ones (it need not be monotone in n) and allocated once.
		lw := 0
		for _, n := range []int{maxN, maxN / 2, min(maxN, 1024), min(maxN, 64), 1} {
			if n < 1 {
				continue
			}
			var a C.int
			if err := solverErr(C.st_potrf_bufsize(h.solver, C.int(n), &a), "potrf buffer size"); err != nil {
				h.destroy()
				return nil, err
			}
			lw = max(lw, int(a))
		}
		h.lwork = max(lw, 1)
		w, err := devAlloc(8*h.lwork, "cusolver workspace")
		if err != nil {
			h.destroy()
			return nil, err
		}
		h.work = w
	}
	return h, nil
}

func (h *handles) destroy() {
	if h == nil {
		return
	}
	devFree(h.work)
	h.work = 0
	if h.solver != nil {
		C.cusolverDnDestroy(h.solver)
		h.solver = nil
	}
	if h.blas != nil {
		C.cublasDestroy(h.blas)
		h.blas = nil
	}
	if h.stream != nil {
		C.cuStreamDestroy(h.stream)
		h.stream = nil
	}
}

// sync waits for the handle's stream: the one host synchronisation of an
// operation.
func (h *handles) sync(what string) error {
	if r := C.cuStreamSynchronize(h.stream); r != C.CUDA_SUCCESS {
		return cuErr(r, "cuStreamSynchronize after "+what)
	}
	return nil
}

// potrf factors the n×n matrix at a in place — its upper row-major
// triangle, the lower column-major one — into the column-major lower L,
// writing the status to the device int at info.
func (h *handles) potrf(n int, a, info devptr) error {
	return solverErr(C.st_potrf(h.solver, C.int(n), a, C.int(n), h.work, C.int(h.lwork), info), "potrf")
}

// potrs solves A·X = B for nrhs column-major right-hand sides of length n
// (for nrhs = 1, a plain vector) from the factor at a.
func (h *handles) potrs(n, nrhs int, a, b, info devptr) error {
	return solverErr(C.st_potrs(h.solver, C.int(n), C.int(nrhs), a, C.int(n), b, C.int(n), info), "potrs")
}

// mirror fills one strict triangle of the n×n row-major matrix at a from
// the other: the upper from the lower, or the lower from the upper when
// fromUpper.
func (h *handles) mirror(n int, a devptr, fromUpper bool) error {
	return cuErr(C.k_mirror(h.dev.fn.mirror, C.uint(tiles(n)), tile, rows, h.stream, a, C.int(n), cbool(fromUpper)), "launch mirror")
}

// errClosed is returned by the methods of a closed handle.
var errClosed = errors.New("cuda: handle is closed")
