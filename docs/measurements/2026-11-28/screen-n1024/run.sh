#!/bin/sh
# Reproduces docs/measurements/2026-11-28/screen-n1024: the default large-N sampler (independence
# MH from the fitted t, every proposal and local step screened on the proposal's surrogate) at
# N = 1024, D = 8 (fit seeds 1-4) and D = 3 (fit seeds 1-3), each fit's posterior means judged
# against a reference computed first by importance sampling (-large.reference: 20 000 full-data
# log densities from a defensive mixture around a proposal of its own fit seed, 1000).
# §4.2 generator, data seed 1. Run from the repository root; one BLAS thread per chain, one fit
# at a time. The unscreened figures beside them in LARGE.md are
# docs/measurements/2026-11-27/large/ and delayed/ (the same data and fit seeds).
set -eu
OUT=docs/measurements/2026-11-28/screen-n1024
go test -c -tags openblas -o /tmp/bench.test ./bench/
cd bench
run() { # name dims seeds
  OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x \
    -test.timeout 0 -large.n 1024 -large.dims $2 -large.methods warm -large.seed $3 \
    -large.reference 20000 > "../$OUT/$1" 2>&1
}
run n1024-d8.txt 8 1,2,3,4
run n1024-d3.txt 3 1,2,3
