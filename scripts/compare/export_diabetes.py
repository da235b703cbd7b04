#!/usr/bin/python3
"""Export scikit-learn's diabetes data (Efron et al. 2004) as CSV files for subtemper.

Writes, into the directory given as the first argument (default: the data/
folder next to this script):

  diabetes.csv        all 442 rows
  diabetes_train.csv  a deterministic 80/20 split: 354 training rows
  diabetes_test.csv   and 88 held-out rows

Each file has a header row: the ten inputs age,sex,bmi,bp,s1,...,s6 in their
original (unscaled) units, then the target y (a measure of disease
progression one year after baseline). Values are written with repr(), so
they round-trip exactly.

The split is numpy.random.default_rng(20261125).permutation(442): the first
354 indices (sorted) are the training rows, the remaining 88 (sorted) the
test rows. Run it with Debian's python3 (python3-sklearn ships the data):

  /usr/bin/python3 scripts/compare/export_diabetes.py
"""
import csv
import os
import sys

import numpy as np
from sklearn.datasets import load_diabetes

SEED = 20261125
N_TRAIN = 354  # 80% of 442, rounded down


def write(path, names, X, y):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(list(names) + ["y"])
        for row, t in zip(X, y):
            w.writerow([repr(float(v)) for v in row] + [repr(float(t))])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    os.makedirs(out, exist_ok=True)
    d = load_diabetes(scaled=False)
    X, y, names = d.data, d.target, d.feature_names
    assert X.shape == (442, 10)
    perm = np.random.default_rng(SEED).permutation(len(y))
    train, test = np.sort(perm[:N_TRAIN]), np.sort(perm[N_TRAIN:])
    write(os.path.join(out, "diabetes.csv"), names, X, y)
    write(os.path.join(out, "diabetes_train.csv"), names, X[train], y[train])
    write(os.path.join(out, "diabetes_test.csv"), names, X[test], y[test])
    print(f"wrote {out}/diabetes.csv (442 rows), diabetes_train.csv ({len(train)}), diabetes_test.csv ({len(test)})")


if __name__ == "__main__":
    main()
