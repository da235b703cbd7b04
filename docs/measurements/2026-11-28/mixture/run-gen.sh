#!/bin/sh
# Reproduces the generator rows of docs/measurements/2026-11-28/mixture: BenchmarkLargeFit's warm-is
# as the default runs it (split-t, the proposal fit's draws reused, refits), on the §4.2 generator
# at N = 1024, D = 8, data seed 1, fit seeds 1-3, with refits by the single t, by three t's and by
# five (bench binary of 34ee9d7, -large.mixture), one fit at a time on 2 cores (the five-t run
# niced beside a CLI fit); then each seed's means against the single t's (zcmp.py).
set -eu
D=$PWD/docs/measurements/2026-11-28/mixture
go test -c -tags openblas -o /tmp/bench.test ./bench/
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
B="/tmp/bench.test -test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods warm-is -large.split -large.adapt -large.n 1024 -large.dims 8 -large.seed 1,2,3"
$B > "$D/gen-n1024-d8-single.txt" 2>&1
$B -large.mixture 3 > "$D/gen-n1024-d8-mix3.txt" 2>&1
$B -large.mixture 5 > "$D/gen-n1024-d8-mix5.txt" 2>&1
cd ..
/usr/bin/python3 "$D/zcmp.py" "$D/gen-n1024-d8-single.txt" "$D/gen-n1024-d8-mix3.txt" > "$D/zcmp.txt"
/usr/bin/python3 "$D/zcmp.py" "$D/gen-n1024-d8-single.txt" "$D/gen-n1024-d8-mix5.txt" >> "$D/zcmp.txt"
