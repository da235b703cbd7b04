#!/usr/bin/python3
"""Reference values of the GP kernels, log marginal likelihoods, gradients
and predictions from scikit-learn, for the conformance suite
(linalg/linalgtest/testdata/kernels.json, read by KernelReferenceTest).

The model is GaussianProcessRegressor with kernel
ConstantKernel(σf²) * K_ℓ + WhiteKernel(σn²), K_ℓ = RBF(ℓ) or Matern(ℓ, ν),
and alpha = jitter (added to the diagonal, outside the gradient, as
subtemper's jitter is). scikit-learn's hyperparameters are
(log σf², log ℓ_1..D, log σn²); subtemper's are u = (log ℓ_1..D, log σf,
log σn): the gradients with respect to log σf and log σn are twice
scikit-learn's. The latent predictive variance is scikit-learn's
predictive variance less σn² (WhiteKernel's diagonal).

Run with Debian's python3-sklearn (1.2): /usr/bin/python3 matern_ref.py OUT.json
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

FAMILIES = {"se": None, "matern12": 0.5, "matern32": 1.5, "matern52": 2.5}


def case(rng, family, n, d, jitter, subset_size, duplicate):
    x = 3 + rng.standard_normal((n, d))
    if duplicate:
        x[1] = x[0]  # a pair at distance 0
    y = rng.standard_normal(n)
    u = np.concatenate([0.5 * np.log(d) + 0.3 * rng.standard_normal(d), [0.2, np.log(0.3)]])
    subset = None
    if subset_size:
        subset = [int(i) for i in rng.permutation(n)[:subset_size]]
    ell, sf2, sn2 = np.exp(u[:d]), np.exp(2 * u[d]), np.exp(2 * u[d + 1])
    base = RBF(length_scale=ell) if FAMILIES[family] is None else Matern(length_scale=ell, nu=FAMILIES[family])
    kern = ConstantKernel(sf2) * base + WhiteKernel(sn2)
    idx = list(range(n)) if subset is None else subset
    xs, ys = x[idx], y[idx]
    gpr = GaussianProcessRegressor(kernel=kern, alpha=jitter, optimizer=None, normalize_y=False)
    gpr.fit(xs, ys)
    ll, g = gpr.log_marginal_likelihood(kern.theta, eval_gradient=True)
    grad = np.concatenate([g[1:1 + d], [2 * g[0], 2 * g[d + 1]]])
    k = kern(xs) + jitter * np.eye(len(idx))
    out = {
        "kernel": family, "n": n, "d": d, "x": x.ravel().tolist(), "y": y.tolist(), "u": u.tolist(),
        "subset": subset, "jitter": jitter, "k": k.ravel().tolist(), "loglik": float(ll), "grad": grad.tolist(),
    }
    if subset is None:
        nt = 7
        xt = 3 + rng.standard_normal((nt, d))
        xt[0] = x[min(2, n - 1)]  # a test input at an observation
        mean, std = gpr.predict(xt, return_std=True)
        out.update({"nt": nt, "xt": xt.ravel().tolist(), "mean": mean.tolist(), "varf": (std ** 2 - sn2).tolist()})
    return out


def main():
    rng = np.random.default_rng(33)
    cases = []
    for family in FAMILIES:
        for n, d, jitter, subset_size, duplicate in [
            (1, 1, 0.0, 0, False),
            (25, 3, 0.0, 0, False),
            (25, 3, 1e-3, 12, False),
            (40, 1, 0.0, 0, True),
            (30, 5, 0.0, 0, True),
        ]:
            cases.append(case(rng, family, n, d, jitter, subset_size, duplicate))
    doc = {
        "source": "scripts/matern-ref/matern_ref.py, scikit-learn %s, numpy %s" % (sklearn.__version__, np.__version__),
        "cases": cases,
    }
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, indent=None)
        f.write("\n")


if __name__ == "__main__":
    main()
