#!/bin/sh
# Reproduces docs/measurements/2026-11-27/screen-local: the independence sampler at N = 2048,
# D = 8 with both its proposals screened by delayed acceptance on the proposal's surrogate and
# the local random-walk step kept ("screen", -large.screen), beside the default (no screen,
# "base", BASE=1) for the same fit seeds. §4.2 generator, data seed 1. Run from the repository
# root; one BLAS thread per chain, one fit at a time. Ran at 2d4cfb8, where -large.screen was
# off by default; it is on by default since.
set -eu
OUT=docs/measurements/2026-11-27/screen-local
go test -c -tags openblas -o /tmp/bench.test ./bench/
cd bench
run() { # name seed n dims flags...
  name=$1 s=$2 n=$3 d=$4; shift 4
  OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x \
    -test.timeout 0 -large.n $n -large.dims $d -large.methods warm -large.seed $s "$@" > "../$OUT/$name" 2>&1
}
for s in ${SEEDS:-1 2 3}; do
  run n2048-d8-s$s-screen.txt $s 2048 8 -large.screen
  # the default before: no screen (its figures in LARGE.md are screen-gate's base runs, the same draws)
  [ -z "${BASE:-}" ] || run n2048-d8-s$s-base.txt $s 2048 8 -large.screen=false
done
# N = 4096, D = 8, fit seed 1, screened with the local step (the default's figure at that N is
# the GPU's CLI run: docs/measurements/2026-11-27/gpu-2).
[ -z "${N4096:-}" ] || run n4096-d8-s1-screen.txt 1 4096 8 -large.screen
