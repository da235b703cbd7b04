#!/bin/sh
# Reproduces the N = 4096 pair of docs/measurements/2026-11-28/cli-importance: the §4.2
# generator's N = 5120 (D = 8, data seed 1), split 80/20 by scripts/compare/sklearn_large.py, which
# fits scikit-learn's ML-II (5 restarts); then the gp command's defaults on the training set
# (4096 rows) with predictions at the 1024 test rows, one after the other on 2 cores, OpenBLAS
# with one thread per evaluation. The fit's CPU time is summary.json's warm_start.cpu_seconds plus
# timings.process_cpu_seconds. Run from the repository root; needs OpenBLAS and python3-sklearn.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-importance
go build -tags openblas -o /tmp/st-4096 ./cmd/subtemper
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
rm -rf /tmp/cli-5120 && mkdir -p /tmp/cli-5120
/tmp/st-4096 gp --n 5120 --dims 8 --data-seed 1 --map --out /tmp/cli-5120/gen > /dev/null 2>&1
$T -o "$D/sklearn-gen5120.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-5120/gen/data.csv \
	--outdir /tmp/cli-5120/split --out "$D/sklearn-gen5120.json" > /dev/null 2> "$D/sklearn-gen5120.log"
S=/tmp/cli-5120/split
$T -o "$D/split4096-gp.time" /tmp/st-4096 gp --data $S/train.csv --standardize --predict $S/test.csv --out /tmp/cli-5120/gp > "$D/split4096-gp.out" 2> "$D/split4096-gp.err"
cp /tmp/cli-5120/gp/predictions.json "$D/split4096-gp-predictions.json"
cp /tmp/cli-5120/gp/summary.json "$D/split4096-gp-summary.json"
