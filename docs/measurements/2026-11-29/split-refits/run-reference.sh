#!/bin/sh
# BenchmarkLargeFit's fitgp (the defaults) on the §4.2 generator at N = 1024, D = 8 (data seed 1),
# fit seeds 1–4 (SEEDS=5,6,7,8,9,10,11,12 OUT=reference-more made reference-more-*), each fit's posterior means of u against the importance-sampling reference of
# 20 000 draws (-large.reference, fit seed 1000; max_z is a fit's largest |z|), with the binary
# of commit $1 on core $2 alone (taskset), OpenBLAS with one thread per evaluation. Run from the
# repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/split-refits
git worktree add -f --detach /tmp/srr-wt $1 > /dev/null 2>&1
(cd /tmp/srr-wt && go test -c -tags openblas -o /tmp/bench-srr-$1.test ./bench/)
git worktree remove --force /tmp/srr-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
taskset -c $2 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/${OUT:-reference}-$1.time /tmp/bench-srr-$1.test -test.run '^$' \
  -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods fitgp -large.n 1024 -large.dims 8 \
  -large.seed ${SEEDS:-1,2,3,4} -large.reference 20000 > $D/${OUT:-reference}-$1.txt 2>&1
