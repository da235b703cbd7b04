#!/bin/sh
# Reproduces docs/measurements/2026-11-27/screen-gate: the independence sampler on proposals of
# importance ESS 0.43-0.79 with one local random-walk step per proposal (the default, "base"),
# with none ("local0"), screened on the proposal's surrogate ("screen"), and both ("screenl0").
# §4.2 generator, data seed 1. Run from the repository root; one BLAS thread per chain.
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
  run d3-s$s-base.txt $s 1024 3 -large.screen=false
  run d3-s$s-local0.txt $s 1024 3 -large.local 0 -large.screen=false
  run d3-s$s-screen.txt $s 1024 3 -large.screen
  run d3-s$s-screenl0.txt $s 1024 3 -large.screen -large.local 0
done
for s in 1 2 3; do
  run n2048-d8-s$s-base.txt $s 2048 8 -large.screen=false
  run n2048-d8-s$s-screenl0.txt $s 2048 8 -large.screen -large.local 0
done
run n2048-d8-s1-local0.txt 1 2048 8 -large.local 0 -large.screen=false
# The whole CLI fit at N = 4096 with the screen and no local step was run from the commit that
# at aa5bf21, where they were the default: docs/measurements/2026-11-27/cli-n4096.
