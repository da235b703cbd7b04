#!/bin/sh
# The gp command's defaults on the training set of run.sh (N_train = 4096, /tmp/dia4096-$2/split)
# with the binary of commit $1 (the whitened searches and the batches that shrink to the ESS), on
# core $3 alone (taskset), after run.sh's fit; then, once run.sh's scikit-learn fit has written
# sklearn.json, the paired held-out comparison. OpenBLAS with one thread per evaluation. Run from
# the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/diamonds-n4096
S=/tmp/dia4096-$2/split
W=/tmp/dia4096-new-$1
git worktree add -f --detach /tmp/dia-new-wt $1 > /dev/null 2>&1
(cd /tmp/dia-new-wt && go build -tags openblas -o /tmp/st-dia-$1 ./cmd/subtemper)
git worktree remove --force /tmp/dia-new-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
rm -rf $W
taskset -c $3 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o "$D/gp-$1.time" /tmp/st-dia-$1 gp --data $S/train.csv --standardize --predict $S/test.csv --out $W > "$D/gp-$1.out" 2> "$D/gp-$1.err"
cp $W/summary.json "$D/gp-$1-summary.json"
while [ ! -s "$D/sklearn.time" ]; do sleep 10; done
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn "$D/sklearn.json" --ours $W/predictions.csv > "$D/paired-gp-$1.json"
