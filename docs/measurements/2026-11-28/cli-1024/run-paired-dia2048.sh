#!/bin/sh
# The paired held-out comparison on the diamonds N_train = 2048 split of ../cli-importance
# (run-diamonds.sh there, whose /tmp folders this reads; run after run.sh, whose binary it uses): predict --fit with run.sh's binary, whose
# predictions.csv has each point's log_density, then scripts/compare/paired_lpd.py.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-1024
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o "$D/dia2048-predict.time" /tmp/st-1024 predict --fit /tmp/cli-dia/gp --data /tmp/cli-dia/split/test.csv --out /tmp/c1024/dia2048-pred > "$D/dia2048-predict.out" 2>&1
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/cli-importance/sklearn-diamonds.json --ours /tmp/c1024/dia2048-pred/predictions.csv > "$D/paired-dia2048-gp.json"
