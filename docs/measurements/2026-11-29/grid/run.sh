#!/bin/sh
# BenchmarkLargeFit across N and D with the binary of commit $1, in one run on 2 cores, OpenBLAS with
# one thread per evaluation: fitgp (subtemper.FitGP itself, the gp command's defaults: PT chains
# from the prior-mean starts below N = 1024, the warm start and importance sampling from it) at
# N = 256 ... 4096 on the §4.2 generator (data seed 1) at D = 3 and 8; then, in the same run, the
# default before the warm start (method default: PT from the prior-mean starts) at N = 1024, where
# fitgp no longer runs it. At N = 256 and 512 fitgp is that default. Then fitgp on diamonds'
# training set of N_train = 2048 (../../2026-11-28/corners-fit/run-2048.sh makes it in
# /tmp/cli-dia/split), with held-out figures in that script's run.
set -u
D=$PWD/docs/measurements/2026-11-29/grid
git worktree add -f --detach /tmp/grid-wt $1 > /dev/null 2>&1
(cd /tmp/grid-wt && go test -c -tags openblas -o /tmp/bench-grid-$1.test ./bench/)
git worktree remove --force /tmp/grid-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
B="/tmp/bench-grid-$1.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0"
cd bench
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/fitgp-d3.time $B -large.methods fitgp -large.dims 3 -large.n 256,512,1024,2048,4096 > $D/fitgp-d3.txt 2>&1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/fitgp-d8.time $B -large.methods fitgp -large.dims 8 -large.n 256,512,1024,2048,4096 > $D/fitgp-d8.txt 2>&1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/default-n1024.time $B -large.methods default -large.dims 3,8 -large.n 1024 > $D/default-n1024.txt 2>&1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/fitgp-diamonds-n2048.time $B -large.methods fitgp -large.csv /tmp/cli-dia/split/train.csv > $D/fitgp-diamonds-n2048.txt 2>&1
