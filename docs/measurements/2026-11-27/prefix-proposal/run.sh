#!/bin/sh
# The proposal fit on a prefix's power posterior (ProposalOptions.Prefix),
# against the fit on all observations, from the same warm start, at
# N = 2048, D = 8 (§4.2 generator, data seed 1). Needs commit 6a68c3d (the
# option and BenchmarkProposalFit were removed after this measurement):
#   git checkout 6a68c3d && sh docs/measurements/2026-11-27/prefix-proposal/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/prefix-proposal
go test -c -tags openblas -o /tmp/bench-prefix.test ./bench/
cd bench
OPENBLAS_NUM_THREADS=1 /tmp/bench-prefix.test -test.run '^$' -test.bench ProposalFit -test.benchtime 1x -test.timeout 0 \
	-large.n 2048 -large.dims 8 -large.seed 1 -prop.prefix 0,4,8 >"$D/n2048-s1.txt" 2>&1
OPENBLAS_NUM_THREADS=1 /tmp/bench-prefix.test -test.run '^$' -test.bench ProposalFit -test.benchtime 1x -test.timeout 0 \
	-large.n 2048 -large.dims 8 -large.seed 2 -prop.prefix 0,2 >"$D/n2048-s2-half.txt" 2>&1
