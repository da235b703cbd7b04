#!/usr/bin/python3
"""Split a CSV file with a header row into K folds.

  /usr/bin/python3 scripts/compare/kfold_split.py DATA.csv PREFIX [K [SEED]]

Permutes the rows with numpy.random.default_rng(SEED).permutation(N), cuts
the permutation into K nearly equal parts and writes, for k = 1..K,
PREFIX_fold{k}_test.csv (part k) and PREFIX_fold{k}_train.csv (the other
parts), each in file order. Lines are copied verbatim. K defaults to 5,
SEED to 20261126.
"""
import sys

import numpy as np


def main():
    src, prefix = sys.argv[1], sys.argv[2]
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20261126
    with open(src) as f:
        lines = f.read().splitlines()
    header, rows = lines[0], [l for l in lines[1:] if l.strip()]
    perm = np.random.default_rng(seed).permutation(len(rows))
    parts = np.array_split(perm, k)
    for i in range(k):
        test = set(parts[i].tolist())
        for name, keep in (("train", lambda j: j not in test), ("test", lambda j: j in test)):
            with open(f"{prefix}_fold{i + 1}_{name}.csv", "w") as f:
                f.write(header + "\n")
                for j in range(len(rows)):
                    if keep(j):
                        f.write(rows[j] + "\n")


if __name__ == "__main__":
    main()
