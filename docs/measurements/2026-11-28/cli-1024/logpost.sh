#!/bin/sh
# The log posterior density at scikit-learn's optimum, on the training data standardised as
# `gp --standardize` does it (means and sds with ddof 1), for comparison with the log posterior at
# our mode that `gp --map` prints. Usage: logpost.sh SKLEARN.json OUT.json (needs /tmp/st-1024 of
# run.sh).
set -eu
/usr/bin/python3 - "$1" /tmp/logpost-std.csv > /tmp/logpost-args <<'PY'
import json, sys
import numpy as np
js = json.load(open(sys.argv[1]))
lines = open(js["train"]).read().splitlines()
tr = np.loadtxt(js["train"], delimiter=",", skiprows=1, ndmin=2)
z = (tr - tr.mean(0)) / tr.std(0, ddof=1)
np.savetxt(sys.argv[2], z, delimiter=",", header=lines[0], comments="", fmt="%.17g")
th = js["theta_std"]
ell = [v for k, v in th.items() if k.startswith("ell_")]
print("--lengthscales", ",".join(repr(v) for v in ell), "--sf", repr(th["sf"]), "--sn", repr(th["sn"]))
PY
/tmp/st-1024 eval gp --data /tmp/logpost-std.csv $(cat /tmp/logpost-args) --json > "$2"
