#!/usr/bin/python3
"""Split a CSV file with a header row into a training and a test set.

  /usr/bin/python3 scripts/compare/split_csv.py DATA.csv PREFIX [FRACTION [SEED]]

Writes PREFIX_train.csv (the first round(FRACTION*N) indices of
numpy.random.default_rng(SEED).permutation(N), in file order) and
PREFIX_test.csv (the rest, in file order). Lines are copied verbatim, so
numbers keep their exact text. FRACTION defaults to 0.8, SEED to 20261125.
"""
import sys

import numpy as np


def main():
    src, prefix = sys.argv[1], sys.argv[2]
    frac = float(sys.argv[3]) if len(sys.argv) > 3 else 0.8
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20261125
    with open(src) as f:
        lines = f.read().splitlines()
    header, rows = lines[0], [l for l in lines[1:] if l.strip()]
    n = len(rows)
    perm = np.random.default_rng(seed).permutation(n)
    k = int(round(frac * n))
    for name, idx in (("train", np.sort(perm[:k])), ("test", np.sort(perm[k:]))):
        with open(f"{prefix}_{name}.csv", "w") as f:
            f.write(header + "\n")
            for i in idx:
                f.write(rows[i] + "\n")


if __name__ == "__main__":
    main()
