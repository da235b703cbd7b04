#!/usr/bin/python3
"""Compares two predictions.csv of subtemper on the same test set (each with log_density):
the MLPDs and their paired difference with its standard error, and the largest change of the
predictive mean and sd of y and of the 5% and 95% quantiles, each relative to the first's y_sd.
Usage: drawscmp.py A.csv B.csv (A the reference, B the one with fewer draws)."""
import csv, json, math, sys

def load(p):
    with open(p) as f:
        return list(csv.DictReader(f))

a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b)
d = [float(y["log_density"]) - float(x["log_density"]) for x, y in zip(a, b)]
n = len(d)
m = sum(d) / n
se = math.sqrt(sum((v - m) ** 2 for v in d) / (n - 1) / n)
rel = {c: max(abs(float(y[c]) - float(x[c])) / float(x["y_sd"]) for x, y in zip(a, b))
       for c in ("y_mean", "y_sd", "y_q05", "y_q95")}
print(json.dumps({"n": n, "mlpd_a": sum(float(x["log_density"]) for x in a) / n,
                  "mlpd_b": sum(float(y["log_density"]) for y in b) / n,
                  "mean_diff": m, "se_diff": se, "max_rel_change": rel, "a": sys.argv[1], "b": sys.argv[2]}, indent=2))
