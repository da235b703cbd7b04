#!/bin/sh
# Reproduces the diamonds rows of docs/measurements/2026-11-28/cli-importance: ggplot2's diamonds,
# 2560 random rows (R's set.seed(1)), log price on carat, depth, table, x, y, z, split 80/20 by
# scripts/compare/sklearn_large.py, which fits scikit-learn's ML-II (5 restarts); then the gp
# command's defaults and its --map on the training set, one fit at a time on 2 cores, OpenBLAS
# with one thread per evaluation. Run from the repository root after run.sh (its binary); needs R
# with ggplot2.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-importance
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
rm -rf /tmp/cli-dia && mkdir -p /tmp/cli-dia
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s, "/tmp/cli-dia/dia2560.csv", row.names=FALSE)'
$T -o "$D/sklearn-diamonds.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-dia/dia2560.csv \
	--outdir /tmp/cli-dia/split --out "$D/sklearn-diamonds.json" > /dev/null 2> "$D/sklearn-diamonds.log"
S=/tmp/cli-dia/split
$T -o "$D/diamonds-gp.time" /tmp/st-cli gp --data $S/train.csv --standardize --predict $S/test.csv --out /tmp/cli-dia/gp > "$D/diamonds-gp.out" 2> "$D/diamonds-gp.err"
cp /tmp/cli-dia/gp/predictions.json "$D/diamonds-gp-predictions.json"
cp /tmp/cli-dia/gp/summary.json "$D/diamonds-gp-summary.json"
$T -o "$D/diamonds-map.time" /tmp/st-cli gp --data $S/train.csv --standardize --map --predict $S/test.csv --out /tmp/cli-dia/map > "$D/diamonds-map.out" 2> "$D/diamonds-map.err"
cp /tmp/cli-dia/map/predictions.json "$D/diamonds-map-predictions.json"
