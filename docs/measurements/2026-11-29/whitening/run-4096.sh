#!/bin/sh
# run.sh's fitgp at N = 4096, D = 3 and 8 (data seed 1), with the bench binary run.sh built for
# commit $1, on core $2 alone (taskset), beside ../diamonds-n4096/run-new.sh on the other core.
# OpenBLAS with one thread per evaluation. Run from the repository root after run.sh.
set -u
D=$PWD/docs/measurements/2026-11-29/whitening
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
B="/tmp/bench-white-$1.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0"
cd bench
for d in 3 8; do
	taskset -c $2 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/fitgp-d$d-n4096.time $B -large.methods fitgp -large.dims $d -large.n 4096 > $D/fitgp-d$d-n4096.txt 2>&1
done
