#!/bin/sh
# Reproduces docs/measurements/2026-11-28/reference-long: the default large-N sampler at N = 1024,
# D = 3, fit seeds 1 and 2, run until every bulk- and tail-ESS reaches 4 000 (-large.miness 4000,
# ten times the default's 400), each fit's posterior means judged against the importance-sampling
# reference of ../screen-n1024 (-large.reference 20000, fit seed 1000: the same reference), and a
# second reference of fit seed 1001 (ref1001.txt, beside a fit of seed 4 at the default's 400).
# §4.2 generator, data seed 1. Run from the repository root; one BLAS thread per chain.
set -eu
OUT=docs/measurements/2026-11-28/reference-long
go test -c -tags openblas -o /tmp/bench-long.test ./bench/
cd bench
OPENBLAS_NUM_THREADS=1 /tmp/bench-long.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x \
  -test.timeout 0 -large.n 1024 -large.dims 3 -large.methods warm -large.seed 1,2 \
  -large.reference 20000 -large.miness 4000 > "../$OUT/n1024-d3-miness4000.txt" 2>&1
[ -z "${REF1001:-}" ] || OPENBLAS_NUM_THREADS=1 /tmp/bench-long.test -test.run '^$' -test.bench LargeFit \
  -test.benchtime 1x -test.timeout 0 -large.n 1024 -large.dims 3 -large.methods warm -large.seed 4 \
  -large.reference 20000 -large.refseed 1001 > "../$OUT/ref1001.txt" 2>&1
