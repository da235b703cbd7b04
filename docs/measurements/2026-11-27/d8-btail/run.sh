#!/bin/sh
# The tail-compressed variance split of docs/LARGE.md ("b's left tail
# compressed"): §4.2 generator, N = 1024, D = 8, data seed 1. The
# independence sampler (-large.methods warm) with its proposal fitted, and
# its chains run, in gp.VarianceSplitTail's space (-large.btail M: scale M
# times b's Laplace sd), and in the plain split beside it (the default) at
# the seeds it had not been run at. Data seed 2: the plain split and the
# space subtemper.VarianceSplitTail chooses (-large.tailgate: the tail
# compressed there).
# Each line is one whole fit; run two at a time on 2 cores (about 1.5 CPU-hours
# in all).
#   btailM-sS.txt          -large.btail M, fit seed S
#   btail1-sS-rerun.txt    btail1-sS again (S = 1-4), with each parameter's ESS
#   default-sS.txt         the plain split (the default), fit seed S
#   data2-tail-sS.txt, data2-split-sS.txt  data seed 2, -large.tailgate and the plain split
#   d3-btail1-sS.txt, d3-default-sS.txt, d3-tailgate-s1.txt  D = 3: M = 1, the plain split, -large.tailgate
#   tailfall.txt           subtemper.TailFall, b's fall at 4 Laplace sd below the mode
#   profile-btail1-s1.txt  the log posterior along a and w from the mode
# btail1-s1..s4 were run before the bench printed each parameter's ESS;
# their draws are the same either way.
set -e
out=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
go test -c -tags openblas -o /tmp/d8-btail.test ./bench/
cd bench
run() { OPENBLAS_NUM_THREADS=1 /tmp/d8-btail.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 2h -large.n 1024 -large.dims 8 -large.methods warm "$@"; }
for s in 1 2 3 4 5 6 7 8; do
	run -large.btail 1 -large.seed $s >"$out/btail1-s$s.txt" 2>&1
done
for s in 1 2 3 4; do
	run -large.btail 1 -large.seed $s >"$out/btail1-s$s-rerun.txt" 2>&1
done
for s in 1 2; do
	run -large.btail 2 -large.seed $s >"$out/btail2-s$s.txt" 2>&1
done
for s in 1 2 3 4; do
	run -large.btail 0.7 -large.seed $s >"$out/btail0.7-s$s.txt" 2>&1
done
for s in 1 2 6 7 8; do
	run -large.seed $s >"$out/default-s$s.txt" 2>&1
done
for s in 1 2; do
	run -large.data 2 -large.tailgate -large.seed $s >"$out/data2-tail-s$s.txt" 2>&1
	run -large.data 2 -large.seed $s >"$out/data2-split-s$s.txt" 2>&1
	run -large.dims 3 -large.btail 1 -large.seed $s >"$out/d3-btail1-s$s.txt" 2>&1
	run -large.dims 3 -large.seed $s >"$out/d3-default-s$s.txt" 2>&1
done
run -large.dims 3 -large.tailgate -large.seed 1 >"$out/d3-tailgate-s1.txt" 2>&1
# Stop it once printed (it goes on to sample).
timeout 150 sh -c "OPENBLAS_NUM_THREADS=1 /tmp/d8-btail.test -test.run '^\$' -test.bench LargeFit -test.benchtime 1x -large.n 1024 -large.dims 8 -large.methods warm -large.btail 1 -large.seed 1 -large.profile" 2>&1 | grep profile >"$out/profile-btail1-s1.txt" || true
# subtemper.TailFall at D = 3 and at D = 8 on data seeds 1 and 2 (the first
# profile line of each; stop it once printed).
for c in "3 1" "8 1" "8 2"; do
	set -- $c
	timeout 400 sh -c "OPENBLAS_NUM_THREADS=1 /tmp/d8-btail.test -test.run '^\$' -test.bench LargeFit -test.benchtime 1x -large.n 1024 -large.dims $1 -large.data $2 -large.methods warm -large.seed 1 -large.profile" 2>&1 | grep -m1 "b falls" | sed "s/^/D=$1 data=$2: /"
done >"$out/tailfall.txt"
