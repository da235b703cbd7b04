#!/usr/bin/python3
"""Reference log evidences and exact leave-one-out predictive densities of
small GP regressions, by quadrature on a grid in u = log θ, independent of
the Go code (numpy/scipy only).

Model (the paper's, as gp.Model with the SE kernel): y ~ N(0, K + σn² I),
K_ij = σf² exp(−½ Σ_d (x_id − x_jd)²/ℓ_d²); prior log ℓ_d ~ N(0.5, 1),
σf ~ Gamma(4, rate 1), σn ~ Gamma(2, rate 2); in u = log θ the prior
density carries the Jacobian Σ u.

Writes, under tempering/testdata/: gp1d.csv, gp2d.csv (the data) and
evidence.json (log Z of each, the grid sizes used and the difference
between the two finest grids; for gp1d also the exact elpd_loo
Σ_i log p(y_i | y_−i) = Σ_i [log Z(y) − log Z(y_−i)]).

Usage: /usr/bin/python3 scripts/evidence-ref/quadrature.py [gp1d] [gp2d]
(all cases without arguments; each case's entry of evidence.json is
replaced, the others kept; gp1d's leave-one-out takes most of the time:
30 grids of 80³ points, about 15 CPU-minutes)
"""
import json, os, sys
import numpy as np
from scipy import optimize, special

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tempering", "testdata")


def log_prior(U):  # U: (..., D+2)
    D = U.shape[-1] - 2
    lp = np.zeros(U.shape[:-1])
    for d in range(D):
        z = U[..., d] - 0.5
        lp += -0.5 * z * z - 0.5 * np.log(2 * np.pi)
    for j, (a, b) in zip((D, D + 1), ((4.0, 1.0), (2.0, 2.0))):
        u = U[..., j]
        lp += a * np.log(b) - special.gammaln(a) + a * u - b * np.exp(u)
    return lp


def log_lik(U, X, y, chunk=4000):
    """Log-likelihood at each row of U (P × (D+2))."""
    N, D = X.shape
    out = np.empty(len(U))
    diff2 = (X[:, None, :] - X[None, :, :]) ** 2  # N×N×D
    for s in range(0, len(U), chunk):
        u = U[s:s + chunk]
        ell2 = np.exp(2 * u[:, :D])
        d2 = np.einsum("ijd,pd->pij", diff2, 1 / ell2)
        K = np.exp(2 * u[:, D])[:, None, None] * np.exp(-0.5 * d2)
        K += np.exp(2 * u[:, D + 1])[:, None, None] * np.eye(N)
        L = np.linalg.cholesky(K)
        a = np.linalg.solve(L, np.broadcast_to(y, (len(u), N))[..., None])[..., 0]
        out[s:s + chunk] = -0.5 * np.sum(a * a, 1) - np.sum(np.log(np.diagonal(L, 0, 1, 2)), 1) - 0.5 * N * np.log(2 * np.pi)
    return out


def log_post(u, X, y):
    return log_prior(u[None])[0] + log_lik(u[None], X, y)[0]


def box(X, y, width=9.0):
    """Mode ± width posterior sds (Laplace), per coordinate."""
    D = X.shape[1]
    u0 = np.array([0.5] * D + [np.log(4.0), np.log(1.0)])
    r = optimize.minimize(lambda u: -log_post(u, X, y), u0, method="Nelder-Mead",
                          options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 20000})
    r = optimize.minimize(lambda u: -log_post(u, X, y), r.x, method="BFGS")
    mode = r.x
    h = 1e-4
    P = len(mode)
    H = np.zeros((P, P))
    f0 = log_post(mode, X, y)
    for i in range(P):
        for j in range(P):
            e_i = np.eye(P)[i] * h
            e_j = np.eye(P)[j] * h
            H[i, j] = (log_post(mode + e_i + e_j, X, y) - log_post(mode + e_i - e_j, X, y)
                       - log_post(mode - e_i + e_j, X, y) + log_post(mode - e_i - e_j, X, y)) / (4 * h * h)
    sd = np.sqrt(np.diag(np.linalg.inv(-H)))
    return mode - width * sd, mode + width * sd


def log_z(X, y, n, lo, hi):
    """Trapezoid rule on an n^P grid over the box [lo, hi]."""
    P = len(lo)
    axes = [np.linspace(lo[i], hi[i], n) for i in range(P)]
    w1 = [np.full(n, (hi[i] - lo[i]) / (n - 1)) for i in range(P)]
    for w in w1:
        w[0] *= 0.5
        w[-1] *= 0.5
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, P)
    lw = sum(np.log(np.meshgrid(*w1, indexing="ij")[i]).ravel() for i in range(P))
    f = log_prior(grid) + log_lik(grid, X, y) + lw
    return special.logsumexp(f)


def gen(n, D, theta, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, D))
    ell, sf, sn = np.array(theta[:D]), theta[D], theta[D + 1]
    d2 = (((X[:, None, :] - X[None, :, :]) / ell) ** 2).sum(-1)
    K = sf * sf * np.exp(-0.5 * d2) + sn * sn * np.eye(n)
    y = np.linalg.cholesky(K) @ rng.standard_normal(n)
    return X, y


def write_csv(path, X, y):
    D = X.shape[1]
    with open(path, "w") as f:
        f.write(",".join([f"x{d+1}" for d in range(D)] + ["y"]) + "\n")
        for i in range(len(y)):
            f.write(",".join(repr(float(v)) for v in list(X[i]) + [y[i]]) + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "evidence.json")
    ref = {}
    if os.path.exists(path):
        with open(path) as f:
            ref = json.load(f)
    want = set(sys.argv[1:]) or {"gp1d", "gp2d"}
    cases = [("gp1d", 30, 1, [1.0, 1.5, 0.3], 11, [48, 64, 80]),
             ("gp2d", 30, 2, [1.0, 2.0, 1.2, 0.3], 12, [28, 34, 40])]
    for name, n, D, theta, seed, sizes in cases:
        if name not in want:
            continue
        X, y = gen(n, D, theta, seed)
        write_csv(os.path.join(OUT, name + ".csv"), X, y)
        lo, hi = box(X, y)
        zs = [log_z(X, y, k, lo, hi) for k in sizes]
        lo2, hi2 = box(X, y, 11.0)
        wide = log_z(X, y, sizes[-1], lo2, hi2)
        print(name, "log Z by grid size", dict(zip(sizes, zs)), "wider box", wide, file=sys.stderr)
        r = {"n": n, "d": D, "theta": theta, "log_z": zs[-1], "grid": sizes[-1],
             "grid_change": abs(zs[-1] - zs[-2]), "box_change": abs(wide - zs[-1])}
        if name == "gp1d":
            loo = []
            for i in range(n):
                keep = np.arange(n) != i
                lo_i, hi_i = box(X[keep], y[keep])
                loo.append(zs[-1] - log_z(X[keep], y[keep], sizes[-1], lo_i, hi_i))
            r["loo_log_pred"] = loo
            r["elpd_loo"] = float(np.sum(loo))
            print(name, "elpd_loo", r["elpd_loo"], file=sys.stderr)
        ref[name] = r
    with open(path, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
