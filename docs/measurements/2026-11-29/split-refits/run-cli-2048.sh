#!/bin/sh
# The gp command's defaults on diamonds' training set of N_train = 2048 (/tmp/cli-dia/split, made
# by ../../2026-11-28/corners-fit/run-2048.sh) with the binary of commit $1 on core $2 alone
# (taskset), OpenBLAS with one thread per evaluation; then its posterior means of θ against the
# chains' (`--importance off`, 3 × 10 000 draws) of ../../2026-11-28/corner by
# ../../2026-11-28/corners-fit/zsum.py. Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/split-refits
W=/tmp/sr-cli-$1
git worktree add -f --detach /tmp/src-wt $1 > /dev/null 2>&1
(cd /tmp/src-wt && go build -tags openblas -o /tmp/st-sr-$1 ./cmd/subtemper)
git worktree remove --force /tmp/src-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
rm -rf $W
taskset -c $2 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/cli-2048-$1.time /tmp/st-sr-$1 gp --data /tmp/cli-dia/split/train.csv --standardize --out $W > $D/cli-2048-$1.out 2> $D/cli-2048-$1.err
cp $W/summary.json $D/cli-2048-$1-summary.json
/usr/bin/python3 docs/measurements/2026-11-28/corners-fit/zsum.py $W/summary.json docs/measurements/2026-11-28/corner/n2048-chains-summary.json > $D/cli-2048-$1-zsum.txt
