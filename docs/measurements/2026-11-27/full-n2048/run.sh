#!/bin/sh
# The fully Bayesian fit beside scikit-learn's ML-II point estimate, one after the other in one run:
# the §4.2 generator at D = 8 (data seed 1), N = 2560 split 80/20 as
# docs/measurements/2026-11-26/sklearn-large (N_train = 2048). Needs python3-sklearn and OpenBLAS.
# Writes sklearn.json and sklearn.log (scikit-learn, 5 restarts, one BLAS thread), and
# full.log, full-time.txt (the fit's process, timed alone) and summary.json (`subtemper gp` with no
# tuning flags on train.csv, --standardize; one BLAS thread per chain, the CLI's default on 2
# cores), then predict.log and predictions.json (`subtemper predict` on test.csv from 400 draws). Run from the repository root.
set -eu
D=docs/measurements/2026-11-27/full-n2048
BIN=${BIN:-/tmp/st-full}
TMP=${TMP:-/tmp/full2048}
go build -tags openblas -o "$BIN" ./cmd/subtemper
rm -rf "$TMP" && mkdir -p "$TMP"
"$BIN" gp --n 2560 --dims 8 --data-seed 1 --map --out "$TMP/gen" > /dev/null 2>&1
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/python3 scripts/compare/sklearn_large.py \
  --data "$TMP/gen/data.csv" --outdir "$TMP/split" --out "$D/sklearn.json" > /dev/null 2> "$D/sklearn.log"
/usr/bin/time -v -o "$D/full-time.txt" "$BIN" gp --data "$TMP/split/train.csv" --standardize \
  --out "$TMP/full" > "$D/full.log" 2>&1
"$BIN" predict --fit "$TMP/full" --data "$TMP/split/test.csv" --predict-draws 400 --out "$TMP/pred" > "$D/predict.log" 2>&1
cp "$TMP/full/summary.json" "$TMP/pred/predictions.json" "$D/"
