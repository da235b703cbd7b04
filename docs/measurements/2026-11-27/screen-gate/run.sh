#!/bin/sh
# Reproduces docs/measurements/2026-11-27/screen-gate: the independence sampler on proposals of
# importance ESS >= 50% with one local random-walk step per proposal (the earlier default, "base"),
# with none ("local0"), screened on the proposal's surrogate ("screen"), and both ("screenl0",
# the default since). §4.2 generator, data seed 1. Binaries built from the commit that adopted the
# screen; "base" is what -large.local 1 gives there without -large.screen, and the earlier
# commit's default (the same draws). Run from the repository root; one BLAS thread per chain.
set -eu
OUT=docs/measurements/2026-11-27/screen-gate
go test -c -tags openblas -o /tmp/bench.test ./bench/
cd bench
run() { # name seed n dims flags...
  name=$1 s=$2 n=$3 d=$4; shift 4
  OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x \
    -test.timeout 0 -large.n $n -large.dims $d -large.methods warm -large.seed $s "$@" > "../$OUT/$name" 2>&1
}
for s in 1 2 3; do
  run d3-s$s-base.txt $s 1024 3 -large.local 1 -large.screen off
  run d3-s$s-local0.txt $s 1024 3 -large.local 0 -large.screen off
  run d3-s$s-screen.txt $s 1024 3 -large.local 1
  run d3-s$s-screenl0.txt $s 1024 3
done
for s in 1 2 3; do
  run n2048-d8-s$s-base.txt $s 2048 8 -large.local 1 -large.screen off
  run n2048-d8-s$s-screenl0.txt $s 2048 8
done
run n2048-d8-s1-local0.txt 1 2048 8 -large.local 0 -large.screen off
