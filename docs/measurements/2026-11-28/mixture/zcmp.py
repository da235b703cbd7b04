"""Each seed's posterior means of two BenchmarkLargeFit warm-is outputs, in combined standard errors.

usage: zcmp.py A.txt B.txt
"""
import re
import sys

import numpy as np


def parse(f):
    txt = open(f).read()
    m = [np.array([float(x) for x in l.split()]) for l in re.findall(r"warm-is: means \[([^\]]*)\]", txt)]
    s = [np.array([float(x) for x in l.split()]) for l in re.findall(r"warm-is: se \[([^\]]*)\]", txt)]
    return m, s


m1, s1 = parse(sys.argv[1])
m2, s2 = parse(sys.argv[2])
for i in range(len(m1)):
    z = (m1[i] - m2[i]) / np.sqrt(s1[i]**2 + s2[i]**2)
    print("seed %d: max |z| %.2f, mean z^2 %.2f" % (i + 1, abs(z).max(), (z**2).mean()))
