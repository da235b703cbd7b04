#!/usr/bin/python3
"""scikit-learn ML-II fit of a large GP regression problem, for timing and
accuracy side by side with subtemper.

  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
  /usr/bin/python3 scripts/compare/sklearn_large.py --data DATA.csv --outdir DIR \\
      [--train-frac 0.8] [--split-seed 0] [--restarts 5] [--seed 0] [--out FILE.json]

Reads DATA.csv (header row; the last column is the target, the others the
inputs), splits it 80/20: the first round(0.8 N) indices of
numpy.random.RandomState(0).permutation(N) are the training set, the rest the
test set. Both are written to DIR/train.csv and DIR/test.csv (lines copied
verbatim, in the order of DATA.csv), so that another tool can fit exactly the
same split.

Inputs and target are standardised with the training set's means and sample
sds (ddof=1). GaussianProcessRegressor with
ConstantKernel() * RBF(length_scale=np.ones(D)) + WhiteKernel() (sklearn's
default initial values and bounds), normalize_y=False, n_restarts_optimizer=5,
random_state=0, is fitted by L-BFGS-B on the log marginal likelihood, with
sklearn's own optimiser call (scipy.optimize.minimize, method L-BFGS-B,
jac=True), wrapped only to log each start's result, evaluation count and time.

Predictions: sklearn's predict(return_std=True) returns the sd of y*, not of
f*: its variance is kernel_.diag(X*) - v'v, and kernel_.diag includes the
WhiteKernel's noise_level (the script checks this). The predictive density of
a test target is N(y | mu, sd^2) with that sd; in the original units
mean = mu*ysd + ymean, sd = sd*ysd, log density = log N(z | mu, sd) - log(ysd).

Reports JSON (stdout, and --out; DIR/sklearn.json by default):
  n_train, n_test, d, cpu_s and wall_s of fit (time.process_time counts the
  CPU time of all threads of the process; time.perf_counter wall time),
  theta_std (ell_1..ell_D, sf = sqrt(constant), sn = sqrt(noise_level) in
  standardised units), theta_orig (ell_j * sd(x_j), sf * sd(y), sn * sd(y)),
  log_marginal_likelihood (sklearn's log_marginal_likelihood_value_, of the
  standardised target) and the same in the original units of y
  (minus n_train * log(sd(y))), rmse, mlpd, coverage90 (and coverage50) of the
  test targets in the original units, and each optimiser start's result
  (optimizer_starts: start 0 is the initial kernel, the others sklearn's
  log-uniform draws within the bounds; their initial_theta_std and theta_std
  are sklearn's kernel hyperparameters in standardised units, in its order:
  constant = sf^2, ell_1..ell_D, noise_level = sn^2; lml at the optimum; nfev
  evaluations of the log marginal likelihood and its gradient; cpu_s, wall_s).

Use Debian's python3 (/usr/bin/python3) with python3-sklearn.
"""
import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np
import scipy
import scipy.optimize
import sklearn
from scipy.stats import norm
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel


