#!/bin/sh
# Reproduces docs/measurements/2026-11-28/cli-importance: the gp command with its defaults, which
# sample by importance sampling from the warm start's fitted proposal (--importance auto), beside
# the chains (--importance off) and scikit-learn's ML-II, one fit at a time on 2 cores, OpenBLAS
# with one thread per evaluation. Run from the repository root; needs OpenBLAS and python3-sklearn.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-importance
go build -tags openblas -o /tmp/st-cli ./cmd/subtemper
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
rm -rf /tmp/cli-is && mkdir -p /tmp/cli-is
# The §4.2 generator, D = 8, data seed 1: N = 2048 with the defaults and with the chains, then
# N = 4096 with the defaults.
$T -o "$D/gen-n2048.time" /tmp/st-cli gp --n 2048 --dims 8 --out /tmp/cli-is/n2048 > "$D/gen-n2048.out" 2> "$D/gen-n2048.err"
$T -o "$D/gen-n2048-chains.time" /tmp/st-cli gp --n 2048 --dims 8 --importance off --out /tmp/cli-is/n2048-chains > "$D/gen-n2048-chains.out" 2> "$D/gen-n2048-chains.err"
$T -o "$D/gen-n4096.time" /tmp/st-cli gp --n 4096 --dims 8 --out /tmp/cli-is/n4096 > "$D/gen-n4096.out" 2> "$D/gen-n4096.err"
# Beside scikit-learn on a held-out split: the generator's N = 2560 (D = 8, data seed 1), split
# 80/20 by scripts/compare/sklearn_large.py, which fits scikit-learn's ML-II (5 restarts) after
# writing the split; then the gp command's defaults and its --map on the training set.
/tmp/st-cli gp --n 2560 --dims 8 --data-seed 1 --map --out /tmp/cli-is/gen2560 > /dev/null 2>&1
$T -o "$D/sklearn-gen.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-is/gen2560/data.csv \
	--outdir /tmp/cli-is/split --out "$D/sklearn-gen.json" > /dev/null 2> "$D/sklearn-gen.log"
S=/tmp/cli-is/split
$T -o "$D/split-gp.time" /tmp/st-cli gp --data $S/train.csv --standardize --predict $S/test.csv --out /tmp/cli-is/split-gp > "$D/split-gp.out" 2> "$D/split-gp.err"
cp /tmp/cli-is/split-gp/predictions.json "$D/split-gp-predictions.json"
$T -o "$D/split-map.time" /tmp/st-cli gp --data $S/train.csv --standardize --map --predict $S/test.csv --out /tmp/cli-is/split-map > "$D/split-map.out" 2> "$D/split-map.err"
cp /tmp/cli-is/split-map/predictions.json "$D/split-map-predictions.json"
for d in n2048 n2048-chains n4096 split-gp; do cp /tmp/cli-is/$d/summary.json "$D/$d-summary.json"; done
