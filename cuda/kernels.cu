// Custom kernels of the subtemper CUDA backend (package cuda).
//
// Compiled to PTX and embedded in the Go package (kernels.ptx) by
// gen_ptx.sh (go generate -tags cuda ./cuda/ runs it):
//
//	nvcc -ptx -arch=compute_80 -o kernels.ptx kernels.cu
//
// with the PTX ISA version set to 7.8, so that drivers from R520 on load
// it (gen_ptx.sh says why). compute_80 PTX runs on Ampere and is compiled
// by the driver to native SASS on Hopper (sm_90) when the module is
// loaded; the kernels use no Hopper-only instruction.
//
// Conventions. Every matrix is row-major, as in Go. A symmetric matrix is
// held in its UPPER row-major triangle, which is the LOWER column-major
// triangle that cuBLAS and cuSOLVER are called with (cuSOLVER's potrf is
// markedly faster on the lower column-major triangle than on the upper:
// on an H100 at n = 16384, 38 against 23 TFLOP/s). A Cholesky factor is
// therefore the column-major lower L, whose row-major view is Lᵀ in the
// upper triangle. Everything is fp64.
// No kernel uses atomics: every reduction is blocked, per-block partial
// sums are written to memory and summed in a fixed order by one more
// kernel, so a result is bitwise reproducible for a given launch shape.
// Kernels that follow a Cholesky factorisation read the device-side
// cuSOLVER info words and return at once when a factorisation failed, so
// a failed evaluation costs little and writes no NaN that anything reads.

#include <stdint.h>

