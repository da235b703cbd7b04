#!/bin/sh
# Reproduces docs/measurements/2026-11-28/cli-n4096-screen: the CLI's default fit at N = 4096,
# D = 8 (every proposal screened on the surrogate, the local step kept), on 2 cores with nothing
# else running, cut at 30 minutes. Run from the repository root; needs OpenBLAS.
set -eu
OUT=docs/measurements/2026-11-28/cli-n4096-screen
go build -tags openblas -o /tmp/st-n4096s ./cmd/subtemper
/usr/bin/time -v /tmp/st-n4096s gp --n 4096 --dims 8 --max-time 30m --out /tmp/cli-n4096s \
  > "$OUT/gp.log" 2> "$OUT/gp.err"
cp /tmp/cli-n4096s/summary.json "$OUT/"
