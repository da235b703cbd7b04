"""Log posterior, under subtemper's GP model, of scikit-learn's ML-II optimum
and of subtemper's MAP, on the training data standardised as `subtemper gp
--standardize` does it (mean, sd with n - 1, inputs and target).

    /usr/bin/python3 scripts/compare/logpost_optima.py --bin BIN --train train.csv \
        --sklearn sklearn.json --map map.json [--tmp DIR]

sklearn.json is sklearn_large.py's output (its theta_std), map.json the one
`subtemper gp --map` writes; BIN is the subtemper binary, whose `eval gp`
evaluates each point. Prints one line per optimum.
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the subtemper binary")
    ap.add_argument("--train", required=True, help="training CSV with header, target last")
    ap.add_argument("--sklearn", required=True, help="sklearn_large.py's JSON")
    ap.add_argument("--map", required=True, help="subtemper gp --map's map.json")
    ap.add_argument("--tmp", default="", help="folder for the standardised copy (default: a temporary one)")
    a = ap.parse_args()

    tmp = a.tmp or tempfile.mkdtemp()
    x = np.genfromtxt(a.train, delimiter=",", skip_header=1)
    z = (x - x.mean(0)) / x.std(0, ddof=1)
    header = open(a.train).readline().strip().replace('"', '')
    std = os.path.join(tmp, "train_std.csv")
    np.savetxt(std, z, delimiter=",", header=header, comments="", fmt="%.17g")
    names = header.split(",")[:-1]
    d = len(names)
    sk = json.load(open(a.sklearn))["theta_std"]
    # sklearn_large.py names a length scale ell_ and the column as read,
    # quoted where the CSV quotes it.
    ell = [sk.get(f"ell_{n}", sk.get(f'ell_"{n}"')) for n in names]
    mode = json.load(open(a.map))["warm_start"]["mode_u"]
    for label, th in [("scikit-learn's optimum", ell + [sk["sf"], sk["sn"]]),
                      ("subtemper's MAP", list(np.exp(mode)))]:
        out = subprocess.run([a.bin, "eval", "gp", "--data", std,
                              "--lengthscales", ",".join("%.17g" % v for v in th[:d]),
                              "--sf", "%.17g" % th[d], "--sn", "%.17g" % th[d + 1], "--json"],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"{label}: log-likelihood {r['log_marginal_likelihood']:.3f}, log prior {r['log_prior']:.3f}, "
              f"log posterior {r['log_marginal_likelihood'] + r['log_prior']:.3f}")


if __name__ == "__main__":
    main()