extern "C" {

// TILE is the edge of the square tiles of the kernel-matrix kernels; a
// block of TILE×ROWS threads computes one TILE×TILE tile, each thread
// TILE/ROWS elements of one column.
#define TILE 32
#define ROWS 8
// CHUNK is the number of input dimensions staged in shared memory at a
// time, so that any D works with a fixed shared-memory footprint.
#define CHUNK 32

// tri maps the linear index t of a lower tile (row-wise: (0,0), (1,0),
// (1,1), (2,0), ...) to its tile row I and column J ≤ I. Called as
// tri(t, &J, &I) it enumerates the upper tiles (I ≤ J) instead.
__device__ __forceinline__ void tri(unsigned t, int *I, int *J) {
    int i = (int)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    // Correct a rounding error of the square root either way.
    while ((long long)i * (i + 1) / 2 > (long long)t) i--;
    while ((long long)(i + 1) * (i + 2) / 2 <= (long long)t) i++;
    *I = i;
    *J = (int)(t - (unsigned)((long long)i * (i + 1) / 2));
}

// sqdist accumulates, for the thread's TILE/ROWS rows r = ty + ROWS·q of
// tile row I and its column c = tx of tile column J, the squared distance
// s[q] = Σ_k (z[r,k] − z[c,k])² over all D dimensions, staging CHUNK
// dimensions of both row blocks in shared memory at a time. Loads are
// coalesced along the rows of z (consecutive threads read consecutive
// dimensions); sj is stored transposed so that the inner loop reads
// consecutive words across the warp, and si is read as a broadcast.
__device__ __forceinline__ void sqdist(const double *__restrict__ z, int ldz, int m, int d,
                                       int I, int J, double s[TILE / ROWS]) {
    __shared__ double si[TILE][CHUNK + 1];
    __shared__ double sj[CHUNK][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * TILE + tx;
    for (int q = 0; q < TILE / ROWS; q++) s[q] = 0.0;
    for (int k0 = 0; k0 < d; k0 += CHUNK) {
        const int kc = min(CHUNK, d - k0);
        for (int e = tid; e < TILE * CHUNK; e += TILE * ROWS) {
            const int r = e / CHUNK, k = e % CHUNK;
            double vi = 0.0, vj = 0.0;
            if (k < kc) {
                const int gi = I * TILE + r, gj = J * TILE + r;
                if (gi < m) vi = z[(size_t)gi * ldz + k0 + k];
                if (gj < m) vj = z[(size_t)gj * ldz + k0 + k];
            }
            si[r][k] = vi;
            sj[k][r] = vj;
        }
        __syncthreads();
        for (int k = 0; k < kc; k++) {
            const double zc = sj[k][tx];
#pragma unroll
            for (int q = 0; q < TILE / ROWS; q++) {
                const double t = si[ty + ROWS * q][k] - zc;
                s[q] = fma(t, t, s[q]);
            }
        }
        __syncthreads();
    }
}

// gp_scale gathers the subset and scales it: for k < m, i = idx[k] (k when
// idx is null), z[k, j] = x[i, j] / ell[j] for j < d, z[k, d] = 1 (the
// column of ones that turns P·[Z 1] into both P·Z and P·1), ys[k] = y[i].
// One thread per element of z: coalesced loads and stores.
__global__ void gp_scale(const double *__restrict__ x, const int *__restrict__ idx,
                         const double *__restrict__ y, const double *__restrict__ ell,
                         int m, int d, double *__restrict__ z, double *__restrict__ ys) {
    const int ldz = d + 1;
    const long long total = (long long)m * ldz;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const int k = (int)(e / ldz), j = (int)(e % ldz);
        const int i = idx ? idx[k] : k;
        if (j < d) {
            z[e] = x[(size_t)i * d + j] / ell[j];
        } else {
            z[e] = 1.0;
            ys[k] = y[i];
        }
    }
}

// gp_kernel writes the upper triangle of the m×m row-major kernel matrix
// a = σf²·exp(−½|z_i − z_j|²) with diag on the diagonal (σf² + σn² +
// jitter), one upper TILE×TILE tile per block (a 1-D grid over the
// T(T+1)/2 upper tiles). The strict lower triangle is not written.
__global__ void gp_kernel(const double *__restrict__ z, int m, int d, double sf2, double diag,
                          double *__restrict__ a) {
    int I, J;
    tri(blockIdx.x, &J, &I);
    double s[TILE / ROWS];
    sqdist(z, d + 1, m, d, I, J, s);
    const int c = J * TILE + threadIdx.x;
#pragma unroll
    for (int q = 0; q < TILE / ROWS; q++) {
        const int r = I * TILE + threadIdx.y + ROWS * q;
        if (c < m && r <= c) {
            a[(size_t)r * m + c] = (r == c) ? diag : sf2 * exp(-0.5 * s[q]);
        }
    }
}

// gp_pmat overwrites the upper triangle of a, which holds K⁻¹ (the
// inverse of the factor, trtri_leaf and the recursive trtri/lauum), with
// P = (α·αᵀ − K⁻¹) ∘ Kf, where Kf = σf²·exp(−½|z_i − z_j|²) is recomputed
// here (bitwise the same values gp_kernel wrote) rather than stored, and
// writes the diagonal of W = α·αᵀ − K⁻¹ to w (for the noise gradient
// σn²·tr W). Nothing is done when info[0] (potrf) or info[1] (inverse)
// reports a failure.
__global__ void gp_pmat(double *__restrict__ a, const double *__restrict__ z, int m, int d,
                        double sf2, const double *__restrict__ alpha, double *__restrict__ w,
                        const int *__restrict__ info) {
    if (info[0] != 0 || info[1] != 0) return;
    int I, J;
    tri(blockIdx.x, &J, &I);
    double s[TILE / ROWS];
    sqdist(z, d + 1, m, d, I, J, s);
    const int c = J * TILE + threadIdx.x;
    const double ac = (c < m) ? alpha[c] : 0.0;
#pragma unroll
    for (int q = 0; q < TILE / ROWS; q++) {
        const int r = I * TILE + threadIdx.y + ROWS * q;
        if (c < m && r <= c) {
            const size_t o = (size_t)r * m + c;
            const double wv = alpha[r] * ac - a[o];
            if (r == c) {
                w[r] = wv;
                a[o] = wv * sf2;
            } else {
                a[o] = wv * (sf2 * exp(-0.5 * s[q]));
            }
        }
    }
}

// gp_quad_logdet computes, in a single block, quad = Σ ys_i·α_i and
// logdet = 2·Σ log L_ii over the Cholesky factor L (order m; only its
// diagonal is read), and counts the diagonal entries that are not finite and positive.
// It writes out[0] = quad, out[1] = logdet, out[2] = count. blockDim.x
// must be a power of two ≤ 1024.
__global__ void gp_quad_logdet(const double *__restrict__ l, int m, const double *__restrict__ ys,
                               const double *__restrict__ alpha, const int *__restrict__ info,
                               double *__restrict__ out) {
    __shared__ double sq[1024], sl[1024], sb[1024];
    const int t = threadIdx.x;
    if (info[0] != 0) {
        if (t == 0) { out[0] = 0.0; out[1] = 0.0; out[2] = 1.0; }
        return;
    }
    double q = 0.0, ld = 0.0, bad = 0.0;
    for (int i = t; i < m; i += blockDim.x) {
        q = fma(ys[i], alpha[i], q);
        const double v = l[(size_t)i * m + i];
        if (v > 0.0 && v <= 1.7976931348623157e308) {
            ld += log(v);
        } else {
            bad += 1.0;
        }
    }
    sq[t] = q; sl[t] = ld; sb[t] = bad;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) { sq[t] += sq[t + h]; sl[t] += sl[t + h]; sb[t] += sb[t + h]; }
        __syncthreads();
    }
    if (t == 0) { out[0] = sq[0]; out[1] = 2.0 * sl[0]; out[2] = sb[0]; }
}

