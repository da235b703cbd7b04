#!/bin/sh
# Local steps along the flagged parameter, against the default local step,
# at N = 1024, D = 8 (§4.2 generator, data seed 1), fit seeds 1 and 2.
# Needs commit d9b3842 (Independence.LocalAxes, removed after this
# measurement), whose LocalAxes is the mixed form (*-mix.txt): each local
# step moves either every coordinate or the flagged one, each as likely.
# The *-axes.txt runs were made with the same code but every local step
# along the flagged one (rng.IntN(len(axes)) in place of len(axes)+1).
#   git checkout d9b3842 && sh docs/measurements/2026-11-27/local-axes/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/local-axes
go test -c -tags openblas -o /tmp/bench-axes.test ./bench/
cd bench
for s in 1 2; do
	OPENBLAS_NUM_THREADS=1 /tmp/bench-axes.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
		-large.n 1024 -large.dims 8 -large.methods warm -large.seed $s >"$D/n1024-s$s-base.txt" 2>&1
	OPENBLAS_NUM_THREADS=1 /tmp/bench-axes.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 0 \
		-large.n 1024 -large.dims 8 -large.methods warm -large.seed $s -large.localaxes >"$D/n1024-s$s-mix.txt" 2>&1
done
