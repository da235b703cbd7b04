#!/bin/sh
# Reproduces the scikit-learn ML-II fits of docs/measurements/2026-11-26/sklearn-large:
# synthetic data of the paper's §4.2 generator (D = 8, data seed 1), N = 2560 and 5120,
# split 80/20 (numpy RandomState(0) permutation) into N_train = 2048 and 4096.
# Needs Debian's python3-sklearn (apt-get install python3-sklearn) and OpenBLAS.
# Writes nNNNN/{train,test}.csv, nNNNN/sklearn.json (the results), nNNNN/sklearn.log
# (per-start optimiser log) and gpNNNN-map.{json,log} (subtemper's MAP on the whole data set).
# Run from the repository root: sh docs/measurements/2026-11-26/sklearn-large/run.sh
set -eu
D=docs/measurements/2026-11-26/sklearn-large
BIN=${BIN:-/tmp/st-sk}
TMP=${TMP:-/tmp/sk}
go build -tags openblas -o "$BIN" ./cmd/subtemper
mkdir -p "$TMP"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
for N in 2560 5120; do
  NT=$((N * 4 / 5))
  "$BIN" gp --n $N --dims 8 --data-seed 1 --map --out "$TMP/gp$N" > "$D/gp$N-map.log" 2>&1
  cp "$TMP/gp$N/map.json" "$D/gp$N-map.json"
  mkdir -p "$D/n$NT"
  # The N_train = 4096 fit was given 40 minutes at most.
  timeout 40m /usr/bin/python3 scripts/compare/sklearn_large.py --data "$TMP/gp$N/data.csv" \
    --outdir "$D/n$NT" > /dev/null 2> "$D/n$NT/sklearn.log"
done
