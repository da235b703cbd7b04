#!/bin/sh
# gen_ptx.sh regenerates kernels.ptx from kernels.cu; `go generate -tags cuda ./cuda/` runs it.
#
# nvcc stamps the PTX with the ISA version of its own release (9.0 for CUDA 13), and a driver
# loads only the PTX versions it knows: CUDA 13's stamp would shut out every driver before R580.
# The kernels use nothing beyond ISA 7.8 (CUDA 11.8), so the stamp is set to 7.8, which drivers
# from R520 on load; ptxas then checks the claim, refusing any instruction that 7.8 lacks.
set -e
nvcc -ptx -arch=compute_80 -o kernels.ptx kernels.cu
sed -i 's/^\.version [0-9.]*$/.version 7.8/' kernels.ptx
ptxas -arch=sm_80 -o /dev/null kernels.ptx
