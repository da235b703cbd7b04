#!/usr/bin/python3
"""scikit-learn baseline for subtemper's GP predictions (ML-II point estimate).

  /usr/bin/python3 scripts/compare/sklearn_gp.py --train TRAIN.csv --test TEST.csv
      [--target COL] [--restarts 10] [--seed 0] [--out FILE.json]

Fits GaussianProcessRegressor with ConstantKernel * RBF (one length scale
per input, ARD) + WhiteKernel by maximising the log marginal likelihood
(ML-II, L-BFGS-B with n_restarts_optimizer restarts from random points), on
inputs and target standardised with the training set's means and sample
standard deviations (n - 1), as `subtemper gp --standardize` does, and
predicts the test set. The predictive distribution of y* is Gaussian with
mean mu and variance var_f + sigma_n^2 (the fitted WhiteKernel noise), mapped
back to the data's units. Reports (JSON on stdout, and to --out):

  rmse        root mean squared error of the predictive mean
  mlpd        mean log predictive density, mean_i log N(y_i | mu_i, s_i^2)
  coverage50  fraction of test targets inside the central 50% interval
  coverage90  fraction inside the central 90% interval
  fit_seconds / predict_seconds  process CPU time (time.process_time) and
              wall time of fitting and predicting
  the fitted hyperparameters in the data's units (ell_j = ell_j,std * sd(x_j),
  sf = sqrt(constant) * sd(y), sn = sqrt(noise) * sd(y)) and the log
  marginal likelihood.

Use Debian's python3 (/usr/bin/python3) with python3-sklearn.
"""
import argparse
import math
import time

import numpy as np
import sklearn
from scipy.stats import norm
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from jsonout import emit


def read(path, target):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    t = len(header) - 1 if not target else header.index(target)
    cols = [j for j in range(len(header)) if j != t]
    return data[:, cols], data[:, t], [header[j] for j in cols], header[t]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--target", default="")
    ap.add_argument("--restarts", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="")
    a = ap.parse_args()

    X, y, names, tname = read(a.train, a.target)
    Xt, yt, names_t, _ = read(a.test, a.target)
    if names_t != names:
        raise SystemExit(f"test columns {names_t} differ from training columns {names}")
    xm, xs = X.mean(0), X.std(0, ddof=1)
    ym, ys = y.mean(), y.std(ddof=1)
    Z, zt = (X - xm) / xs, (y - ym) / ys
    Zt = (Xt - xm) / xs
    D = X.shape[1]
    kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(D), (1e-2, 1e3)) + WhiteKernel(0.1, (1e-6, 1e1))
    gpr = GaussianProcessRegressor(kernel=kernel, n_restarts_optimizer=a.restarts, random_state=a.seed,
                                   normalize_y=False)
    c0, w0 = time.process_time(), time.perf_counter()
    gpr.fit(Z, zt)
    c1, w1 = time.process_time(), time.perf_counter()
    mu, sd_f = gpr.predict(Zt, return_std=True)
    c2, w2 = time.process_time(), time.perf_counter()
    k = gpr.kernel_
    const, ell, noise = k.k1.k1.constant_value, np.atleast_1d(k.k1.k2.length_scale), k.k2.noise_level
    # sklearn's predict std of a kernel with WhiteKernel includes the white
    # noise term on the test points' diagonal (k(x*, x*) contains it), so
    # sd_f is already the sd of y*, not of f*; the latent sd removes it.
    var_y = sd_f ** 2
    var_f = np.maximum(var_y - noise, 0)
    m = ym + ys * mu
    s = ys * np.sqrt(var_y)
    err = yt - m
    res = {
        "tool": "scikit-learn", "version": sklearn.__version__,
        "train": a.train, "test": a.test, "n_train": len(y), "n_test": len(yt), "d": D,
        "kernel": "ConstantKernel * RBF(ARD) + WhiteKernel, inputs and target standardised with the training set",
        "restarts": a.restarts, "seed": a.seed,
        "rmse": float(np.sqrt(np.mean(err ** 2))),
        "mlpd": float(np.mean(norm.logpdf(yt, m, s))),
        "coverage50": float(np.mean(np.abs(err) <= norm.ppf(0.75) * s)),
        "coverage90": float(np.mean(np.abs(err) <= norm.ppf(0.95) * s)),
        "fit_cpu_seconds": c1 - c0, "fit_wall_seconds": w1 - w0,
        "predict_cpu_seconds": c2 - c1, "predict_wall_seconds": w2 - w1,
        "log_marginal_likelihood_std_units": float(gpr.log_marginal_likelihood_value_),
        "theta": {**{f"ell_{n}": float(l * s_) for n, l, s_ in zip(names, ell, xs)},
                  "sf": float(math.sqrt(const) * ys), "sn": float(math.sqrt(noise) * ys)},
        "latent_sd_mean": float(np.mean(ys * np.sqrt(var_f))),
        "kernel_fitted_std_units": str(k),
    }
    emit(res, a.out)


if __name__ == "__main__":
    main()
