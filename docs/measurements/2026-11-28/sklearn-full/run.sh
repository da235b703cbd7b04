#!/bin/sh
# scikit-learn's ML-II fit and subtemper's default fully Bayesian fit side by
# side, one after the other on the same machine: the paper's §4.2 generator,
# D = 8, data seed 1, N = 2560 split 80/20 by scripts/compare/sklearn_large.py
# (numpy RandomState(0) permutation: N_train = 2048, N_test = 512, the split of
# docs/measurements/2026-11-26/sklearn-large/n2048). scikit-learn: ARD RBF +
# white noise, standardised inputs and target, 5 restarts, one BLAS thread.
# The same run as docs/measurements/2026-11-27/sklearn-full, with every
# proposal of the independence sampler screened on its surrogate (the
# default since).
# subtemper: `gp --data train.csv --standardize --predict test.csv`, no tuning
# flags. Writes sklearn.json/.log/.time and subtemper.log/.time,
# subtemper-summary.json, subtemper-predictions.json here.
# Run from the repository root: sh docs/measurements/2026-11-28/sklearn-full/run.sh
set -eu
D=docs/measurements/2026-11-28/sklearn-full
BIN=${BIN:-/tmp/st-skf}
TMP=${TMP:-/tmp/skf}
go build -tags openblas -o "$BIN" ./cmd/subtemper
rm -rf "$TMP" && mkdir -p "$TMP"
"$BIN" gp --n 2560 --dims 8 --data-seed 1 --map --out "$TMP/gen" >/dev/null 2>&1
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -v -o "$D/sklearn.time" \
	/usr/bin/python3 scripts/compare/sklearn_large.py --data "$TMP/gen/data.csv" --outdir "$TMP/split" \
	--out "$D/sklearn.json" >/dev/null 2>"$D/sklearn.log"
/usr/bin/time -v -o "$D/subtemper.time" "$BIN" gp --data "$TMP/split/train.csv" --standardize \
	--predict "$TMP/split/test.csv" --out "$TMP/full" >"$D/subtemper.log" 2>&1
cp "$TMP/full/summary.json" "$D/subtemper-summary.json"
cp "$TMP/full/predictions.json" "$D/subtemper-predictions.json"
