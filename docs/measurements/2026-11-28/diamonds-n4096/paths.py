"""Are scikit-learn's optima other modes of our posterior? Our log posterior is
log p(y|θ) + log p(u), u = log θ, the training data standardised as gp --standardize does it,
evaluated by `subtemper eval gp`. From scikit-learn's two best optima (those within 30 nats of its best)
(sklearn_large.py's optimizer_starts; theta_std is [σf², ℓ_1..ℓ_D, σn²] in standardised units),
L-BFGS-B (scipy) climbs our posterior (the analytic gradient: eval's, plus the default priors'),
and the log posterior is evaluated along the straight line in u from our mode (gp --map's
map.json) to the optimum it reaches. The warm start counts two optima as two modes when both are
within 10 nats of the best and the line between them dips by more than a nat.
Usage: paths.py MAP.json SKLEARN.json BINARY [STARTS.json] > OUT.json (STARTS.json: a list of
starting points in u to climb from instead of scikit-learn's optima)"""
import json, math, subprocess, sys
import numpy as np
from scipy.optimize import minimize

mp, sk, binary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
lines = open(sk["train"]).read().splitlines()
tr = np.loadtxt(sk["train"], delimiter=",", skiprows=1, ndmin=2)
np.savetxt("/tmp/paths-std.csv", (tr - tr.mean(0)) / tr.std(0, ddof=1), delimiter=",",
           header=lines[0], comments="", fmt="%.17g")
D = tr.shape[1] - 1
evals = [0]


def logpost(u, grad=False):
    """Log posterior at u (None where the kernel matrix is not positive definite), with its
    gradient: eval's of the log marginal likelihood plus the default priors' (log ℓ ~ N(0.5, 1),
    σf ~ Gamma(4, 1), σn ~ Gamma(2, 2), as densities of u)."""
    evals[0] += 1
    th = np.exp(u)
    r = subprocess.run([binary, "eval", "gp", "--data", "/tmp/paths-std.csv", "--lengthscales",
                        ",".join(repr(float(v)) for v in th[:D]), "--sf", repr(float(th[D])),
                        "--sn", repr(float(th[D + 1])), "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return (None, None) if grad else None
    e = json.loads(r.stdout)
    lp = e["log_marginal_likelihood"] + e["log_prior"]
    if not grad:
        return lp
    g = np.array(e["gradient"]) + np.concatenate([-(u[:D] - 0.5), [4 - th[D], 2 - 2 * th[D + 1]]])
    return lp, g


def climb(u0):
    def f(u):
        lp, g = logpost(u, True)
        return (1e10, np.zeros_like(u)) if lp is None else (-lp, -g)
    r = minimize(f, u0, jac=True, method="L-BFGS-B", options={"maxiter": 200})
    return r.x, -r.fun, int(r.nit), r.message if isinstance(r.message, str) else r.message.decode()


mode = np.array(mp["warm_start"]["mode_u"])
best = max((s["lml"] for s in sk["optimizer_starts"]), default=0)
# The gradient, prior's included, checked by a central difference half a unit from the mode.
u1, h = mode + 0.5, 1e-4 * np.ones_like(mode)
g1 = logpost(u1, True)[1]
out = {"mode_u": mode.tolist(), "mode_log_posterior": logpost(mode),
       "gradient_check": [(logpost(u1 + h) - logpost(u1 - h)) / 2, float(g1 @ h)], "optima": []}
starts = []
for s in sorted(sk["optimizer_starts"], key=lambda s: -s["lml"])[:2]:
    if s["lml"] >= best - 30:
        t = s["theta_std"]
        starts.append((s, [math.log(v) for v in t[1:D + 1]] + [0.5 * math.log(t[0]), 0.5 * math.log(t[D + 1])]))
if len(sys.argv) > 4:  # other starting points in u instead: a JSON list of lists
    starts = [({"start": "given", "lml": None}, u) for u in json.load(open(sys.argv[4]))]
for s, u0 in starts:
    u0 = np.array(u0)
    u, lp, nit, msg = climb(u0)
    ts = np.linspace(0, 1, 11)
    out["optima"].append({"start": s["start"], "sklearn_lml": s["lml"], "sklearn_u": u0.tolist(),
                          "log_posterior_at_sklearn": logpost(u0), "optimum_u": u.tolist(),
                          "optimum_log_posterior": lp, "iterations": nit, "message": msg, "t": ts.tolist(),
                          "path_from_mode": [logpost(mode + a * (u - mode)) for a in ts]})
out["evaluations"] = evals[0]
json.dump(out, sys.stdout, indent=1)
print()
