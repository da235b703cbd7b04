#!/bin/sh
# BenchmarkLargeFit's fitgp on the §4.2 generator at N = 1024, D = 8 (data seed 1), fit seeds 1–8,
# with the binaries run-grid.sh built for commits $1 and $2 (/tmp/bench-sr-*.test), one after the
# other on core $3 alone (taskset), OpenBLAS with one thread per evaluation. Run from the
# repository root after run-grid.sh.
set -u
D=$PWD/docs/measurements/2026-11-29/split-refits
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
for r in $1 $2; do
  taskset -c $3 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/d8-n1024-seeds-$r.time /tmp/bench-sr-$r.test -test.run '^$' \
    -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods fitgp -large.dims 8 -large.n 1024 \
    -large.seed 1,2,3,4,5,6,7,8 > $D/d8-n1024-seeds-$r.txt 2>&1
done
