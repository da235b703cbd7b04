"""The shape of an importance-sampled fit's weighted draws (draws.csv with .log_weight), in
u = log θ: per hyperparameter the weighted mean, sd, skewness and kurtosis and a histogram of
log ell_z; how the other length scales move with it; and how much of the weight the heaviest
draws hold. Usage: shape.py DRAWS.csv"""
import sys
import numpy as np

d = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
lw = d["log_weight"]
w = np.exp(lw - lw.max())
w /= w.sum()
cols = [n for n in d.dtype.names if n.startswith("ell") or n in ("sf", "sn")]
U = np.log(np.column_stack([d[c] for c in cols]))
m = w @ U
sd = np.sqrt(w @ (U - m) ** 2)
print(f"{len(w)} weighted draws; weights' ESS {1 / np.sum(w ** 2):.1f}; "
      f"the heaviest 1, 5, 20 draws hold {np.sort(w)[::-1][:1].sum():.3f}, {np.sort(w)[::-1][:5].sum():.3f}, {np.sort(w)[::-1][:20].sum():.3f} of the weight")
print("param        mean(u)  sd(u)  skew  kurt   q5(u)  q95(u)")
for i, c in enumerate(cols):
    z = (U[:, i] - m[i]) / sd[i]
    o = np.argsort(U[:, i])
    cw = np.cumsum(w[o])
    q5, q95 = U[o, i][np.searchsorted(cw, 0.05)], U[o, i][np.searchsorted(cw, 0.95)]
    print(f"{c:12s} {m[i]:7.2f} {sd[i]:6.2f} {w @ z ** 3:5.2f} {w @ z ** 4:5.2f} {q5:7.2f} {q95:7.2f}")
iz = cols.index("ell_z")
print("\nlog ell_z: weight per bin, and the weighted means of log ell_carat and log ell_depth there")
edges = np.arange(-1.5, 5.01, 0.5)
for lo, hi in zip(edges[:-1], edges[1:]):
    s = (U[:, iz] >= lo) & (U[:, iz] < hi)
    if w[s].sum() < 1e-4:
        continue
    mc = np.average(U[s, cols.index("ell_carat")], weights=w[s])
    md = np.average(U[s, cols.index("ell_depth")], weights=w[s])
    print(f"[{lo:4.1f}, {hi:4.1f})  {w[s].sum():5.3f} {'#' * int(round(100 * w[s].sum()))}  carat {mc:5.2f}  depth {md:5.2f}")
