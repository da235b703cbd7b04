#!/bin/sh
# Reproduces the N_train = 4096 row of docs/measurements/2026-11-28/mixture with depth left out:
# the gp command's defaults (binary of c3c9735) on diamonds-n4096's split without the depth column
# (--exclude depth: depth is the percentage 200z/(x + y), which the other inputs already hold),
# with a 35-minute limit, its held-out predictions paired with scikit-learn's fit on all six
# inputs (diamonds-n4096/sklearn.json). On 2 cores, OpenBLAS with one thread per evaluation; it
# shared them with .ci/run throughout.
set -u
D=$PWD/docs/measurements/2026-11-28/mixture
S=/tmp/dia4096/split
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
git worktree add -f --detach /tmp/mix-bin c3c9735 > /dev/null 2>&1
(cd /tmp/mix-bin && go build -tags openblas -o /tmp/st-nodepth ./cmd/subtemper)
git worktree remove --force /tmp/mix-bin
rm -rf /tmp/n4096-nodepth
$T -o "$D/n4096-nodepth.time" /tmp/st-nodepth gp --data $S/train.csv --exclude depth --standardize --max-time 35m --predict $S/test.csv --out /tmp/n4096-nodepth > /dev/null 2> "$D/n4096-nodepth.err"
cp /tmp/n4096-nodepth/summary.json "$D/n4096-nodepth-summary.json"
cp /tmp/n4096-nodepth/predictions.json "$D/n4096-nodepth-predictions.json"
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/diamonds-n4096/sklearn.json --ours /tmp/n4096-nodepth/predictions.csv > "$D/n4096-nodepth-paired.json"
/usr/bin/python3 "$D/batches.py" /tmp/n4096-nodepth/draws.csv 500 > "$D/n4096-nodepth-batches.txt"
