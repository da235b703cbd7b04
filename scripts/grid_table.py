#!/usr/bin/env python3
"""Markdown tables of BenchmarkSampler output (go test -bench 'Sampler/...').

    python3 scripts/grid_table.py FILE...          # one matrix per case
    python3 scripts/grid_table.py --long FILE...   # one row per run, every metric

FILE=MARK (say n512-short.txt=†) appends MARK to the cells from FILE, to
tell runs of another length apart. A run in a later file replaces the same
run in an earlier one.

A matrix has a row per driver and a column per kernel; each cell is
"min / median bulk-ESS per CPU-second", with the run's max R-hat after it
when that is 1.01 or more (the run has not converged, so its ESS overstates).
Only the standard library is used.
"""
import re
import sys

DRIVERS = ["none", "pt", "spt", "tt", "stt"]
COLUMNS = [
    ("nuts", "default", "NUTS"),
    ("hmc", "default", "HMC"),
    ("mh", "default", "MH"),
    ("hmc-mh", "default", "HMC + MH above (default kernel)"),
    ("nuts-mh", "default", "NUTS + MH above"),
    ("hmc", "paper", "paper: HMC, ε = 0.01"),
    ("mh", "paper", "paper: MH"),
]
LINE = re.compile(r"^BenchmarkSampler/(.+)/([a-z]+)/([a-z-]+)/(default|paper)(?:-\d+)?\s+\d+\s+\d+ ns/op\s+(.*)$")


def parse(paths):
    runs = {}
    order = []
    for arg in paths:
        path, _, mark = arg.partition("=")
        with open(path) as f:
            for line in f:
                m = LINE.match(line.strip())
                if not m:
                    continue
                case, driver, kernel, settings, rest = m.groups()
                fields = rest.split()
                metrics = {fields[i + 1]: float(fields[i]) for i in range(0, len(fields) - 1, 2)}
                metrics["mark"] = mark
                if case not in order:
                    order.append(case)
                runs[(case, driver, kernel, settings)] = metrics
    return order, runs


def fmt(x):
    if x != x:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def matrix(order, runs):
    out = []
    for case in order:
        cols = [c for c in COLUMNS if any((case, d, c[0], c[1]) in runs for d in DRIVERS)]
        out.append(f"**{case}**\n")
        out.append("| driver | " + " | ".join(c[2] for c in cols) + " |")
        out.append("|---" * (len(cols) + 1) + "|")
        for d in DRIVERS:
            cells = []
            for k, s, _ in cols:
                r = runs.get((case, d, k, s))
                if r is None:
                    cells.append("")
                    continue
                cell = f"{fmt(r['min_essbulk/cpu_s'])} / {fmt(r['med_essbulk/cpu_s'])}"
                if r["max_rhat"] >= 1.01:
                    cell += f" (R̂ {r['max_rhat']:.3f})"
                cell += r["mark"]
                cells.append(cell)
            if any(cells):
                out.append(f"| {d} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def long(order, runs):
    out = ["| case | driver | kernel | settings | levels | max R-hat | min bulk-ESS | min tail-ESS | CPU-s | min bulk-ESS / CPU-s | median / CPU-s | swap or TT acceptance |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in order:
        for d in DRIVERS:
            for k, s, _ in COLUMNS:
                r = runs.get((case, d, k, s))
                if r is None:
                    continue
                out.append(f"| {case} | {d} | {k} | {s}{r['mark']} | {r['levels']:.0f} | {r['max_rhat']:.3f} | {fmt(r['min_essbulk'])} | "
                           f"{fmt(r['min_esstail'])} | {fmt(r['cpu_s'])} | {fmt(r['min_essbulk/cpu_s'])} | "
                           f"{fmt(r['med_essbulk/cpu_s'])} | {fmt(r['move_rate'])} |")
    return "\n".join(out)


def main(argv):
    as_long = "--long" in argv
    paths = [a for a in argv if a != "--long"]
    if not paths:
        sys.exit(__doc__)
    order, runs = parse(paths)
    if not runs:
        sys.exit("grid_table: no BenchmarkSampler lines in " + ", ".join(paths))
    print(long(order, runs) if as_long else matrix(order, runs))


if __name__ == "__main__":
    main(sys.argv[1:])
