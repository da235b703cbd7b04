#!/usr/bin/python3
"""Paired held-out comparison of subtemper's predictions with scikit-learn's ML-II fit.

  /usr/bin/python3 scripts/compare/paired_lpd.py --sklearn sklearn.json --ours predictions.csv

sklearn.json is what scripts/compare/sklearn_large.py wrote; predictions.csv is subtemper's on the
test set it wrote (gp --predict or predict --fit), whose log_density column holds each test point's
log predictive density in the data's units. The script recomputes scikit-learn's predictive density
at each test point from the fitted hyperparameters in sklearn.json (theta_std: ARD RBF plus white
noise in standardised units, the training set's means and sds), checks that their mean is
sklearn.json's mlpd (to 1e-9), and reports as JSON on stdout the per-point differences
d_i = ours_i - sklearn_i: their mean (the difference of the MLPDs), the standard error of that mean
(sd(d) / sqrt(n): the test points are independent draws, so this is the paired comparison's
uncertainty over test sets like this one), z = mean / se, and the fraction of points where ours is
higher; and the mean difference on the tenth of the points of lowest scikit-learn density and on
the others.
"""
import argparse
import csv
import json
import math
import sys

import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.stats import norm


def sklearn_pointwise(js):
    tr = np.loadtxt(js["train"], delimiter=",", skiprows=1, ndmin=2)
    te = np.loadtxt(js["test"], delimiter=",", skiprows=1, ndmin=2)
    xm, xs = np.array(js["train_x_mean"]), np.array(js["train_x_sd"])
    ym, ys = js["train_y_mean"], js["train_y_sd"]
    Z, zy = (tr[:, :-1] - xm) / xs, (tr[:, -1] - ym) / ys
    Zt, zyt = (te[:, :-1] - xm) / xs, (te[:, -1] - ym) / ys
    th = js["theta_std"]
    ell = np.array([v for k, v in th.items() if k.startswith("ell_")])
    sf2, sn2 = th["sf"] ** 2, th["sn"] ** 2

    def k(a, b):
        a, b = a / ell, b / ell
        d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
        return sf2 * np.exp(-0.5 * np.maximum(d2, 0))

    K = k(Z, Z) + (sn2 + 1e-10) * np.eye(len(zy))  # 1e-10: sklearn's alpha
    c = cho_factor(K, lower=True)
    Ks = k(Zt, Z)
    mu = Ks @ cho_solve(c, zy)
    v = solve_triangular(c[0], Ks.T, lower=True)
    sd = np.sqrt(np.maximum(sf2 + sn2 - (v * v).sum(0), 1e-300))
    return norm.logpdf(zyt, mu, sd) - math.log(ys)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sklearn", required=True, help="JSON written by sklearn_large.py")
    ap.add_argument("--ours", required=True, help="subtemper's predictions.csv on the same test set")
    a = ap.parse_args()
    with open(a.sklearn) as f:
        js = json.load(f)
    sk = sklearn_pointwise(js)
    if abs(sk.mean() - js["mlpd"]) > 1e-9 * max(1, abs(js["mlpd"])):
        sys.exit(f"recomputed scikit-learn MLPD {sk.mean()} differs from sklearn.json's {js['mlpd']}")
    with open(a.ours) as f:
        rows = list(csv.DictReader(f))
    if not rows or "log_density" not in rows[0]:
        sys.exit(f"{a.ours}: no log_density column (predict on a test file with the target)")
    ours = np.array([float(r["log_density"]) for r in rows])
    if len(ours) != len(sk):
        sys.exit(f"{a.ours}: {len(ours)} rows, the test set has {len(sk)}")
    d = ours - sk
    n = len(d)
    se = d.std(ddof=1) / math.sqrt(n)
    worst = sk <= np.quantile(sk, 0.1)  # the tenth of the points scikit-learn predicts worst
    res = {"n": n, "mlpd_ours": float(ours.mean()), "mlpd_sklearn": float(sk.mean()),
           "mean_diff": float(d.mean()), "se_diff": float(se), "z": float(d.mean() / se),
           "frac_ours_higher": float((d > 0).mean()),
           "mean_diff_sklearn_worst_tenth": float(d[worst].mean()), "mean_diff_others": float(d[~worst].mean()),
           "sklearn": a.sklearn, "ours": a.ours}
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
