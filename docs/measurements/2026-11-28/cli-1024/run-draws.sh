#!/bin/sh
# How many draws an importance-sampled fit's predictions need (docs/measurements/2026-11-28/cli-1024):
# predict --fit with --predict-draws 250 and 100 on the generator's N_train = 2048 and diamonds'
# N_train = 2048 fits of ../cli-importance, and 250 on the generator's 4096, beside the default
# 1 000 of run.sh and run-paired-dia2048.sh (run those first: this reads their /tmp folders), one at
# a time on 2 cores, OpenBLAS with one thread per evaluation; drawscmp.py compares each with the
# 1 000 draws' predictions point by point.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-1024
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
for c in "gen2048 /tmp/cli-is/split-gp /tmp/cli-is/split /tmp/c1024/n2048-new" "dia2048 /tmp/cli-dia/gp /tmp/cli-dia/split /tmp/c1024/dia2048-pred"; do
	set -- $c
	for m in 250 100; do
		$T -o "$D/draws-$1-$m.time" /tmp/st-1024 predict --fit $2 --data $3/test.csv --predict-draws $m --out /tmp/c1024/$1-d$m > "$D/draws-$1-$m.out" 2>&1
		/usr/bin/python3 "$D/drawscmp.py" $4/predictions.csv /tmp/c1024/$1-d$m/predictions.csv > "$D/draws-$1-$m.json"
	done
done
$T -o "$D/draws-gen4096-250.time" /tmp/st-1024 predict --fit /tmp/cli-5120/gp --data /tmp/cli-5120/split/test.csv --predict-draws 250 --out /tmp/c1024/gen4096-d250 > "$D/draws-gen4096-250.out" 2>&1
/usr/bin/python3 "$D/drawscmp.py" /tmp/c1024/n4096-new/predictions.csv /tmp/c1024/gen4096-d250/predictions.csv > "$D/draws-gen4096-250.json"