// gp_grad_partial is the first stage of the gradient reduction. With
// Q = P·[Z 1] (m×(d+1), so r_i = Q[i, d] = Σ_k P_ik), the components are
//
//	c < d:   g_c  = Σ_i z_ic·(z_ic·r_i − Q_ic)   (∂/∂ log ℓ_c)
//	c = d:   gf   = Σ_i r_i                       (∂/∂ log σf = Σ_ik P_ik)
//	c = d+1: trW  = Σ_i w_i                       (tr W, × σn² later)
//
// Block b sums rows [b·rpb, (b+1)·rpb) and writes partial[b·(d+2) + c].
// Threads are TILE×ROWS: x runs over components (coalesced along a row of
// z and Q), y over rows; the ROWS lanes are summed in shared memory in a
// fixed order. Nothing is done when a factorisation failed.
__global__ void gp_grad_partial(const double *__restrict__ z, const double *__restrict__ q,
                                const double *__restrict__ w, int m, int d, int rpb,
                                const int *__restrict__ info, double *__restrict__ partial) {
    if (info[0] != 0 || info[1] != 0) return;
    __shared__ double red[ROWS][TILE + 1];
    const int ldz = d + 1, nc = d + 2;
    const int r0 = blockIdx.x * rpb, r1 = min(m, r0 + rpb);
    for (int c0 = 0; c0 < nc; c0 += TILE) {
        const int c = c0 + threadIdx.x;
        double acc = 0.0;
        if (c < nc) {
            for (int i = r0 + threadIdx.y; i < r1; i += ROWS) {
                const double ri = q[(size_t)i * ldz + d];
                if (c < d) {
                    const double zc = z[(size_t)i * ldz + c];
                    acc = fma(zc, fma(zc, ri, -q[(size_t)i * ldz + c]), acc);
                } else if (c == d) {
                    acc += ri;
                } else {
                    acc += w[i];
                }
            }
        }
        red[threadIdx.y][threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.y == 0 && c < nc) {
            double s = 0.0;
            for (int y = 0; y < ROWS; y++) s += red[y][threadIdx.x];
            partial[(size_t)blockIdx.x * nc + c] = s;
        }
        __syncthreads();
    }
}

