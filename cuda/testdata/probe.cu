// probe.cu times the cuSOLVER and cuBLAS calls a GP step could be built
// from, at N = 4096, 8192 and 16384, with CUDA events (median of 5 runs, 3
// at 16384, after one warm-up): DGEMM, DSYRK, Dpotrf and Xpotrf on the
// lower and the upper triangle, Dpotri, Xtrtri, and a full SYRK and TRMM
// of L⁻¹. It is what the choice of the lower triangle and of the
// recursive inverse in package cuda rests on (see doc.go). Not part of the
// build; on a machine with CUDA:
//
//	nvcc -O2 -arch=sm_90 -o probe probe.cu -lcublas -lcusolver && ./probe
//
// The test matrix is diagonally dominant (diagonal 0.6·n + 1, off-diagonal
// entries in ±0.25 from a hash), so every factorisation succeeds.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#define CK(x) do { auto e = (x); if ((int)e != 0) { printf("%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e); exit(1);} } while (0)

__global__ void fill_spd(double *a, int n, unsigned seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t nn = (size_t)n * n;
  for (; i < nn; i += (size_t)gridDim.x * blockDim.x) {
    size_t r = i / n, c = i % n;
    size_t lo = r < c ? r : c, hi = r < c ? c : r;
    unsigned h = (unsigned)(lo * 2654435761u) ^ (unsigned)(hi * 40503u) ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    double v = ((h & 0xffffff) / 16777216.0 - 0.5) * 0.5;
    a[i] = (r == c) ? n * 0.6 + 1.0 : v;
  }
}
__global__ void zero_upper(double *a, int n) { // column-major: zero strict upper
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t nn = (size_t)n * n;
  for (; i < nn; i += (size_t)gridDim.x * blockDim.x) { size_t c = i / n, r = i % n; if (r < c) a[i] = 0; }
}

cudaEvent_t e0, e1;
template <class F> double timeit(F f, int reps) {
  std::vector<float> t;
  for (int k = 0; k < reps + 1; k++) {
    cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (k) t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

int main(int argc, char **argv) {
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  cublasHandle_t bh; CK(cublasCreate(&bh));
  cusolverDnHandle_t sh; CK(cusolverDnCreate(&sh));
  cusolverDnParams_t par; CK(cusolverDnCreateParams(&par));
  int sizes[] = {4096, 8192, 16384};
  for (int n : sizes) {
    size_t nn = (size_t)n * n;
    double *a, *b, *c; int *info;
    CK(cudaMalloc(&a, nn * 8)); CK(cudaMalloc(&b, nn * 8)); CK(cudaMalloc(&c, nn * 8)); CK(cudaMalloc(&info, 4));
    fill_spd<<<4096, 256>>>(b, n, 7); CK(cudaDeviceSynchronize());
    double one = 1, zero = 0;
    int reps = n >= 16384 ? 3 : 5;
    double f3 = (double)n * n * n;
    auto rate = [&](const char *what, double ms, double flop) { printf("N=%-6d %-34s %9.2f ms %8.0f GFLOP/s\n", n, what, ms, flop / ms / 1e6); fflush(stdout); };
    rate("dgemm NN", timeit([&] { cublasDgemm(bh, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, b, n, &zero, c, n); }, reps), 2 * f3);
    rate("dsyrk (lower, T)", timeit([&] { cublasDsyrk(bh, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, n, &one, b, n, &zero, c, n); }, reps), f3);
    for (int up = 0; up < 2; up++) {
      cublasFillMode_t fm = up ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
      const char *fn = up ? "upper" : "lower";
      int lw; CK(cusolverDnDpotrf_bufferSize(sh, fm, n, a, n, &lw));
      int lw2; CK(cusolverDnDpotri_bufferSize(sh, fm, n, a, n, &lw2)); lw = std::max(lw, lw2);
      double *w; CK(cudaMalloc(&w, (size_t)lw * 8));
      char nm[64];
      snprintf(nm, 64, "Dpotrf %s", fn);
      rate(nm, timeit([&] { cudaMemcpyAsync(a, b, nn * 8, cudaMemcpyDeviceToDevice); cusolverDnDpotrf(sh, fm, n, a, n, w, lw, info); }, reps)
        - timeit([&] { cudaMemcpyAsync(a, b, nn * 8, cudaMemcpyDeviceToDevice); }, reps), f3 / 3);
      size_t dw, hw; CK(cusolverDnXpotrf_bufferSize(sh, par, fm, n, CUDA_R_64F, a, n, CUDA_R_64F, &dw, &hw));
      void *xw; CK(cudaMalloc(&xw, dw + 8)); std::vector<char> hwb(hw + 8);
      snprintf(nm, 64, "Xpotrf %s", fn);
      rate(nm, timeit([&] { cudaMemcpyAsync(a, b, nn * 8, cudaMemcpyDeviceToDevice); cusolverDnXpotrf(sh, par, fm, n, CUDA_R_64F, a, n, CUDA_R_64F, xw, dw, hwb.data(), hw, info); }, reps)
        - timeit([&] { cudaMemcpyAsync(a, b, nn * 8, cudaMemcpyDeviceToDevice); }, reps), f3 / 3);
      // a holds the factor now; potri on copies of it
      CK(cudaMemcpy(c, a, nn * 8, cudaMemcpyDeviceToDevice));
      snprintf(nm, 64, "Dpotri %s", fn);
      rate(nm, timeit([&] { cudaMemcpyAsync(a, c, nn * 8, cudaMemcpyDeviceToDevice); cusolverDnDpotri(sh, fm, n, a, n, w, lw, info); }, reps)
        - timeit([&] { cudaMemcpyAsync(a, c, nn * 8, cudaMemcpyDeviceToDevice); }, reps), 2 * f3 / 3);
      size_t tdw, thw; CK(cusolverDnXtrtri_bufferSize(sh, fm, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, a, n, &tdw, &thw));
      void *tw; CK(cudaMalloc(&tw, tdw + 8)); std::vector<char> thb(thw + 8);
      snprintf(nm, 64, "Xtrtri %s", fn);
      rate(nm, timeit([&] { cudaMemcpyAsync(a, c, nn * 8, cudaMemcpyDeviceToDevice); cusolverDnXtrtri(sh, fm, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, a, n, tw, tdw, thb.data(), thw, info); }, reps)
        - timeit([&] { cudaMemcpyAsync(a, c, nn * 8, cudaMemcpyDeviceToDevice); }, reps), f3 / 3);
      if (!up) { // lower: a = inv(L) (upper part garbage): zero upper, then syrk C = inv(L)^T inv(L) and trmm
        zero_upper<<<4096, 256>>>(a, n);
        rate("syrk invL^T invL (full)", timeit([&] { cublasDsyrk(bh, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, n, &one, a, n, &zero, b, n); }, reps), f3);
        rate("trmm invL^T * invL", timeit([&] { cublasDtrmm(bh, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, n, &one, a, n, a, n, c, n); }, reps), f3);
        fill_spd<<<4096, 256>>>(b, n, 7); CK(cudaDeviceSynchronize());
      }
      cudaFree(w); cudaFree(xw); cudaFree(tw);
    }
    CK(cudaDeviceSynchronize());
    cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(info);
  }
  return 0;
}
