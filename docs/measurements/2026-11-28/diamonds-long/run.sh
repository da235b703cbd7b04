#!/bin/sh
# Reproduces docs/measurements/2026-11-28/diamonds-long: the default full fit of ggplot2's diamonds
# split of docs/measurements/2026-11-26/diamonds (N_train = 1024, D = 6, the same rows and split;
# scikit-learn's figures there) with at most 6 000 draws per chain (--draws 6000) in place of the
# default's 2 000, which that fit reached unconverged. Needs R with r-cran-ggplot2, python3 with
# numpy and OpenBLAS. Run from the repository root.
set -eu
D=docs/measurements/2026-11-28/diamonds-long
BIN=${BIN:-/tmp/st-dial}
TMP=${TMP:-/tmp/dial}
go build -tags openblas -o "$BIN" ./cmd/subtemper
mkdir -p "$TMP"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s[1:1280,], "'"$TMP"'/dia1280.csv", row.names=FALSE)'
# The split of scripts/compare/sklearn_large.py (numpy RandomState(0) permutation, 80/20), without
# refitting scikit-learn.
TMP="$TMP" /usr/bin/python3 - <<'PY'
import os, numpy as np
tmp = os.environ["TMP"]
lines = open(f"{tmp}/dia1280.csv").read().splitlines()
hdr, rows = lines[0], [l for l in lines[1:] if l.strip()]
perm = np.random.RandomState(0).permutation(len(rows))
ntr = int(round(0.8 * len(rows)))
os.makedirs(f"{tmp}/n1024", exist_ok=True)
for name, idx in (("train", np.sort(perm[:ntr])), ("test", np.sort(perm[ntr:]))):
    with open(f"{tmp}/n1024/{name}.csv", "w") as f:
        f.write(hdr + "\n" + "\n".join(rows[i] for i in idx) + "\n")
PY
/usr/bin/time -v "$BIN" gp --data "$TMP/n1024/train.csv" --standardize --draws 6000 \
  --predict "$TMP/n1024/test.csv" --out "$TMP/full" > "$D/full.log" 2>&1
cp "$TMP/full/summary.json" "$D/summary.json"
cp "$TMP/full/predictions.json" "$D/predictions.json"
