#!/bin/sh
# Reproduces the N_train = 2048 rows of docs/measurements/2026-11-28/mixture: the gp command's
# defaults on cli-importance's diamonds split (2560 random rows of ggplot2's diamonds, R's
# set.seed(1), split 80/20 by scripts/compare/sklearn_large.py: run-diamonds.sh there makes it),
# one fit at a time on 2 cores, OpenBLAS with one thread per evaluation:
#   old   the binary of 9d45b43 (refits by one t)
#   mix3  the binary of bc307b4 (refits by a mixture of three t's and the defensive t)
#   mix5  the same with ImportanceMixture = 5
#   mix3k the binary of 34ee9d7 (the kernel's own split-t also among the defensive components)
#   mix5k the binary of 074d144 (the same with five t's: the default)
#   shrink the binary of 9ebf1f0 (the proposal fit's refits shrunk towards the round's own)
# (mix5 and mix5k ran while a benchmark, niced, shared the machine for part of their runs; shrink
# while .ci/run did.)
# The old fit shared the machine with a build and a unit test for part of its run. Then the
# weights per batch (batches.py; the proposal fit's 1 500 draws come first). CPU-s = user + sys.
set -eu
D=$PWD/docs/measurements/2026-11-28/mixture
S=/tmp/cli-dia/split
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
build() { # build COMMIT BINARY [MIXTURE]
	git worktree add -f --detach /tmp/mix-bin "$1" > /dev/null 2>&1
	[ -z "${3:-}" ] || sed -i "s/^const ImportanceMixture = 3/const ImportanceMixture = $3/" /tmp/mix-bin/importance.go
	(cd /tmp/mix-bin && go build -tags openblas -o "$2" ./cmd/subtemper)
	git worktree remove --force /tmp/mix-bin
}
build 9d45b43 /tmp/st-old
build bc307b4 /tmp/st-mix3
build bc307b4 /tmp/st-mix5 5
build 34ee9d7 /tmp/st-mix3k
build 074d144 /tmp/st-mix5k
build 9ebf1f0 /tmp/st-shrink
for r in old mix3 mix5 mix3k mix5k shrink; do
	rm -rf /tmp/n2048-$r
	$T -o "$D/n2048-$r.time" /tmp/st-$r gp --data $S/train.csv --standardize --out /tmp/n2048-$r > /dev/null 2> "$D/n2048-$r.err"
	cp /tmp/n2048-$r/summary.json "$D/n2048-$r-summary.json"
	/usr/bin/python3 "$D/batches.py" /tmp/n2048-$r/draws.csv 1500 > "$D/n2048-$r-batches.txt"
done
