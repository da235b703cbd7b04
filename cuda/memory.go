package cuda

// maxGradBlocks caps the blocks of the first stage of the gradient
// reduction (and so the partial sums the second stage adds in order).
const maxGradBlocks = 1024

// GPMemory is the device memory, in bytes, that one GP handle (NewGP) of
// n observations in d dimensions allocates for itself: the n×n kernel
// matrix (8n², which dominates: 2 GiB at n = 16384, 8 GiB at 32768), the
// inputs and targets, the scaled inputs [Z 1] and P·[Z 1] (2·8n(d+1)), five
// vectors of n and the gradient's partial sums. On top of it come the
// cuSOLVER workspace, which NewGP queries (a few MiB), a second n×n
// matrix the first time a gradient is resumed on a strict prefix of the
// last subset (SPT's and STT's shortcut), Predict's buffers (at most about
// 64 MiB) on first use, and, once per process, the CUDA context (a few
// hundred MiB). A fit holds one handle per chain, and during its warm start
// one per optimisation run at once (as many as the CPU has cores, at most
// max(4, d+2)); where the device's free memory runs out, the warm start
// runs fewer at once.
func GPMemory(n, d int) int64 {
	n64, d64 := int64(n), int64(d)
	return 8*n64*n64 + // kernel matrix / factor / inverse / P
		8*n64*d64 + 8*n64 + // inputs, targets
		8*d64 + 4*n64 + // length scales and subset
		2*8*n64*(d64+1) + // [Z 1], P·[Z 1]
		3*8*n64 + // subset targets, α, diag W
		8*maxGradBlocks*(d64+2) + // gradient partials
		8*(d64+5) + 16 // result block
}
