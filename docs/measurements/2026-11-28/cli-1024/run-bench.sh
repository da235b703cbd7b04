#!/bin/sh
# Reproduces the gradient-equivalent counts of docs/measurements/2026-11-28/cli-1024 (run after
# run.sh, whose diamonds split it reads): BenchmarkLargeFit's warm-is (split-t, refits: what FitGP
# runs by default from N = 1024) on the §4.2 generator at D = 3, N = 4096, and on the diamonds
# training set of N = 1024 beside the cold-start default that the warm start replaced, one fit at a
# time on 2 cores, OpenBLAS with one thread per evaluation.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-1024
go test -c -tags openblas -o /tmp/bench-1024.test ./bench/
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
B="/tmp/bench-1024.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.split -large.adapt"
cd bench
$B -large.methods warm-is -large.n 4096 -large.dims 3 -large.seed 1 > "$D/bench-d3-n4096.txt" 2>&1
$B -large.methods warm-is,default -large.csv /tmp/c1024/diamonds-split/train.csv -large.test /tmp/c1024/diamonds-split/test.csv > "$D/bench-diamonds-n1024.txt" 2>&1
