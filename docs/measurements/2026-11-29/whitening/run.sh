#!/bin/sh
# The warm start's whitened last stage, the climbs' whitening and the batches that shrink to what
# the ESS predicts, with the binaries of commit $1, on core $2 alone (taskset; scikit-learn's
# diamonds fit of ../diamonds-n4096 had the other core): BenchmarkClimbWhitening and
# BenchmarkFindModeWhitening (tempering; the GP of the §4.2 generator at D = 8, data seed 1), then
# BenchmarkLargeFit's fitgp (subtemper.FitGP with the defaults) at N = 1024 and 2048, D = 3 and 8
# (data seed 1), and on diamonds' training set of N_train = 2048
# (../../2026-11-28/corners-fit/run-2048.sh makes it in /tmp/cli-dia/split), as in ../grid/run.sh.
# OpenBLAS with one thread per evaluation. Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/whitening
git worktree add -f --detach /tmp/white-wt $1 > /dev/null 2>&1
(cd /tmp/white-wt && go test -c -tags openblas -o /tmp/bench-white-$1.test ./bench/ && go test -c -o /tmp/tempering-white-$1.test ./tempering/)
git worktree remove --force /tmp/white-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
P="taskset -c $2"
(cd tempering && $P $T -o $D/whitening.time /tmp/tempering-white-$1.test -test.run '^$' -test.bench 'ClimbWhitening|FindModeWhitening' -test.benchtime 1x > $D/whitening.txt 2>&1)
B="/tmp/bench-white-$1.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0"
cd bench
$P $T -o $D/fitgp-d3.time $B -large.methods fitgp -large.dims 3 -large.n 1024,2048 > $D/fitgp-d3.txt 2>&1
$P $T -o $D/fitgp-d8.time $B -large.methods fitgp -large.dims 8 -large.n 1024,2048 > $D/fitgp-d8.txt 2>&1
$P $T -o $D/fitgp-diamonds-n2048.time $B -large.methods fitgp -large.csv /tmp/cli-dia/split/train.csv > $D/fitgp-diamonds-n2048.txt 2>&1
