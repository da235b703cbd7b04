#!/bin/sh
# scikit-learn and the gp command side by side in one run on diamonds at N_train = 4096: ggplot2's
# diamonds, 5120 random rows (R's set.seed(1)), log price on carat, depth, table, x, y, z, split
# 80/20 (N_train = 4096, N_test = 1024) by scripts/compare/sklearn_large.py, which fits
# scikit-learn's ML-II (ARD RBF + white noise, normalize_y, 5 restarts). Each tool has one of the
# two cores (taskset): scikit-learn on core 0 for the whole run; on core 1, one after the other,
#  1. the gp command's defaults (no tuning flags) with --predict on the test set (binary of $1);
#  2. gp --map --predict (the same binary).
# Then the paired held-out comparisons of both against scikit-learn, and the log posterior at
# scikit-learn's optimum under our model (2026-11-28/cli-1024/logpost.sh with this binary).
# OpenBLAS with one thread per evaluation. Run from the repository root; needs OpenBLAS,
# python3-sklearn and R with ggplot2. CPU-s = user + sys of each command (/usr/bin/time).
set -u
D=$PWD/docs/measurements/2026-11-29/diamonds-n4096
W=/tmp/dia4096-$1
ST=/tmp/st-dia-$1
git worktree add -f --detach /tmp/dia-wt-$1 $1 > /dev/null 2>&1
(cd /tmp/dia-wt-$1 && go build -tags openblas -o $ST ./cmd/subtemper)
git worktree remove --force /tmp/dia-wt-$1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
rm -rf $W && mkdir -p $W
Rscript -e "library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 5120); s <- d[i, c('carat','depth','table','x','y','z')]; s\$log_price <- log(d\$price[i]); write.csv(s, '$W/dia5120.csv', row.names=FALSE)"
taskset -c 0 $T -o "$D/sklearn.time" /usr/bin/python3 scripts/compare/sklearn_large.py --data $W/dia5120.csv \
	--outdir $W/split --out "$D/sklearn.json" > /dev/null 2> "$D/sklearn.log" &
SK=$!
S=$W/split
while [ ! -s $S/test.csv ]; do sleep 1; done
sleep 2
taskset -c 1 $T -o "$D/gp.time" $ST gp --data $S/train.csv --standardize --predict $S/test.csv --out $W/gp > "$D/gp.out" 2> "$D/gp.err"
cp $W/gp/summary.json "$D/gp-summary.json"
taskset -c 1 $T -o "$D/map.time" $ST gp --data $S/train.csv --standardize --map --predict $S/test.csv --out $W/map > "$D/map.out" 2> "$D/map.err"
cp $W/map/map.json "$D/map.json"
wait $SK
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn "$D/sklearn.json" --ours $W/gp/predictions.csv > "$D/paired-gp.json"
/usr/bin/python3 scripts/compare/paired_lpd.py --sklearn "$D/sklearn.json" --ours $W/map/predictions.csv > "$D/paired-map.json"
sed "s#/tmp/st-1024#$ST#" docs/measurements/2026-11-28/cli-1024/logpost.sh > $W/logpost.sh
sh $W/logpost.sh "$D/sklearn.json" "$D/logpost.json"
