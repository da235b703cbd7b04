#!/bin/sh
# Reproduces the N = 4096 split of docs/measurements/2026-11-28/cli-importance: the §4.2
# generator's N = 5120 (D = 8, data seed 1), split 80/20 by scripts/compare/sklearn_large.py, which
# fits scikit-learn's ML-II (5 restarts); then the gp command's defaults on the training set
# (4096 rows), one fit at a time on 2 cores, OpenBLAS with one thread per evaluation. Run from the
# repository root after run.sh and run-diamonds.sh (their binary and splits); needs python3-sklearn.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-importance
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
rm -rf /tmp/cli-5120 && mkdir -p /tmp/cli-5120
/tmp/st-cli gp --n 5120 --dims 8 --data-seed 1 --map --out /tmp/cli-5120/gen > /dev/null 2>&1
$T -o "$D/sklearn-gen5120.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-5120/gen/data.csv \
	--outdir /tmp/cli-5120/split --out "$D/sklearn-gen5120.json" > /dev/null 2> "$D/sklearn-gen5120.log"
S=/tmp/cli-5120/split
$T -o "$D/split4096-gp.time" /tmp/st-cli gp --data $S/train.csv --standardize --predict $S/test.csv --out /tmp/cli-5120/gp > "$D/split4096-gp.out" 2> "$D/split4096-gp.err"
cp /tmp/cli-5120/gp/predictions.json "$D/split4096-gp-predictions.json"
cp /tmp/cli-5120/gp/summary.json "$D/split4096-gp-summary.json"
# The fits alone (no --predict; the same seeds, so the same fits), for their CPU time beside
# scikit-learn's fit's: the generator's split at N = 2048 (run.sh), diamonds' (run-diamonds.sh)
# and the N = 4096 split above.
for c in "gen2048 /tmp/cli-is/split" "diamonds /tmp/cli-dia/split" "gen4096 /tmp/cli-5120/split"; do
	set -- $c
	$T -o "$D/fitonly-$1.time" /tmp/st-cli gp --data $2/train.csv --standardize --quiet --out /tmp/cli-fitonly-$1 > "$D/fitonly-$1.out" 2>&1
done
