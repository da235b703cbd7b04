#!/bin/sh
# The D = 8 tail-compressed variance split of docs/LARGE.md: §4.2
# generator, N = 1024, D = 8, data seed 1, fit seeds 1-4; the default
# (warm) path with its proposal fitted, and its chains run, in
# gp.VarianceSplitTail's space (-large.btail M: scale M times b's Laplace
# sd). Each line is one whole fit; run two at a time on 2 cores.
#   btailM-sS.txt    -large.btail M, fit seed S
#   profile-btailM-s1.txt  the log posterior along a and w from the mode
set -e
out=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
go test -c -tags openblas -o /tmp/d8-btail.test ./bench/
cd bench
run() { OPENBLAS_NUM_THREADS=1 /tmp/d8-btail.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 2h -large.n 1024 -large.dims 8 -large.methods warm "$@"; }
for s in 1 2 3 4; do
	run -large.btail 1 -large.seed $s >"$out/btail1-s$s.txt" 2>&1
done
run -large.btail 1 -large.seed 1 -large.profile 2>&1 | grep profile >"$out/profile-btail1-s1.txt" # stop it once printed
