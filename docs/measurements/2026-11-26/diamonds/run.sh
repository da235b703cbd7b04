#!/bin/sh
# ggplot2's diamonds (Debian's r-cran-ggplot2), a random 1280 rows (R's set.seed(1); sample),
# the inputs carat, depth, table, x, y, z and the target log(price); split 80/20 by
# scripts/compare/sklearn_large.py (numpy RandomState(0) permutation): N_train = 1024, N_test = 256.
# scikit-learn's ML-II (ARD RBF + white noise, 5 restarts, one BLAS thread), then subtemper's --map
# and its full fit on the same split, and both log posteriors evaluated by `subtemper eval gp`.
# Run from the repository root: sh docs/measurements/2026-11-26/diamonds/run.sh
set -eu
D=docs/measurements/2026-11-26/diamonds
BIN=${BIN:-/tmp/st-dia}
TMP=${TMP:-/tmp/dia}
go build -tags openblas -o "$BIN" ./cmd/subtemper
mkdir -p "$TMP"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s[1:1280,], "'"$TMP"'/dia1280.csv", row.names=FALSE)'
/usr/bin/python3 scripts/compare/sklearn_large.py --data "$TMP/dia1280.csv" --outdir "$TMP/n1024" \
  > "$D/sklearn-n1024.json" 2> "$D/sklearn-n1024.log"
/usr/bin/time -f "%U user %S sys %e wall" "$BIN" gp --data "$TMP/n1024/train.csv" --standardize --map \
  --predict "$TMP/n1024/test.csv" --out "$TMP/map1024" > "$D/map-n1024.log" 2>&1
cp "$TMP/map1024/map.json" "$D/map-n1024.json"
/usr/bin/time -f "%U user %S sys %e wall" "$BIN" gp --data "$TMP/n1024/train.csv" --standardize \
  --predict "$TMP/n1024/test.csv" --out "$TMP/full1024" > "$D/full-n1024.log" 2>&1
cp "$TMP/full1024/summary.json" "$D/full-n1024-summary.json"
# Both optima's log posterior under subtemper's model, on the training data standardised as
# --standardize does it (ddof 1).
TMP="$TMP" BIN="$BIN" /usr/bin/python3 - <<'PY' > "$D/logpost-n1024.txt"
import json, os, subprocess
import numpy as np
tmp, binary = os.environ["TMP"], os.environ["BIN"]
a = np.genfromtxt(f"{tmp}/n1024/train.csv", delimiter=",", skip_header=1)
z = (a - a.mean(0)) / a.std(0, ddof=1)
hdr = open(f"{tmp}/n1024/train.csv").readline().strip().replace('"', '')
np.savetxt(f"{tmp}/n1024/train_std.csv", z, delimiter=",", header=hdr, comments="", fmt="%.17g")
sk = json.load(open("docs/measurements/2026-11-26/diamonds/sklearn-n1024.json"))["theta_std"]
names = ["carat", "depth", "table", "x", "y", "z"]
mode = json.load(open(f"{tmp}/map1024/map.json"))["warm_start"]["mode_u"]
for label, th in [("scikit-learn's optimum", [sk[f'ell_"{n}"'] for n in names] + [sk["sf"], sk["sn"]]),
                  ("subtemper's MAP", list(np.exp(mode)))]:
    out = subprocess.run([binary, "eval", "gp", "--data", f"{tmp}/n1024/train_std.csv",
                          "--lengthscales", ",".join("%.17g" % x for x in th[:6]),
                          "--sf", "%.17g" % th[6], "--sn", "%.17g" % th[7], "--json"],
                         capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    print(f"{label}: log-likelihood {d['log_marginal_likelihood']:.3f}, log prior {d['log_prior']:.3f}, "
          f"log posterior {d['log_marginal_likelihood'] + d['log_prior']:.3f}")
PY
