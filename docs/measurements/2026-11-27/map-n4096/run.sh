#!/bin/sh
# subtemper gp --map beside scikit-learn's ML-II (ARD RBF + white noise, 5 restarts, one BLAS
# thread) at N_train = 4096, D = 8: the paper's §4.2 generator, data seed 1, N = 5120, split 80/20
# by scripts/compare/sklearn_large.py (numpy RandomState(0)), the split of
# docs/measurements/2026-11-26/sklearn-large/n4096 (checked). The two fits run at the same time
# on the 2 cores (CPU time compared); then both optima's log posterior under subtemper's model, on the training
# data standardised as --standardize does it (ddof 1), by `subtemper eval gp`.
# Run from the repository root: sh docs/measurements/2026-11-27/map-n4096/run.sh
set -eu
D=docs/measurements/2026-11-27/map-n4096
S=docs/measurements/2026-11-26/sklearn-large/n4096
BIN=${BIN:-/tmp/st-map}
TMP=${TMP:-/tmp/map4096}
go build -tags openblas -o "$BIN" ./cmd/subtemper
mkdir -p "$TMP"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# The data set (the CLI writes it as data.csv).
[ -f "$TMP/gp5120/data.csv" ] || "$BIN" gp --n 5120 --dims 8 --data-seed 1 --map --out "$TMP/gp5120" > /dev/null 2>&1
(timeout 50m /usr/bin/python3 scripts/compare/sklearn_large.py --data "$TMP/gp5120/data.csv" \
  --outdir "$TMP/sk" > /dev/null 2> "$D/sklearn.log"; cp "$TMP/sk/sklearn.json" "$D/sklearn.json") &
/usr/bin/time -f "%U user %S sys %e wall" "$BIN" gp --data "$S/train.csv" --standardize --map \
  --predict "$S/test.csv" --out "$TMP/map" > "$D/map.log" 2>&1
cp "$TMP/map/map.json" "$D/map.json"
cp "$TMP/map/predictions.json" "$D/map-predictions.json"
wait
cmp "$TMP/sk/train.csv" "$S/train.csv"
cmp "$TMP/sk/test.csv" "$S/test.csv"
TMP="$TMP" BIN="$BIN" S="$S" D="$D" /usr/bin/python3 - <<'PY' > "$D/logpost.txt"
import json, os, subprocess
import numpy as np
tmp, binary, s, d = os.environ["TMP"], os.environ["BIN"], os.environ["S"], os.environ["D"]
a = np.genfromtxt(f"{s}/train.csv", delimiter=",", skip_header=1)
z = (a - a.mean(0)) / a.std(0, ddof=1)
hdr = open(f"{s}/train.csv").readline().strip().replace('"', '')
np.savetxt(f"{tmp}/train_std.csv", z, delimiter=",", header=hdr, comments="", fmt="%.17g")
sk = json.load(open(f"{d}/sklearn.json"))["theta_std"]
names = [f"x{i}" for i in range(1, 9)]
mode = json.load(open(f"{d}/map.json"))["warm_start"]["mode_u"]
for label, th in [("scikit-learn's optimum", [sk[f"ell_{n}"] for n in names] + [sk["sf"], sk["sn"]]),
                  ("subtemper's MAP", list(np.exp(mode)))]:
    out = subprocess.run([binary, "eval", "gp", "--data", f"{tmp}/train_std.csv",
                          "--lengthscales", ",".join("%.17g" % x for x in th[:8]),
                          "--sf", "%.17g" % th[8], "--sn", "%.17g" % th[9], "--json"],
                         capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    print(f"{label}: log-likelihood {j['log_marginal_likelihood']:.3f}, log prior {j['log_prior']:.3f}, "
          f"log posterior {j['log_marginal_likelihood'] + j['log_prior']:.3f}")
PY
