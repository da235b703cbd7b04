#!/usr/bin/env python3
"""Checks that the draws of `subtemper gp|mvn --out DIR` read into ArviZ as
they are, and that ArviZ's diagnostics equal those in DIR/summary.json.

    python3 scripts/compare/check_draws_arviz.py DIR [TOL]

Reads DIR/draws.nc with xarray.open_dataset and converts it with
arviz.convert_to_inference_data, no renaming: the file's dimensions are
ArviZ's own (chain, draw). Checks that the posterior group has the run's
chains and draws per chain (summary.json's draws.summarized_per_chain) and
that az.summary's mean, r_hat, ess_bulk and ess_tail of every variable equal
summary.json's within TOL relative (default 1e-6; ArviZ rounds nothing with
round_to="none"). Then reads DIR/draws.csv with pandas, as a user of the
CSV would (the index columns named by R posterior's meta-columns), and
checks that it holds the same draws. Exits 1 on any mismatch.

Needs xarray, pandas and ArviZ (0.15.1 was checked; Debian's
python3-xarray, python3-pandas, python3-scipy, python3-matplotlib and
python3-h5netcdf carry its dependencies, ArviZ and xarray-einstats
themselves are not packaged by Debian 12).
"""
import json
import math
import sys

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: check_draws_arviz.py DIR [TOL]")
    d = sys.argv[1]
    tol = float(sys.argv[2]) if len(sys.argv) == 3 else 1e-6
    sm = json.load(open(f"{d}/summary.json"))
    ok = True

    def fail(*msg):
        nonlocal ok
        print("FAIL:", *msg)
        ok = False

    ds = xr.open_dataset(f"{d}/draws.nc")
    idata = az.convert_to_inference_data(ds)
    post = idata.posterior
    nchain, ndraw = post.sizes["chain"], post.sizes["draw"]
    names = [v["name"] for v in sm["variables"]]
    print(f"arviz {az.__version__}: {d}/draws.nc: {nchain} chains x {ndraw} draws, "
          f"{len(post.data_vars)} variables")
    if nchain != len(sm["draws"]["per_chain"]):
        fail("chains", nchain, "!= summary.json's", len(sm["draws"]["per_chain"]))
    if ndraw != sm["draws"]["summarized_per_chain"]:
        fail("draws per chain", ndraw, "!= summary.json's", sm["draws"]["summarized_per_chain"])
    # The names as given are in long_name where netCDF needed others.
    by_name = {post[v].attrs.get("long_name", v): v for v in post.data_vars}
    if sorted(by_name) != sorted(names):
        fail("variables", sorted(by_name), "!= summary.json's", sorted(names))
    s = az.summary(idata, round_to="none")
    for v in sm["variables"]:
        if v["name"] not in by_name:
            continue
        row = s.loc[by_name[v["name"]]]
        line = [f"{v['name']:<20}"]
        for ours, theirs in (("mean", "mean"), ("rhat", "r_hat"), ("ess_bulk", "ess_bulk"), ("ess_tail", "ess_tail")):
            a, b = v[ours], float(row[theirs])
            r = rel(a, b) if a is not None and not math.isnan(b) else math.inf
            line.append(f"{theirs} {b:.10g} (subtemper {a}, rel {r:.1e})")
            if not r <= tol:
                fail(v["name"], theirs, "differs by", r, "relative")
        print("  ".join(line))

    # draws.csv read with pandas, indexed by its meta-columns: the same draws.
    df = pd.read_csv(f"{d}/draws.csv", index_col=[".chain", ".iteration"],
                     float_precision="round_trip").drop(columns=".draw")
    for name in names:
        if name not in df.columns or name not in by_name:
            fail(name, "is not a column of draws.csv")
            continue
        csv = np.stack([df.loc[c + 1, name].to_numpy()[:ndraw] for c in range(nchain)])
        if not np.array_equal(csv, post[by_name[name]].to_numpy()):
            fail(name, "differs between draws.csv and draws.nc")
    if not ok:
        sys.exit(1)
    print(f"OK: ArviZ reads draws.nc as it is, and its mean, r_hat, ess_bulk and ess_tail "
          f"match summary.json within {tol} relative; draws.csv holds the same draws")


if __name__ == "__main__":
    main()
