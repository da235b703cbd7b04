#!/bin/sh
# The wide component wide along b alone (9 times b's variance, weight
# 0.15, on at every importance ESS) against the default's (twice the
# spread in every direction, weight 0.15 below an importance ESS of 0.5),
# at N = 1024, D = 8 (§4.2 generator, data seed 1), fit seeds 1–4. Needs
# commit 154e139 (Independence.WideAxes, removed after this measurement).
# The default's runs are in ../delayed/ (seeds 1, 2) and ../large/
# (seeds 3, 4): the same proposals.
#   git checkout 154e139 && sh docs/measurements/2026-11-27/wide-b/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/wide-b
go test -c -tags openblas -o /tmp/bench-wideb.test ./bench/
cd bench
for s in 1 2 3 4; do
	OPENBLAS_NUM_THREADS=1 /tmp/bench-wideb.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
		-large.n 1024 -large.dims 8 -large.methods warm -large.seed $s -large.wideaxes 9 -large.widescale 9 >"$D/n1024-s$s-b9.txt" 2>&1
done
