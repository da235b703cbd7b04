#!/bin/sh
# Reproduces docs/measurements/2026-11-28/diamonds-n2048: ggplot2's diamonds (Debian's
# r-cran-ggplot2), the random 2560 rows of docs/measurements/2026-11-26/diamonds (R's set.seed(1);
# sample), inputs carat, depth, table, x, y, z, target log(price), split 80/20 by
# scripts/compare/sklearn_large.py (numpy RandomState(0)): N_train = 2048, N_test = 512.
# scikit-learn's ML-II (ARD RBF + white noise, 5 restarts, one BLAS thread) beside subtemper's
# --map (both at once, one core each), then subtemper's default full fit alone, cut at 35 minutes
# (--max-time 35m), and both optima's log posteriors under subtemper's model.
# Run from the repository root; needs R, python3-sklearn and OpenBLAS.
set -eu
D=docs/measurements/2026-11-28/diamonds-n2048
BIN=${BIN:-/tmp/st-dia2}
TMP=${TMP:-/tmp/dia2}
go build -tags openblas -o "$BIN" ./cmd/subtemper
mkdir -p "$TMP"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s, "'"$TMP"'/dia2560.csv", row.names=FALSE)'
/usr/bin/python3 scripts/compare/sklearn_large.py --data "$TMP/dia2560.csv" --outdir "$TMP/n2048" \
  > "$D/sklearn.json" 2> "$D/sklearn.log" &
sk=$!
sleep 5 # the split is written first
/usr/bin/time -v "$BIN" gp --data "$TMP/n2048/train.csv" --standardize --map \
  --predict "$TMP/n2048/test.csv" --out "$TMP/map" > "$D/map.log" 2>&1
cp "$TMP/map/map.json" "$D/map.json"
cp "$TMP/map/predictions.json" "$D/map-predictions.json"
wait $sk
/usr/bin/time -v "$BIN" gp --data "$TMP/n2048/train.csv" --standardize --max-time 35m \
  --predict "$TMP/n2048/test.csv" --out "$TMP/full" > "$D/full.log" 2>&1
cp "$TMP/full/summary.json" "$D/summary.json"
cp "$TMP/full/predictions.json" "$D/predictions.json"
# Both optima's log posterior under subtemper's model.
/usr/bin/python3 scripts/compare/logpost_optima.py --bin "$BIN" --train "$TMP/n2048/train.csv" \
  --sklearn "$D/sklearn.json" --map "$D/map.json" --tmp "$TMP" > "$D/logpost.txt"
