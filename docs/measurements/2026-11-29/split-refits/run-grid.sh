#!/bin/sh
# BenchmarkLargeFit's fitgp (subtemper.FitGP with the defaults) on the §4.2 generator (data seed 1)
# at N = 1024 and 2048, D = 3 and 8, with the binaries of commits $1 (before the split-t refits and
# the full first batch with corners) and $2 (after), one after the other on core $3 alone
# (taskset), OpenBLAS with one thread per evaluation. Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/split-refits
for r in $1 $2; do
  git worktree add -f --detach /tmp/sr-wt $r > /dev/null 2>&1
  (cd /tmp/sr-wt && go test -c -tags openblas -o /tmp/bench-sr-$r.test ./bench/)
  git worktree remove --force /tmp/sr-wt
done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
cd bench
for r in $1 $2; do
  B="/tmp/bench-sr-$r.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods fitgp"
  taskset -c $3 $T -o $D/grid-d3-$r.time $B -large.dims 3 -large.n 1024,2048 > $D/grid-d3-$r.txt 2>&1
  taskset -c $3 $T -o $D/grid-d8-$r.time $B -large.dims 8 -large.n 1024,2048 > $D/grid-d8-$r.txt 2>&1
done
