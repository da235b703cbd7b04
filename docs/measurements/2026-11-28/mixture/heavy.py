"""The heaviest draws of an importance-sampled fit, each in standard deviations from the weighted mean of u = log theta.

usage: heavy.py draws.csv
"""
import sys

import numpy as np

d = np.genfromtxt(sys.argv[1], delimiter=',', names=True)
names = [x for x in d.dtype.names if x not in ('chain', 'iteration', 'draw', 'log_weight')]
X = np.log(np.column_stack([d[x] for x in names]))
lw = d['log_weight']
w = np.exp(lw - lw.max())
w /= w.sum()
mu = w @ X
sd = np.sqrt(w @ (X - mu)**2)
print("params", names)
print("mean", np.round(mu, 2))
print("sd  ", np.round(sd, 2))
for i in np.argsort(-w)[:12]:
    print(i, "%.4f" % w[i], np.round((X[i] - mu) / sd, 1))
