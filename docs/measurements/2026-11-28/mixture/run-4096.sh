#!/bin/sh
# Reproduces the N_train = 4096 rows of docs/measurements/2026-11-28/mixture: the gp command's
# defaults on diamonds-n4096's split (ggplot2's diamonds, 5120 random rows, R's set.seed(1), split
# 80/20 by scripts/compare/sklearn_large.py: diamonds-n4096/run.sh makes it), alone on 2 cores,
# OpenBLAS with one thread per evaluation. CPU-s = user + sys (/usr/bin/time).
#  1. mix3: the binary of bc307b4 (refits by three t's and the single refitted t). It was stopped
#     by Ctrl-C (SIGINT) 23 minutes in, after five batches (the least ESS erratic), which keeps
#     the weighted draws; their weights per batch (batches.py) and the heaviest draws (heavy.py).
#  2. mix3k: the binary of 34ee9d7 (the kernel's own split-t also kept among the defensive
#     components), with a 60-minute limit (--max-time) so that an unconverged fit still ends and
#     keeps its draws, its held-out predictions paired with scikit-learn's
#     (diamonds-n4096/sklearn.json). It was stopped by Ctrl-C 19 minutes in, during its fifth batch.
#  3. mix5k: the binary of 074d144 (five t's: the default), with a 45-minute limit, the same
#     outputs. It was stopped by Ctrl-C 24 minutes in, during its seventh batch, so neither
#     stopped fit predicted (the paired comparison has nothing to read).
set -u
D=$PWD/docs/measurements/2026-11-28/mixture
S=/tmp/dia4096/split
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
build() { # build COMMIT BINARY
	git worktree add -f --detach /tmp/mix-bin "$1" > /dev/null 2>&1
	(cd /tmp/mix-bin && go build -tags openblas -o "$2" ./cmd/subtemper)
	git worktree remove --force /tmp/mix-bin
}
if [ "${1:-all}" = all ]; then
	build bc307b4 /tmp/st-mix3
	rm -rf /tmp/n4096-mix3
	$T -o "$D/n4096-mix3.time" /tmp/st-mix3 gp --data $S/train.csv --standardize --out /tmp/n4096-mix3 > /dev/null 2> "$D/n4096-mix3.err" &
	sleep 1380 && kill -INT $(pgrep -f "st-mix3 gp --data $S/train.csv")
	wait
	cp /tmp/n4096-mix3/summary.json "$D/n4096-mix3-summary.json"
	/usr/bin/python3 "$D/batches.py" /tmp/n4096-mix3/draws.csv 1500 > "$D/n4096-mix3-batches.txt"
	/usr/bin/python3 "$D/heavy.py" /tmp/n4096-mix3/draws.csv > "$D/n4096-mix3-heavy.txt"
	/usr/bin/python3 "$D/corner.py" /tmp/n4096-mix3/draws.csv > "$D/n4096-mix3-corner.txt"
	/usr/bin/python3 docs/measurements/2026-11-28/diamonds-n4096/shape.py /tmp/n4096-mix3/draws.csv > "$D/n4096-mix3-shape.txt"
fi
run() { # run NAME COMMIT LIMIT
	build "$2" /tmp/st-$1
	rm -rf /tmp/n4096-$1
	$T -o "$D/n4096-$1.time" /tmp/st-$1 gp --data $S/train.csv --standardize --max-time "$3" --predict $S/test.csv --out /tmp/n4096-$1 > /dev/null 2> "$D/n4096-$1.err"
	cp /tmp/n4096-$1/summary.json "$D/n4096-$1-summary.json"
	cp /tmp/n4096-$1/predictions.json "$D/n4096-$1-predictions.json"
	/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/diamonds-n4096/sklearn.json --ours /tmp/n4096-$1/predictions.csv > "$D/n4096-$1-paired.json"
	/usr/bin/python3 "$D/batches.py" /tmp/n4096-$1/draws.csv 1500 > "$D/n4096-$1-batches.txt"
	/usr/bin/python3 "$D/heavy.py" /tmp/n4096-$1/draws.csv > "$D/n4096-$1-heavy.txt"
	/usr/bin/python3 "$D/corner.py" /tmp/n4096-$1/draws.csv > "$D/n4096-$1-corner.txt"
	/usr/bin/python3 docs/measurements/2026-11-28/diamonds-n4096/shape.py /tmp/n4096-$1/draws.csv > "$D/n4096-$1-shape.txt"
}
run mix3k 34ee9d7 60m
run mix5k 074d144 45m
