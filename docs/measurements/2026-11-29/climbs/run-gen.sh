#!/bin/sh
# BenchmarkLargeFit's warm-is as the default runs it (corners and single-t refits where the warm
# start fitted any, climbs) on the §4.2 generator at N = 1024, D = 8, data seed 1, fit seeds 1-4,
# the bench binary of $1, one fit at a time on 2 cores, against an importance-sampling reference of
# 20 000 draws (-large.reference, its max_z): ../../2026-11-28/corners-fit/run-gen.sh's second half
# for the climbs' commit (that script's gen-n1024-d8-corners.txt is the same without climbs).
set -eu
D=$PWD/docs/measurements/2026-11-29/climbs
git worktree add -f --detach /tmp/climbs-bench $1 > /dev/null 2>&1
(cd /tmp/climbs-bench && go test -c -tags openblas -o /tmp/bench-$1.test ./bench/)
git worktree remove --force /tmp/climbs-bench
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
A="-test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods warm-is -large.split -large.adapt -large.mixture 5 -large.n 1024 -large.dims 8 -large.seed 1,2,3,4 -large.reference 20000"
/tmp/bench-$1.test $A > "$D/gen-n1024-d8-$1.txt" 2>&1
