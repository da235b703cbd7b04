#!/bin/sh
# `subtemper gp --n 4096 --dims 8` with no tuning flags but --max-time 30m
# (the criterion: converged within 30 minutes wall on 2 cores), on
# OpenBLAS, nothing else running. Writes gp.log, gp.time and summary.json
# here. Run from the repository root:
#   sh docs/measurements/2026-11-27/cli-n4096-default/run.sh
set -eu
D=docs/measurements/2026-11-27/cli-n4096-default
BIN=${BIN:-/tmp/st-n4096}
OUT=${OUT:-/tmp/cli-n4096}
go build -tags openblas -o "$BIN" ./cmd/subtemper
rm -rf "$OUT"
/usr/bin/time -v -o "$D/gp.time" "$BIN" gp --n 4096 --dims 8 --max-time 30m --out "$OUT" >"$D/gp.log" 2>&1 || true
cp "$OUT/summary.json" "$D/summary.json" 2>/dev/null || true
