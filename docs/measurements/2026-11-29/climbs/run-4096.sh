#!/bin/sh
# Diamonds at N_train = 4096 (the split of ../../2026-11-28/diamonds-n4096/run.sh, in
# /tmp/dia4096/split), the gp command's defaults with the binary of $1, at most 55 minutes of
# sampling, predicting the held-out 1 024 rows; then the paired comparison with scikit-learn's
# predictions (../../2026-11-28/diamonds-n4096/sklearn.json) and log ℓ_depth in slices of log ℓ_z
# (corner.py). OpenBLAS with one thread per evaluation. $2, if given, is the seed (default 1; the
# files' names then end in -seed$2).
set -u
SEED=${2:-1}
TAG=$1
[ "$SEED" != 1 ] && TAG=$1-seed$SEED
D=$PWD/docs/measurements/2026-11-29/climbs
M=$PWD/docs/measurements/2026-11-28
S=/tmp/dia4096/split
W=/tmp/climbs4096
rm -rf $W
git worktree add -f --detach /tmp/climbs-4096 $1 > /dev/null 2>&1
(cd /tmp/climbs-4096 && go build -tags openblas -o /tmp/st4096-$1 ./cmd/subtemper)
git worktree remove --force /tmp/climbs-4096
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/n4096-$TAG.time /tmp/st4096-$1 gp --data $S/train.csv --standardize --seed $SEED --max-time 55m --predict $S/test.csv --out $W > $D/n4096-$TAG.out 2> $D/n4096-$TAG.err
cp $W/summary.json $D/n4096-$TAG-summary.json
cp $W/predictions.json $D/n4096-$TAG-predictions.json
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn $M/diamonds-n4096/sklearn.json --ours $W/predictions.csv > $D/n4096-$TAG-paired.json
/usr/bin/python3 $M/mixture/corner.py $W/draws.csv > $D/n4096-$TAG-corner.txt
cp $W/draws.csv /tmp/climbs4096-draws-$TAG.csv
