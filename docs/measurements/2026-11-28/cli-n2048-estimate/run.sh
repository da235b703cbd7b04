#!/bin/sh
# Reproduces docs/measurements/2026-11-28/cli-n2048-estimate: the CLI's default fit at N = 2048,
# D = 8 on 2 cores with nothing else running, to set its printed time estimate (the screen's
# evaluations per iteration measured on the screen, the draws expected from the importance ESS)
# beside what the run took. Run from the repository root; needs OpenBLAS.
set -eu
OUT=docs/measurements/2026-11-28/cli-n2048-estimate
go build -tags openblas -o /tmp/st-n2048e ./cmd/subtemper
rm -rf /tmp/cli-n2048e
/usr/bin/time -v /tmp/st-n2048e gp --n 2048 --dims 8 --out /tmp/cli-n2048e > "$OUT/gp.log" 2> "$OUT/gp.err"
cp /tmp/cli-n2048e/summary.json "$OUT/"
