#!/usr/bin/env python3
"""Posterior means of a subtemper run against a Stan run, as a Markdown table.

    python3 scripts/compare/compare_means.py SUMMARY.json STAN.json

SUMMARY.json is subtemper's summary.json (`gp --out DIR`), STAN.json what
scripts/compare/run_stan.R writes (--out DIR/stan.json); both in the data's
natural units. For each parameter: each mean with its MCSE and
z = difference / sqrt(MCSE_1^2 + MCSE_2^2). The last line gives the largest |z|.
"""
import json
import math
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_means.py SUMMARY.json STAN.json")
    ours = {v["name"]: v for v in json.load(open(sys.argv[1]))["variables"]}
    stan = {p["variable"]: p for p in json.load(open(sys.argv[2]))["parameters"]}
    print("| parameter | subtemper (MCSE) | Stan (MCSE) | z |")
    print("|---|---|---|---|")
    worst = 0.0
    for name, v in ours.items():
        if name not in stan:
            sys.exit(f"compare_means.py: {name} is not in {sys.argv[2]}")
        s = stan[name]
        z = (v["mean"] - s["mean"]) / math.hypot(v["mcse_mean"], s["mcse_mean"])
        worst = max(worst, abs(z))
        print(f"| {name} | {v['mean']:.4g} ({v['mcse_mean']:.2g}) | {s['mean']:.4g} ({s['mcse_mean']:.2g}) | {z:+.2f} |")
    print(f"\nlargest |z|: {worst:.2f}")


if __name__ == "__main__":
    main()
