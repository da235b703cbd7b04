"""Each batch's share of an importance-sampled fit's weights and the ESS of its weights within it.

usage: batches.py draws.csv REUSED  (REUSED: the proposal fit's draws, first in the file)
"""
import sys

import numpy as np

d = np.genfromtxt(sys.argv[1], delimiter=',', names=True)
reused = int(sys.argv[2])
lw = d['log_weight']
n = len(lw)
w = np.exp(lw - lw.max())
w /= w.sum()
print("total ESS %.0f of %d" % (1 / np.sum(w**2), n))
edges = [0, reused] + list(range(reused + 500, n, 500)) + [n]
for a, b in zip(edges[:-1], edges[1:]):
    wb = w[a:b]
    print("draws %5d-%5d: weight %.3f, ESS within %.0f, top weight %.4f" % (a, b, wb.sum(), wb.sum()**2 / np.sum(wb**2), wb.max()))
top = np.argsort(-w)[:10]
print("heaviest draws:", [(int(i), round(float(w[i]), 4)) for i in top])