// gp_grad_final sums the nb partial rows in order and writes the gradient
// to out: out[c] for c ≤ d as summed, out[d+1] = sn2·trW. One thread per
// component.
__global__ void gp_grad_final(const double *__restrict__ partial, int nb, int d, double sn2,
                              const int *__restrict__ info, double *__restrict__ out) {
    if (info[0] != 0 || info[1] != 0) return;
    const int nc = d + 2;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < nc; c += gridDim.x * blockDim.x) {
        double s = 0.0;
        for (int b = 0; b < nb; b++) s += partial[(size_t)b * nc + c];
        out[c] = (c == d + 1) ? sn2 * s : s;
    }
}

// mirror copies one strict triangle of the n×n row-major matrix a into
// the other: the lower into the upper when up == 0, the upper into the
// lower otherwise. One TILE×TILE tile pair per block through shared
// memory, so that both the reads and the writes are coalesced; a 1-D grid
// over the lower tiles.
__global__ void mirror(double *__restrict__ a, int n, int up) {
    __shared__ double t[TILE][TILE + 1];
    int I, J;
    tri(blockIdx.x, &I, &J);
    if (up) { const int k = I; I = J; J = k; }  // source tile (I, J) in the upper triangle
    const int tx = threadIdx.x;
    // Read the source tile (I, J) row by row: its elements (r, c) with
    // c < r (lower) or r < c (upper).
    for (int y = threadIdx.y; y < TILE; y += ROWS) {
        const int r = I * TILE + y, c = J * TILE + tx;
        if (r < n && c < n && (up ? r < c : c < r)) t[y][tx] = a[(size_t)r * n + c];
    }
    __syncthreads();
    // Write its transpose to tile (J, I): a[c, r] = a[r, c].
    for (int y = threadIdx.y; y < TILE; y += ROWS) {
        const int r = I * TILE + tx, c = J * TILE + y;  // source element (r, c)
        if (r < n && c < n && (up ? r < c : c < r)) a[(size_t)c * n + r] = t[tx][y];
    }
}

// LEAF is the order of the diagonal blocks that trtri_leaf and
// lauum_leaf handle in shared memory; the recursive inverse (inverse.go)
// splits at multiples of LEAF, so its leaves are the blocks at offsets
// LEAF·b, of order min(LEAF, n − LEAF·b).
#define LEAF 64

// trtri_leaf inverts in place the diagonal LEAF×LEAF blocks of the lower
// triangular factor L held column-major (leading dimension n) in a: block
// b (one per thread block, LEAF threads) at offset LEAF·b. The block is
// staged in shared memory and inverted by forward substitution, one row of
// X = L_bb⁻¹ per step, thread j computing X[i][j]; row i of X overwrites
// row i of L once every thread has read it. Nothing is done when info[0]
// reports a failed factorisation; a pivot that is not finite and positive
// sets info[1] = 1 (every writer writes the same value).
__global__ void trtri_leaf(double *__restrict__ a, int n, int *__restrict__ info) {
    if (info[0] != 0) return;
    __shared__ double s[LEAF][LEAF + 1];
    const int off = blockIdx.x * LEAF, nb = min(LEAF, n - off), j = threadIdx.x;
    for (int e = j; e < nb * nb; e += blockDim.x) {
        const int c = e / nb, r = e % nb;
        s[r][c] = (r >= c) ? a[(size_t)(off + c) * n + off + r] : 0.0;
    }
    __syncthreads();
    for (int i = 0; i < nb; i++) {
        double v = 0.0;
        const double p = s[i][i];
        if (j <= i) {
            v = (i == j) ? 1.0 : 0.0;
            for (int k = j; k < i; k++) v = fma(-s[i][k], s[k][j], v);
            v /= p;
        }
        __syncthreads();
        if (j <= i) s[i][j] = v;
        if (j == 0 && !(p > 0.0 && p <= 1.7976931348623157e308)) info[1] = 1;
        __syncthreads();
    }
    for (int e = j; e < nb * nb; e += blockDim.x) {
        const int c = e / nb, r = e % nb;
        if (r >= c) a[(size_t)(off + c) * n + off + r] = s[r][c];
    }
}

