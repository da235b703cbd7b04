#!/bin/sh
# Diamonds at N_train = 4096 (the split of ../diamonds-n4096/run.sh, in /tmp/dia4096/split), the
# gp command's defaults with the binary of $1, at most 55 minutes of sampling, predicting the
# held-out 1 024 rows; then the paired comparison with scikit-learn's predictions
# (../diamonds-n4096/sklearn.json) and log ℓ_depth in slices of log ℓ_z (corner.py). OpenBLAS with
# one thread per evaluation, on 2 cores shared with run-gen.sh for its first minutes.
set -u
D=$PWD/docs/measurements/2026-11-28/corners-fit
S=/tmp/dia4096/split
W=/tmp/corners4096
rm -rf $W
git worktree add -f --detach /tmp/corners-4096 $1 > /dev/null 2>&1
(cd /tmp/corners-4096 && go build -tags openblas -o /tmp/st4096-$1 ./cmd/subtemper)
git worktree remove --force /tmp/corners-4096
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/n4096-$1.time /tmp/st4096-$1 gp --data $S/train.csv --standardize --max-time 55m --predict $S/test.csv --out $W > $D/n4096-$1.out 2> $D/n4096-$1.err
cp $W/summary.json $D/n4096-$1-summary.json
cp $W/predictions.json $D/n4096-$1-predictions.json
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/diamonds-n4096/sklearn.json --ours $W/predictions.csv > $D/n4096-$1-paired.json
/usr/bin/python3 docs/measurements/2026-11-28/mixture/corner.py $W/draws.csv > $D/n4096-$1-corner.txt
