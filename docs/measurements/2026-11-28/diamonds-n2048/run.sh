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
# Both optima's log posterior under subtemper's model, on the training data standardised as
# --standardize does it (ddof 1).
TMP="$TMP" BIN="$BIN" D="$D" /usr/bin/python3 - <<'PY' > "$D/logpost.txt"
import json, os, subprocess
import numpy as np
tmp, binary, d = os.environ["TMP"], os.environ["BIN"], os.environ["D"]
a = np.genfromtxt(f"{tmp}/n2048/train.csv", delimiter=",", skip_header=1)
z = (a - a.mean(0)) / a.std(0, ddof=1)
hdr = open(f"{tmp}/n2048/train.csv").readline().strip().replace('"', '')
np.savetxt(f"{tmp}/n2048/train_std.csv", z, delimiter=",", header=hdr, comments="", fmt="%.17g")
sk = json.load(open(f"{d}/sklearn.json"))["theta_std"]
names = ["carat", "depth", "table", "x", "y", "z"]
mode = json.load(open(f"{d}/map.json"))["warm_start"]["mode_u"]
for label, th in [("scikit-learn's optimum", [sk[f'ell_"{n}"'] for n in names] + [sk["sf"], sk["sn"]]),
                  ("subtemper's MAP", list(np.exp(mode)))]:
    out = subprocess.run([binary, "eval", "gp", "--data", f"{tmp}/n2048/train_std.csv",
                          "--lengthscales", ",".join("%.17g" % x for x in th[:6]),
                          "--sf", "%.17g" % th[6], "--sn", "%.17g" % th[7], "--json"],
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    print(f"{label}: log-likelihood {r['log_marginal_likelihood']:.3f}, log prior {r['log_prior']:.3f}, "
          f"log posterior {r['log_marginal_likelihood'] + r['log_prior']:.3f}")
PY
