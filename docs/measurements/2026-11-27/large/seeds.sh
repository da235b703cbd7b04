#!/bin/bash
# The wide component side by side: at N = 1024, D = 8, each seed's fitted
# proposal sampled with the fitted t alone (-large.wide 0) and with the
# default (the wide t mixed in below an importance ESS of 0.5); then D = 3.
# Run from the repository root; OpenBLAS, one thread per chain.
set -e
go test -tags openblas -c -o /tmp/largefit.test ./bench/
run() { OPENBLAS_NUM_THREADS=1 /tmp/largefit.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 6h -large.methods warm "$@" 2>&1; }
for seed in 1 2 3 4; do
  echo "=== D=8 seed $seed, fitted t alone"; run -large.n 1024 -large.dims 8 -large.seed $seed -large.wide 0
  echo "=== D=8 seed $seed, default"; run -large.n 1024 -large.dims 8 -large.seed $seed
done
# Seed 3's proposal (importance ESS 0.27) sampled by the independence kernel whatever the threshold.
echo "=== D=8 seed 3, forced independence sampler"; run -large.n 1024 -large.dims 8 -large.seed 3 -large.forceimh
# Seed 1's other variants: 3 degrees of freedom; the wide t without the local step.
echo "=== D=8 seed 1, DF 3"; run -large.n 1024 -large.dims 8 -large.seed 1 -large.wide 0 -large.imhdf 3
echo "=== D=8 seed 1, wide, no local step"; run -large.n 1024 -large.dims 8 -large.seed 1 -large.wide 0.15 -large.local 0
for seed in 1 2; do
  echo "=== D=3 seed $seed, fitted t alone"; run -large.n 1024 -large.dims 3 -large.seed $seed -large.wide 0
  echo "=== D=3 seed $seed, default"; run -large.n 1024 -large.dims 3 -large.seed $seed
done
