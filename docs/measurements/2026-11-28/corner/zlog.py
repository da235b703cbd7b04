"""Posterior means of log θ from an importance-sampled fit's weighted draws and a chains fit's
draws, and their difference in combined standard errors (each side's sd over the square root of
its bulk-ESS for that parameter, read from each summary.json).

usage: zlog.py is/draws.csv is/summary.json chains/draws.csv chains/summary.json
"""
import json
import sys

import numpy as np


def load(draws, summary):
    d = np.genfromtxt(draws, delimiter=',', names=True)
    lw = d['log_weight'] if 'log_weight' in d.dtype.names else np.zeros(len(d))
    w = np.exp(lw - lw.max())
    w /= w.sum()
    ess = {v['name']: v['ess_bulk'] for v in json.load(open(summary))['variables']}
    return d, w, ess


a, wa, ea = load(sys.argv[1], sys.argv[2])
b, wb, eb = load(sys.argv[3], sys.argv[4])
for name in ea:
    xa, xb = np.log(a[name]), np.log(b[name])
    ma, mb = wa @ xa, wb @ xb
    sa, sb = np.sqrt(wa @ (xa - ma)**2 / ea[name]), np.sqrt(wb @ (xb - mb)**2 / eb[name])
    print("%-10s log mean %.4f ± %.4f (importance) against %.4f ± %.4f (chains): z %+.2f" % (name, ma, sa, mb, sb, (ma - mb) / np.hypot(sa, sb)))
