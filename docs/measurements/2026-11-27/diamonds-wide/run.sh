#!/bin/sh
# Diamonds (N_train = 1024, D = 6; the split of docs/measurements/2026-11-26/diamonds/run.sh,
# which writes $TMP/n1024/{train,test}.csv) sampled by the independence sampler with the wide
# component although its proposal's importance ESS (0.20) is below subtemper.MinProposalESS: a
# build of 6c51a8c with that threshold lowered to 0.15, otherwise the CLI's defaults. 2 shared
# cores (load 7-10: CPU-seconds stretched). Run from the repository root.
set -eu
D=docs/measurements/2026-11-27/diamonds-wide
TMP=${TMP:-/tmp/dia}
SRC=$(mktemp -d)
git archive 6c51a8c | tar -x -C "$SRC"
sed -i 's/^const MinProposalESS = 0.25/const MinProposalESS = 0.15/' "$SRC/subtemper.go"
(cd "$SRC" && go build -tags openblas -o /tmp/st-force ./cmd/subtemper)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
cd "$TMP"
/usr/bin/time -f "%U user %S sys %e wall" /tmp/st-force gp --data n1024/train.csv --standardize \
  --predict n1024/test.csv --out full1024-wide > full1024-wide.log 2>&1
cd -
cp "$TMP/full1024-wide/summary.json" "$D/full-n1024-wide-summary.json"
cp "$TMP/full1024-wide/predictions.json" "$D/full-n1024-wide-predictions.json"
sed 's|/tmp/dia/||g' "$TMP/full1024-wide.log" > "$D/full-n1024-wide.log"
