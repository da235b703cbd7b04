#!/bin/sh
# Delayed rejection (the local step tried only after a rejected
# independence proposal) against the default (a local step after every
# proposal), at N = 1024, D = 8 (§4.2 generator, data seed 1). Needs
# commit d945800 (Independence.Delayed, removed after this measurement).
# The default's runs here are fit seeds 1 and 2; seeds 3 and 4 of the
# default are in ../large/ (the same proposal and draws).
#   git checkout d945800 && sh docs/measurements/2026-11-27/delayed/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/delayed
go test -c -tags openblas -o /tmp/bench-delayed.test ./bench/
cd bench
for s in 1 2 3 4; do
	OPENBLAS_NUM_THREADS=1 /tmp/bench-delayed.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
		-large.n 1024 -large.dims 8 -large.methods warm -large.seed $s -large.delayed 1 >"$D/n1024-s$s-delayed.txt" 2>&1
done
for s in 1 2; do
	OPENBLAS_NUM_THREADS=1 /tmp/bench-delayed.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
		-large.n 1024 -large.dims 8 -large.methods warm -large.seed $s >"$D/n1024-s$s-default.txt" 2>&1
done