// lauum_leaf replaces the lower triangular nb×nb block X at offset off of
// the column-major a (leading dimension n) by the lower triangle of XᵀX:
// W[i][j] = Σ_{k ≥ i} X[k][i]·X[k][j] for i ≥ j. One thread block; X is
// staged in shared memory first, so the results can be written straight
// back. Nothing is done when a factorisation or inversion failed.
__global__ void lauum_leaf(double *__restrict__ a, int n, int off, int nb,
                           const int *__restrict__ info) {
    if (info[0] != 0 || info[1] != 0) return;
    __shared__ double s[LEAF][LEAF + 1];
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) {
        const int c = e / nb, r = e % nb;
        s[r][c] = (r >= c) ? a[(size_t)(off + c) * n + off + r] : 0.0;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < nb * nb; e += blockDim.x) {
        const int j = e / nb, i = e % nb;
        if (i < j) continue;
        double v = 0.0;
        for (int k = i; k < nb; k++) v = fma(s[k][i], s[k][j], v);
        a[(size_t)(off + j) * n + off + i] = v;
    }
}

// colsum_partial is the first stage of the column sums of a rows×cols
// row-major matrix a (leading dimension lda): block (bx, by) sums the rows
// [by·rpb, (by+1)·rpb) of columns [bx·TILE, (bx+1)·TILE) and writes
// partial[by·cols + c]. Threads are TILE×ROWS, x along the columns.
__global__ void colsum_partial(const double *__restrict__ a, int rows, int cols, int lda, int rpb,
                               double *__restrict__ partial) {
    __shared__ double red[ROWS][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    const int r0 = blockIdx.y * rpb, r1 = min(rows, r0 + rpb);
    double acc = 0.0;
    if (c < cols) {
        for (int i = r0 + threadIdx.y; i < r1; i += ROWS) acc += a[(size_t)i * lda + c];
    }
    red[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        double s = 0.0;
        for (int y = 0; y < ROWS; y++) s += red[y][threadIdx.x];
        partial[(size_t)blockIdx.y * cols + c] = s;
    }
}

// gather_rows copies the rows idx[k] (k < rows) of the row-major src
// (width cols, leading dimension ld) into the compact dst (leading
// dimension ld). One thread per element.
__global__ void gather_rows(const double *__restrict__ src, const int *__restrict__ idx, int rows,
                            int cols, int ld, double *__restrict__ dst) {
    const long long total = (long long)rows * cols;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const int k = (int)(e / cols), j = (int)(e % cols);
        dst[(size_t)k * ld + j] = src[(size_t)idx[k] * ld + j];
    }
}

// mvn_final finishes the MVN batch: with the nbg partial rows pg (B wide)
// of the column sums of G = W_S·Tᵀ and the nbw partial rows pw (d+1 wide)
// of the column sums of [W_S |w|²], it writes
//
//	out[b]      = max(0, Σ|w_n|² − 2·Σ_n w_n·t_b + k·|t_b|²)
//	resid[b, j] = Σ_n w_nj − k·t_bj        (when resid is not null)
//
// One thread per (b, j), j ≤ d; thread j = d writes out[b].
__global__ void mvn_final(const double *__restrict__ pg, int nbg, const double *__restrict__ pw,
                          int nbw, const double *__restrict__ t, int B, int d, int k,
                          double *__restrict__ out, double *__restrict__ resid) {
    const long long total = (long long)B * (d + 1);
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const int b = (int)(e / (d + 1)), j = (int)(e % (d + 1));
        if (j < d) {
            if (resid) {
                double s = 0.0;
                for (int p = 0; p < nbw; p++) s += pw[(size_t)p * (d + 1) + j];
                resid[(size_t)b * d + j] = s - (double)k * t[(size_t)b * d + j];
            }
        } else {
            double sq = 0.0, dot = 0.0, tt = 0.0;
            for (int p = 0; p < nbw; p++) sq += pw[(size_t)p * (d + 1) + d];
            for (int p = 0; p < nbg; p++) dot += pg[(size_t)p * B + b];
            for (int i = 0; i < d; i++) {
                const double v = t[(size_t)b * d + i];
                tt = fma(v, v, tt);
            }
            const double s = sq - 2.0 * dot + (double)k * tt;
            out[b] = s < 0.0 ? 0.0 : s;
        }
    }
}

