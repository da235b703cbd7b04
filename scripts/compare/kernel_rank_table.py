#!/usr/bin/python3
"""Table of kernel_rank.sh's results.

  /usr/bin/python3 scripts/compare/kernel_rank_table.py OUTDIR SET...

For each data set: the log evidence and elpd_loo of the squared-exponential
and Matérn 5/2 fits of all the data (from `subtemper compare --json`), the
held-out mean log predictive density of the same two models over K folds
(kfold.sh's fold results, weighted by test size) with the paired difference
and its standard error over the folds, and which kernel each criterion
prefers.
"""
import math
import os
import sys

from kfold_table import load


def kfold(out, s):
    d = os.path.join(out, f"kfold-{s}", s)
    folds = sorted(f for f in os.listdir(d) if f.startswith("fold")) if os.path.isdir(d) else []
    res = {"paper": [], "matern52": []}
    for f in folds:
        n = (load(os.path.join(d, f, "sklearn.json")) or {}).get("n_test", 0)
        for v in res:
            p = load(os.path.join(d, f, v, "predictions.json"))
            res[v].append((n, p["mlpd"] if p else float("nan")))
    return res


def main():
    out, sets = sys.argv[1], sys.argv[2:]
    print("| data | criterion | SE | Matérn 5/2 | Matérn 5/2 − SE (SE) | prefers |")
    print("|---|---|---:|---:|---:|---|")
    for s in sets:
        c = load(os.path.join(out, s, "compare.json")) or {"fits": []}
        by = {f["kernel"]: f for f in c["fits"]}
        se, m = by.get("se"), by.get("matern52")
        for crit, key in (("log evidence", "log_evidence"), ("elpd_loo", "elpd_loo")):
            if not se or not m or not se.get(key) or not m.get(key):
                print(f"| {s} | {crit} | missing | | | |")
                continue
            a, b = se[key]["value"], m[key]["value"]
            dk = key + "_diff"
            # compare reports each fit's difference from the best one.
            d = m[dk] if m[dk]["value"] != 0 else se[dk]
            diff = b - a
            extra = f" (k̂ > 0.7: {se.get('k_over_0_7')} / {m.get('k_over_0_7')})" if key == "elpd_loo" else ""
            print(f"| {s} | {crit}{extra} | {a:.3f} | {b:.3f} | {diff:+.3f} ({d['se']:.3f}) | {'Matérn 5/2' if diff > 0 else 'SE'} |")
        r = kfold(out, s)
        if r["paper"] and all(not math.isnan(v) for _, v in r["paper"] + r["matern52"]):
            n = sum(k for k, _ in r["paper"])
            a = sum(k * v for k, v in r["paper"]) / n
            b = sum(k * v for k, v in r["matern52"]) / n
            diffs = [vb - va for (_, va), (_, vb) in zip(r["paper"], r["matern52"])]
            K = len(diffs)
            mean = sum(diffs) / K
            sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (K - 1))
            print(f"| {s} | {K}-fold held-out MLPD | {a:.4f} | {b:.4f} | {b - a:+.4f} ({sd / math.sqrt(K):.4f}) | {'Matérn 5/2' if b > a else 'SE'} |")
        else:
            print(f"| {s} | k-fold held-out MLPD | missing | | | |")


if __name__ == "__main__":
    main()