def blas_info():
    try:
        from threadpoolctl import threadpool_info
        return [{k: p.get(k) for k in ("internal_api", "num_threads", "version", "filepath")}
                for p in threadpool_info()]
    except Exception as e:  # threadpoolctl absent or failing: not essential
        return f"threadpoolctl unavailable: {e}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="CSV with header; last column is the target")
    ap.add_argument("--outdir", required=True, help="folder for train.csv, test.csv and sklearn.json")
    ap.add_argument("--train-frac", type=float, default=0.8)
    ap.add_argument("--split-seed", type=int, default=0, help="numpy RandomState seed of the permutation")
    ap.add_argument("--restarts", type=int, default=5, help="n_restarts_optimizer")
    ap.add_argument("--seed", type=int, default=0, help="random_state of GaussianProcessRegressor")
    ap.add_argument("--out", default="", help="JSON output (default OUTDIR/sklearn.json)")
    a = ap.parse_args()

    # Split, copying lines verbatim.
    with open(a.data) as f:
        lines = f.read().splitlines()
    header, rows = lines[0], [l for l in lines[1:] if l.strip()]
    names = header.split(",")
    n = len(rows)
    perm = np.random.RandomState(a.split_seed).permutation(n)
    k = int(round(a.train_frac * n))
    idx_tr, idx_te = np.sort(perm[:k]), np.sort(perm[k:])
    os.makedirs(a.outdir, exist_ok=True)
    paths = {}
    for name, idx in (("train", idx_tr), ("test", idx_te)):
        paths[name] = os.path.join(a.outdir, f"{name}.csv")
        with open(paths[name], "w") as f:
            f.write(header + "\n")
            for i in idx:
                f.write(rows[i] + "\n")

    tr = np.loadtxt(paths["train"], delimiter=",", skiprows=1, ndmin=2)
    te = np.loadtxt(paths["test"], delimiter=",", skiprows=1, ndmin=2)
    X, y, Xt, yt = tr[:, :-1], tr[:, -1], te[:, :-1], te[:, -1]
    D = X.shape[1]
    xm, xs = X.mean(0), X.std(0, ddof=1)
    ym, ys = y.mean(), y.std(ddof=1)
    Z, zy, Zt, zyt = (X - xm) / xs, (y - ym) / ys, (Xt - xm) / xs, (yt - ym) / ys

    # sklearn's default optimiser ("fmin_l_bfgs_b": scipy.optimize.minimize,
    # L-BFGS-B, jac=True, default options), logging each start.
    starts = []
    t_start = [time.process_time(), time.perf_counter()]

    def optimizer(obj_func, initial_theta, bounds):
        res = scipy.optimize.minimize(obj_func, initial_theta, method="L-BFGS-B", jac=True, bounds=bounds)
        c, w = time.process_time(), time.perf_counter()
        s = {"start": len(starts), "initial_theta_std": np.exp(initial_theta).tolist(),
             "theta_std": np.exp(res.x).tolist(), "lml": float(-res.fun),
             "nit": int(res.nit), "nfev": int(res.nfev), "success": bool(res.success),
             "message": str(res.message), "cpu_s": c - t_start[0], "wall_s": w - t_start[1]}
        t_start[:] = [c, w]
        starts.append(s)
        print(f"start {s['start']}: lml {s['lml']:.4f} nfev {s['nfev']} nit {s['nit']} "
              f"cpu {s['cpu_s']:.1f}s wall {s['wall_s']:.1f}s {s['message']}", file=sys.stderr, flush=True)
        return res.x, res.fun

    kernel = ConstantKernel() * RBF(length_scale=np.ones(D)) + WhiteKernel()
    gpr = GaussianProcessRegressor(kernel=kernel, optimizer=optimizer, n_restarts_optimizer=a.restarts,
                                   random_state=a.seed, normalize_y=False)
    print(f"fitting N_train = {len(y)}, D = {D}, {a.restarts} restarts", file=sys.stderr, flush=True)
    c0, w0 = time.process_time(), time.perf_counter()
    t_start[:] = [c0, w0]
    gpr.fit(Z, zy)
    c1, w1 = time.process_time(), time.perf_counter()
    mu, sd = gpr.predict(Zt, return_std=True)
    c2, w2 = time.process_time(), time.perf_counter()

    kf = gpr.kernel_
    const, ell, noise = kf.k1.k1.constant_value, np.atleast_1d(kf.k1.k2.length_scale), kf.k2.noise_level
    # Does predict's sd include the WhiteKernel noise? kernel_.diag(x*) = constant + noise.
    diag = float(kf.diag(Zt[:1])[0])
    includes_noise = bool(abs(diag - (const + noise)) < 1e-10 * (const + noise))
    if not includes_noise:
        raise SystemExit(f"unexpected: kernel_.diag = {diag}, constant + noise = {const + noise}")

    m, s = ym + ys * mu, ys * sd
    err = yt - m
    lml = float(gpr.log_marginal_likelihood_value_)
    res = {
        "tool": "scikit-learn", "sklearn": sklearn.__version__, "numpy": np.__version__,
        "scipy": scipy.__version__, "python": platform.python_version(), "machine": platform.node(),
        "cpus": os.cpu_count(),
        "env": {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        "blas": blas_info(),
        "data": a.data, "train": paths["train"], "test": paths["test"],
        "split": f"numpy RandomState({a.split_seed}).permutation(N): first {k} train, rest test; rows in file order",
        "n_train": len(y), "n_test": len(yt), "d": D,
        "kernel_initial": str(kernel), "kernel_fitted_std_units": str(kf),
        "restarts": a.restarts, "seed": a.seed, "normalize_y": False,
        "cpu_s": c1 - c0, "wall_s": w1 - w0,
        "predict_cpu_s": c2 - c1, "predict_wall_s": w2 - w1,
        "theta_std": {**{f"ell_{nm}": float(l) for nm, l in zip(names[:-1], ell)},
                      "sf": math.sqrt(const), "sn": math.sqrt(noise)},
        "theta_orig": {**{f"ell_{nm}": float(l * sx) for nm, l, sx in zip(names[:-1], ell, xs)},
                       "sf": math.sqrt(const) * ys, "sn": math.sqrt(noise) * ys},
        "train_x_mean": xm.tolist(), "train_x_sd": xs.tolist(), "train_y_mean": ym, "train_y_sd": ys,
        "log_marginal_likelihood": lml,
        "log_marginal_likelihood_orig_units": lml - len(y) * math.log(ys),
        "predict_std_includes_white_noise": includes_noise,
        "rmse": float(np.sqrt(np.mean(err ** 2))),
        "mlpd": float(np.mean(norm.logpdf(zyt, mu, sd) - math.log(ys))),
        "coverage90": float(np.mean(np.abs(err) <= norm.ppf(0.95) * s)),
        "coverage50": float(np.mean(np.abs(err) <= norm.ppf(0.75) * s)),
        "test_y_sd": float(yt.std(ddof=1)),
        "optimizer_starts": starts,
    }
    js = json.dumps(res, indent=2)
    print(js)
    out = a.out or os.path.join(a.outdir, "sklearn.json")
    with open(out, "w") as f:
        f.write(js + "\n")


if __name__ == "__main__":
    main()
