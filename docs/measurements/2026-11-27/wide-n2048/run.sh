#!/bin/sh
# The wide component mixed in at N = 2048, D = 8 (§4.2 generator, data
# seed 1, fit seed 1), where the proposal's importance ESS (0.51) is above
# WideBelowESS and the default leaves it out. The default's run of the same
# seed (the same proposal) is ../screen-gate/n2048-d8-s1-base.txt.
#   sh docs/measurements/2026-11-27/wide-n2048/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/wide-n2048
go test -c -tags openblas -o /tmp/bench.test ./bench/
cd bench
OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
	-large.n 2048 -large.dims 8 -large.methods warm -large.seed 1 -large.wide 0.15 >"$D/n2048-s1-wide015.txt" 2>&1
