#!/usr/bin/python3
"""Table of kfold.sh's results.

  /usr/bin/python3 scripts/compare/kfold_table.py OUTDIR COMMIT K "VARIANTS" SET...

For each data set and method (scikit-learn's ML-II fit and each subtemper
prior variant) prints the mean log predictive density (MLPD) and RMSE over
the test points of all K folds (fold means weighted by their test sizes),
the paired difference in MLPD from the first variant (weighted as the means)
with its standard error over the folds (sqrt(K/(K−1)·Σ w_k²(d_k − d̄)²), w_k
a fold's share of the test points: sd/sqrt(K) when the folds are equal), the folds whose
fit converged, and the chains' CPU seconds summed over the folds.
"""
import json
import math
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    out, commit, k, variants, sets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), sys.argv[5:]
    print(f"{k}-fold held-out comparison, commit {commit}: MLPD and RMSE over all folds' test points; "
          f"Δ MLPD from subtemper ({variants[0]}) with its standard error over the folds.\n")
    print("| data | N | D | method | MLPD | Δ MLPD (SE) | RMSE | converged | CPU-s |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for s in sets:
        rows = {}
        n_all, d = 0, ""
        for i in range(1, k + 1):
            sk = load(os.path.join(out, s, f"fold{i}", "sklearn.json"))
            if sk:
                n_all += sk["n_test"]
                d = sk["d"]
            for m in ["sklearn"] + variants:
                if m == "sklearn":
                    p, conv, cpu = sk, True, (sk or {}).get("fit_cpu_seconds", 0)
                else:
                    p = load(os.path.join(out, s, f"fold{i}", m, "predictions.json"))
                    sm = load(os.path.join(out, s, f"fold{i}", m, "summary.json")) or {}
                    conv = bool(sm.get("converged"))
                    cpu = sum(sm.get("timings", {}).get("chain_cpu_seconds", []))
                    if p:
                        p = dict(p, n_test=(sk or {}).get("n_test", 0))
                rows.setdefault(m, []).append((p, conv, cpu))
        base = rows.get(variants[0], [])
        for m, folds in rows.items():
            ok = [(p, c, t) for p, c, t in folds if p]
            name = "scikit-learn ML-II" if m == "sklearn" else f"subtemper ({m})"
            if len(ok) < k:
                print(f"| {s} | {n_all} | {d} | {name} | {k - len(ok)} folds failed | | | | |")
                continue
            n = sum(p["n_test"] for p, _, _ in ok)
            mlpd = sum(p["n_test"] * p["mlpd"] for p, _, _ in ok) / n
            rmse = math.sqrt(sum(p["n_test"] * p["rmse"] ** 2 for p, _, _ in ok) / n)
            delta = ""
            if m != variants[0] and all(b[0] for b in base):
                diffs = [p["mlpd"] - b[0]["mlpd"] for (p, _, _), b in zip(ok, base)]
                w = [p["n_test"] / n for p, _, _ in ok]
                mean = sum(wi * di for wi, di in zip(w, diffs))
                # The standard error of the weighted mean: each fold's
                # difference weighs by its test size, as in the mean.
                se = math.sqrt(k / (k - 1) * sum(wi * wi * (di - mean) ** 2 for wi, di in zip(w, diffs)))
                delta = f"{mean:+.4f} ({se:.4f})"
            conv = sum(1 for _, c, _ in ok if c)
            cpu = sum(t for _, _, t in ok)
            print(f"| {s} | {n_all} | {d} | {name} | {mlpd:.4f} | {delta} | {rmse:.4g} | {conv}/{k} | {cpu:.0f} |")


if __name__ == "__main__":
    main()
