#!/bin/sh
# BenchmarkLargeFit's fitgp on diamonds' training set of N_train = 2048
# (../../2026-11-28/corners-fit/run-2048.sh makes it in /tmp/cli-dia/split), fit seeds 1–4, with
# the binary of commit $1 on core $2 alone (taskset), OpenBLAS with one thread per evaluation. The
# files here ran it for 1b5cd8d (seeds 2–4; seed 1 is ../whitening/fitgp-diamonds-n2048.txt, of
# 076c118, whose importance sampling is the same) and 72841d2, one after the other on core 1.
# Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/split-refits
git worktree add -f --detach /tmp/srd-wt $1 > /dev/null 2>&1
(cd /tmp/srd-wt && go test -c -tags openblas -o /tmp/bench-srd-$1.test ./bench/)
git worktree remove --force /tmp/srd-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
taskset -c $2 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/diamonds-$1.time /tmp/bench-srd-$1.test -test.run '^$' \
  -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods fitgp -large.csv /tmp/cli-dia/split/train.csv \
  -large.seed ${SEEDS:-1,2,3,4} > $D/diamonds-$1.txt 2>&1
