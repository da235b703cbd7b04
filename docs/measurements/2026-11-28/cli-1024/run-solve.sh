#!/bin/sh
# The predictions of run-draws.sh's 250-draw cases again, after Predict's CPU path solves with the
# Cholesky factor instead of inverting it (binary of the working tree; run after run.sh and
# run-draws.sh, whose /tmp folders this reads); drawscmp.py compares them with those of run-draws.sh.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-1024
go build -tags openblas -o /tmp/st-solve ./cmd/subtemper
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
for c in "gen2048 /tmp/cli-is/split-gp /tmp/cli-is/split" "gen4096 /tmp/cli-5120/gp /tmp/cli-5120/split"; do
	set -- $c
	$T -o "$D/solve-$1-250.time" /tmp/st-solve predict --fit $2 --data $3/test.csv --predict-draws 250 --out /tmp/c1024/$1-solve > "$D/solve-$1-250.out" 2>&1
	/usr/bin/python3 "$D/drawscmp.py" /tmp/c1024/$1-d250/predictions.csv /tmp/c1024/$1-solve/predictions.csv > "$D/solve-$1-250.json"
done
