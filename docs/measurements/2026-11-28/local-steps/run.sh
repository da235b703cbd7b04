#!/bin/sh
# Reproduces docs/measurements/2026-11-28/local-steps: the default large-N sampler with 3
# screened local random-walk steps after each independence proposal in place of 1
# (-large.local 3), at N = 1024, D = 8, fit seeds 1-4 (the default's figures for the same fits:
# ../screen-n1024/n1024-d8.txt). §4.2 generator, data seed 1. Run from the repository root; one
# BLAS thread per chain, one fit at a time.
set -eu
OUT=docs/measurements/2026-11-28/local-steps
go test -c -tags openblas -o /tmp/bench-local.test ./bench/
cd bench
OPENBLAS_NUM_THREADS=1 /tmp/bench-local.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x \
  -test.timeout 0 -large.n 1024 -large.dims 8 -large.methods warm -large.seed ${SEEDS:-1,2,3,4} \
  -large.local 3 > "../$OUT/n1024-d8-local3.txt" 2>&1
