"""Two fits' posterior means of θ, from their summary.json files, and their difference in combined
Monte Carlo standard errors (mcse_mean); each parameter's 5% and 95% quantiles beside.

usage: zsum.py a/summary.json b/summary.json
"""
import json
import math
import sys

a, b = ({v['name']: v for v in json.load(open(p))['variables']} for p in sys.argv[1:3])
for name, va in a.items():
    vb = b[name]
    z = (va['mean'] - vb['mean']) / math.hypot(va['mcse_mean'], vb['mcse_mean'])
    print("%-10s mean %.4f ± %.4f against %.4f ± %.4f: z %+.2f   q5 %.4f / %.4f   q95 %.4f / %.4f" % (
        name, va['mean'], va['mcse_mean'], vb['mean'], vb['mcse_mean'], z, va['q5'], vb['q5'], va['q95'], vb['q95']))
