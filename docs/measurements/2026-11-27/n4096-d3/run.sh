#!/bin/sh
# The default warm path (mode search, proposal fit, independence sampler)
# at N = 4096, D = 3 (§4.2 generator, data seed 1, fit seed the default's),
# on OpenBLAS with one thread per chain. Writes warm.txt here.
#   sh docs/measurements/2026-11-27/n4096-d3/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/n4096-d3
go test -c -tags openblas -o /tmp/bench.test ./bench/
cd bench
OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
	-large.n 4096 -large.dims 3 -large.methods warm >"$D/warm.txt" 2>&1
