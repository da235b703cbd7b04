#!/bin/sh
# Reproduces the fit-only CPU times of docs/measurements/2026-11-28/cli-importance: the gp
# command's defaults on the training sets of run.sh's generator split and run-diamonds.sh's
# diamonds split, without --predict (the same seeds, so the same fits as theirs), for their CPU
# time beside scikit-learn's fit's. Run from the repository root after run.sh and run-diamonds.sh
# (their binary and splits).
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-importance
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
for c in "gen2048 /tmp/cli-is/split" "diamonds /tmp/cli-dia/split"; do
	set -- $c
	$T -o "$D/fitonly-$1.time" /tmp/st-cli gp --data $2/train.csv --standardize --quiet --out /tmp/cli-fitonly-$1 > "$D/fitonly-$1.out" 2>&1
done
