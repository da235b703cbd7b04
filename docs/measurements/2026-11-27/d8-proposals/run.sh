#!/bin/sh
# The D = 8 proposal variants of docs/LARGE.md ("What did not help
# reliably"): §4.2 generator, N = 1024, D = 8, data seed 1, fit seeds 1-4.
# Each line is one whole fit; run two at a time on 2 cores.
#   surrogate-sS.txt  surrogate transitions (-large.methods warm-sur)
#   surnear-sS.txt    the same, half the transitions one surrogate step
#   surlocal-sS.txt   the same, one exact random-walk step after each
#   default-s5.txt    the default at a fifth seed
#   split-sS.txt      the default (IMH, wide t, one local step) from a split-t
set -e
out=$(cd "$(dirname "$0")" && pwd)
cd "$(git rev-parse --show-toplevel)"
go test -c -tags openblas -o /tmp/d8-proposals.test ./bench/
cd bench
run() { OPENBLAS_NUM_THREADS=1 /tmp/d8-proposals.test -test.run '^$' -test.bench LargeFit -test.benchtime 1x -test.timeout 2h -large.n 1024 -large.dims 8 "$@"; }
for s in 1 2 3 4; do
	run -large.methods warm-sur -large.seed $s >"$out/surrogate-s$s.txt" 2>&1
	run -large.methods warm-sur -large.surnear 0.5 -large.seed $s >"$out/surnear-s$s.txt" 2>&1
	run -large.methods warm -large.split -large.seed $s >"$out/split-s$s.txt" 2>&1
done
for s in 1 2 3 4; do
	run -large.methods warm-sur -large.surlocal 1 -large.seed $s >"$out/surlocal-s$s.txt" 2>&1
done
run -large.methods warm -large.seed 5 >"$out/default-s5.txt" 2>&1
run -large.methods warm-hmc -large.seed 1 -large.profile 2>&1 | grep profile >"$out/profile-s1.txt" # stop it once printed
