#!/bin/sh
# Reproduces docs/measurements/2026-11-28/cli-1024, one command at a time on 2 cores, OpenBLAS with
# one thread per evaluation; needs OpenBLAS, python3-sklearn and R with ggplot2. Run from the
# repository root.
#  1. N_train = 1024 beside scikit-learn's ML-II (5 restarts, scripts/compare/sklearn_large.py): the
#     §4.2 generator's N = 1280 (D = 8, data seed 1) and 1280 rows of ggplot2's diamonds (log price
#     on six inputs, R's set.seed(1)), each split 80/20. Ours: the gp command's defaults without
#     --predict (the fit's CPU time), then predict --fit on the test set, then --map with --predict.
#  2. Predicting once per distinct draw: predict --fit on the N_train = 2048 and 4096 generator fits
#     of ../cli-importance (run.sh and run-4096.sh there, whose /tmp folders this reads) with this
#     binary, and on the 2048 one with the binary before PredictDraws factorised each distinct draw
#     once (0611b19^; at 4096 that one was stopped after 5 minutes, for lack of time).
#  3. The paired held-out comparison (scripts/compare/paired_lpd.py) on every split.
set -eu
D=$PWD/docs/measurements/2026-11-28/cli-1024
go build -tags openblas -o /tmp/st-1024 ./cmd/subtemper
rm -rf /tmp/st-old-src && git worktree add -f --detach /tmp/st-old-src 0611b19^ > /dev/null 2>&1
(cd /tmp/st-old-src && go build -tags openblas -o /tmp/st-old ./cmd/subtemper)
git worktree remove --force /tmp/st-old-src
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
W=/tmp/c1024
rm -rf $W && mkdir -p $W
/tmp/st-1024 gp --n 1280 --dims 8 --data-seed 1 --map --out $W/gen1280 > /dev/null 2>&1
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 1280);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s, "/tmp/c1024/dia1280.csv", row.names=FALSE)'
for c in "gen $W/gen1280/data.csv" "diamonds $W/dia1280.csv"; do
	set -- $c
	$T -o "$D/sklearn-$1.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data $2 \
		--outdir $W/$1-split --out "$D/sklearn-$1.json" > /dev/null 2> "$D/sklearn-$1.log"
	S=$W/$1-split
	$T -o "$D/$1-gp.time" /tmp/st-1024 gp --data $S/train.csv --standardize --out $W/$1-gp > "$D/$1-gp.out" 2> "$D/$1-gp.err"
	$T -o "$D/$1-predict.time" /tmp/st-1024 predict --fit $W/$1-gp --data $S/test.csv --out $W/$1-pred > "$D/$1-predict.out" 2>&1
	$T -o "$D/$1-map.time" /tmp/st-1024 gp --data $S/train.csv --standardize --map --predict $S/test.csv --out $W/$1-map > "$D/$1-map.out" 2> "$D/$1-map.err"
	cp $W/$1-gp/summary.json "$D/$1-gp-summary.json"
	cp $W/$1-pred/predictions.json "$D/$1-gp-predictions.json"
	cp $W/$1-map/predictions.json "$D/$1-map-predictions.json"
	for m in gp map; do
		p=$W/$1-pred/predictions.csv; [ $m = map ] && p=$W/$1-map/predictions.csv
		/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn "$D/sklearn-$1.json" --ours $p > "$D/paired-$1-$m.json"
	done
done
# 2. The same fit predicted by both binaries (1 000 resampled draws).
for c in "n2048 /tmp/cli-is/split-gp /tmp/cli-is/split" "n4096 /tmp/cli-5120/gp /tmp/cli-5120/split"; do
	set -- $c
	$T -o "$D/dedupe-$1-new.time" /tmp/st-1024 predict --fit $2 --data $3/test.csv --out $W/$1-new > "$D/dedupe-$1-new.out" 2>&1
	cp $W/$1-new/predictions.json "$D/dedupe-$1-new-predictions.json"
	[ $1 = n2048 ] || continue
	$T -o "$D/dedupe-$1-old.time" /tmp/st-old predict --fit $2 --data $3/test.csv --out $W/$1-old > "$D/dedupe-$1-old.out" 2>&1
	# The same predictions: the old binary's columns equal the new one's first columns.
	if cut -d, -f1-18 $W/$1-new/predictions.csv | cmp -s - $W/$1-old/predictions.csv; then echo same > "$D/dedupe-$1-cmp.txt"; else echo differ > "$D/dedupe-$1-cmp.txt"; fi
done
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/cli-importance/sklearn-gen.json --ours $W/n2048-new/predictions.csv > "$D/paired-gen2048-gp.json"
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn docs/measurements/2026-11-28/cli-importance/sklearn-gen5120.json --ours $W/n4096-new/predictions.csv > "$D/paired-gen4096-gp.json"
# The log posterior at scikit-learn's optima under our model (beside the one --map printed).
for s in gen diamonds; do sh "$D/logpost.sh" "$D/sklearn-$s.json" "$D/logpost-$s.json"; done
sh "$D/logpost.sh" docs/measurements/2026-11-28/cli-importance/sklearn-diamonds.json "$D/logpost-dia2048.json"
