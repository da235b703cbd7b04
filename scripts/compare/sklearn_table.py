#!/usr/bin/python3
"""Markdown table of vs_sklearn.sh's results.

  /usr/bin/python3 scripts/compare/sklearn_table.py OUTDIR COMMIT "VARIANTS" SET...

Reads OUTDIR/sklearn_SET.json, OUTDIR/truetheta_SET.json (synthetic sets) and
OUTDIR/subtemper_SET_VARIANT/predictions.json
(and summary.json for the sampler's convergence figures and CPU time) and prints one row
per data set and method.
"""
import datetime
import json
import os
import sys


def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def f(v, fmt="{:.4f}"):
    return "NA" if v is None else fmt.format(v)


def main():
    out, commit, variants, sets = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
    print(f"Date {datetime.date.today().isoformat()}, commit {commit}; raw output in `{out}`.\n")
    print("| data | N train / test | D | method | RMSE | MLPD | cov. 50% | cov. 90% | notes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in sets:
        sk = load(os.path.join(out, f"sklearn_{s}.json"))
        if sk:
            print(f"| {s} | {sk['n_train']} / {sk['n_test']} | {sk['d']} | scikit-learn {sk['version']} ML-II | {f(sk['rmse'])} | {f(sk['mlpd'])} | "
                  f"{f(sk['coverage50'], '{:.3f}')} | {f(sk['coverage90'], '{:.3f}')} | fit {sk['fit_cpu_seconds']:.1f} CPU-s ({sk['fit_wall_seconds']:.1f} s wall) |")
        tt = load(os.path.join(out, f"truetheta_{s}.json"))
        if tt:
            print(f"| {s} | | | true θ (the generator's), no fit: reference | {f(tt['rmse'])} | {f(tt['mlpd'])} | "
                  f"{f(tt['coverage50'], '{:.3f}')} | {f(tt['coverage90'], '{:.3f}')} | |")
        for v in variants:
            d = os.path.join(out, f"subtemper_{s}_{v}")
            p, sm = load(os.path.join(d, "predictions.json")), load(os.path.join(d, "summary.json"))
            if not p:
                print(f"| {s} | | | subtemper ({v}) | failed | | | | see {d}.log |")
                continue
            method = f"subtemper ({v})"
            note = ""
            if sm:
                lv = len(sm.get("ladder", {}).get("betas", [1]))
                method = f"subtemper ({v}: {sm.get('sampler')}+{sm.get('inner')}" + (f", {lv} levels" if lv > 1 else "") + ")"
                t = sm.get("timings", {})
                note = ("converged" if sm.get("converged") else "NOT converged") + ", "
                note += f"max R-hat {f(sm.get('max_rhat'), '{:.3f}')}, min bulk-ESS {f(sm.get('min_ess_bulk'), '{:.0f}')}, "
                note += f"chains {sum(t.get('chain_cpu_seconds', [])):.0f} CPU-s in all ({t.get('wall_seconds', 0):.0f} s wall), "
            note += f"{p['draws']} draws averaged in {p.get('seconds', 0):.1f} s"
            print(f"| {s} | | | {method} | {f(p['rmse'])} | {f(p['mlpd'])} | {f(p['coverage50'], '{:.3f}')} | {f(p['coverage90'], '{:.3f}')} | {note} |")


if __name__ == "__main__":
    main()
