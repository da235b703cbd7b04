"""Weighted mean and sd of log ell_depth within bins of log ell_z: how depth's length scale spreads where z's is short.

usage: corner.py draws.csv (weighted draws, or the chains' draws, equally weighted)
"""
import sys

import numpy as np

d = np.genfromtxt(sys.argv[1], delimiter=',', names=True)
lw = d['log_weight'] if 'log_weight' in d.dtype.names else np.zeros(len(d))  # chains: equal weights
w = np.exp(lw - lw.max())
w /= w.sum()
z, dep = np.log(d['ell_z']), np.log(d['ell_depth'])
for a in np.arange(-1.5, 4.5, 0.5):
    m = (z >= a) & (z < a + 0.5)
    if w[m].sum() < 1e-3:
        continue
    wm = w[m] / w[m].sum()
    mu = wm @ dep[m]
    print("log ell_z [%4.1f, %4.1f): weight %.3f, log ell_depth mean %.2f sd %.2f, draws %d" % (a, a + 0.5, w[m].sum(), mu, np.sqrt(wm @ (dep[m] - mu)**2), m.sum()))
