#!/usr/bin/env python3
"""Writes golden.nc, the file netcdf.TestWriteGolden expects byte for byte:
the same draws written by SciPy's own netCDF-3 writer (scipy.io.netcdf_file,
version 2 = 64-bit offsets), from Debian's python3-scipy.

    /usr/bin/python3 internal/netcdf/testdata/golden.py internal/netcdf/testdata/golden.nc
"""
import sys

import numpy as np
from scipy.io import netcdf_file

C, S = 3, 5
# The test's names after netcdf.VarNames, with the names as given in long_name.
names = [("ell_x1", None), ("sf", None), ("ell x_2", "ell x/2"), ("chain_2", "chain")]

f = netcdf_file(sys.argv[1], "w", version=2)
f.inference_library = "subtemper"
f.created_by = "netcdf_test"
f.createDimension("chain", C)
f.createDimension("draw", S)
v = f.createVariable("chain", "i4", ("chain",))
v[:] = np.arange(C)
v = f.createVariable("draw", "i4", ("draw",))
v[:] = np.arange(S)
for k, (name, long_name) in enumerate(names):
    v = f.createVariable(name, "f8", ("chain", "draw"))
    if long_name is not None:
        v.long_name = long_name
    for c in range(C):
        for s in range(S):
            v[c, s] = c * 100 + s + k / 8 - 2.5
f.close()