// logdet_diag is gp_quad_logdet without the quadratic form, for the dense
// Matrix: out[0] = 2·Σ log L_ii, out[1] = number of bad pivots.
__global__ void logdet_diag(const double *__restrict__ l, int m, const int *__restrict__ info,
                            double *__restrict__ out) {
    __shared__ double sl[1024], sb[1024];
    const int t = threadIdx.x;
    if (info[0] != 0) {
        if (t == 0) { out[0] = 0.0; out[1] = 1.0; }
        return;
    }
    double ld = 0.0, bad = 0.0;
    for (int i = t; i < m; i += blockDim.x) {
        const double v = l[(size_t)i * m + i];
        if (v > 0.0 && v <= 1.7976931348623157e308) {
            ld += log(v);
        } else {
            bad += 1.0;
        }
    }
    sl[t] = ld; sb[t] = bad;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) { sl[t] += sl[t + h]; sb[t] += sb[t + h]; }
        __syncthreads();
    }
    if (t == 0) { out[0] = 2.0 * sl[0]; out[1] = sb[0]; }
}

// gp_cross writes the cross-kernel between the n observations and a block
// of b test inputs, column-major n×b with the test inputs' kernel vectors
// in its columns: ks[t·n + i] = σf²·exp(−½|z_i − zt_t|²), with z the
// scaled observations (n×(d+1) row-major, as gp_scale leaves them) and zt
// the scaled test inputs (b×d row-major). Direct differences, as
// gp_kernel. Threads are TILE×ROWS: x runs over observations (coalesced
// stores along a column), y over test inputs (a warp shares one test
// input: its loads are broadcasts); a grid-stride loop over test inputs.
__global__ void gp_cross(const double *__restrict__ z, int n, int d, const double *__restrict__ zt,
                         int b, double sf2, double *__restrict__ ks) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double *zi = z + (size_t)i * (d + 1);
    for (int t = blockIdx.y * blockDim.y + threadIdx.y; t < b; t += gridDim.y * blockDim.y) {
        const double *zc = zt + (size_t)t * d;
        double s = 0.0;
        for (int k = 0; k < d; k++) {
            const double r = zi[k] - zc[k];
            s = fma(r, r, s);
        }
        ks[(size_t)t * n + i] = sf2 * exp(-0.5 * s);
    }
}

// gp_coldot reduces each column of the column-major n×b matrix a, one
// block per column (a grid-stride loop over columns): out[t] =
// Σ_i a[t·n + i]·v[i], or Σ_i a[t·n + i]² when v is null. A fixed tree in
// shared memory, so the result is reproducible. blockDim.x must be a power
// of two ≤ 1024.
__global__ void gp_coldot(const double *__restrict__ a, int n, int b, const double *__restrict__ v,
                          double *__restrict__ out) {
    __shared__ double s[1024];
    const int t = threadIdx.x;
    for (int c = blockIdx.x; c < b; c += gridDim.x) {
        const double *col = a + (size_t)c * n;
        double acc = 0.0;
        for (int i = t; i < n; i += blockDim.x) {
            const double x = col[i];
            acc = fma(x, v ? v[i] : x, acc);
        }
        s[t] = acc;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {
            if (t < h) s[t] += s[t + h];
            __syncthreads();
        }
        if (t == 0) out[c] = s[0];
        __syncthreads();
    }
}

}  // extern "C"
