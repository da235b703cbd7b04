#!/usr/bin/python3
"""Held-out predictions of a synthetic set at the θ it was drawn from.

  /usr/bin/python3 scripts/compare/true_theta_gp.py --train TRAIN.csv --test TEST.csv
      --summary GEN/summary.json [--out FILE.json]

For data drawn by `subtemper gp`'s generator (y ~ N(0, K_θ + σn² I), K_θ the
squared-exponential ARD kernel), GEN/summary.json's data.true_theta is
(ℓ_1..ℓ_D, σf, σn) in the data's units. This predicts the test targets from
the training rows with that θ, zero prior mean and no standardisation: the
predictive of y* is N(μ, var_f + σn²). No hyperparameter is fitted, so the
figures (rmse, mlpd, coverage50, coverage90, as sklearn_gp.py reports them)
are what knowing θ would give: a reference for the test set itself, e.g.
how far from 0.9 the coverage of a 90% interval falls on it by chance.
"""
import argparse
import json

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.stats import norm

from jsonout import emit


def read(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return data[:, :-1], data[:, -1]


def kern(A, B, ell, sf):
    d = (A[:, None, :] - B[None, :, :]) / ell
    return sf ** 2 * np.exp(-0.5 * np.sum(d * d, axis=2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    with open(a.summary) as f:
        theta = np.array(json.load(f)["data"]["true_theta"], dtype=float)
    X, y = read(a.train)
    Xt, yt = read(a.test)
    D = X.shape[1]
    ell, sf, sn = theta[:D], theta[D], theta[D + 1]
    c = cho_factor(kern(X, X, ell, sf) + sn ** 2 * np.eye(len(y)), lower=True)
    Ks = kern(Xt, X, ell, sf)
    mu = Ks @ cho_solve(c, y)
    var_f = sf ** 2 - np.sum(Ks * cho_solve(c, Ks.T).T, axis=1)
    s = np.sqrt(np.maximum(var_f, 0) + sn ** 2)
    err = yt - mu
    res = {
        "tool": "true theta", "train": a.train, "test": a.test, "summary": a.summary,
        "n_train": len(y), "n_test": len(yt), "d": D, "theta": theta.tolist(),
        "rmse": float(np.sqrt(np.mean(err ** 2))),
        "mlpd": float(np.mean(norm.logpdf(yt, mu, s))),
        "coverage50": float(np.mean(np.abs(err) <= norm.ppf(0.75) * s)),
        "coverage90": float(np.mean(np.abs(err) <= norm.ppf(0.95) * s)),
    }
    emit(res, a.out)


if __name__ == "__main__":
    main()
