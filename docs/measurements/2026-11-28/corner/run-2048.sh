#!/bin/sh
# Reproduces the diamonds rows of docs/measurements/2026-11-28/corner: the split of
# cli-importance/run-diamonds.sh (ggplot2's diamonds, 2560 random rows, R's set.seed(1), split
# 80/20 by scripts/compare/sklearn_large.py, stopped once it has written the split), then on its
# N_train = 2048 training set, one after the other on 2 cores, OpenBLAS with one thread per
# evaluation, the binary of 711d2bd: the gp command's defaults (importance sampling), and the
# chains (--importance off) for at most 40 minutes. corner.py (mixture/) reads each fit's draws:
# log ℓ_depth's weighted mean and sd in slices of log ℓ_z; zlog.py compares the two fits' means of
# log θ. Run from the repository root; needs R with r-cran-ggplot2 and python3-sklearn.
set -u
D=$PWD/docs/measurements/2026-11-28/corner
C=$PWD/docs/measurements/2026-11-28/mixture/corner.py
W=/tmp/ref2048
S=/tmp/cli-dia/split
rm -rf /tmp/cli-dia $W && mkdir -p /tmp/cli-dia $W
Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
  s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
  write.csv(s, "/tmp/cli-dia/dia2560.csv", row.names=FALSE)'
/usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-dia/dia2560.csv --outdir $S --out $W/sklearn-unused.json > /dev/null 2>&1 &
SK=$!
while [ ! -s $S/test.csv ]; do sleep 1; done
sleep 2 && kill $SK
git worktree add -f --detach /tmp/corner-bin 711d2bd > /dev/null 2>&1
(cd /tmp/corner-bin && go build -tags openblas -o /tmp/st-head ./cmd/subtemper)
git worktree remove --force /tmp/corner-bin
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
$T -o $D/n2048-is.time /tmp/st-head gp --data $S/train.csv --standardize --out $W/is > $D/n2048-is.out 2> $D/n2048-is.err
cp $W/is/summary.json $D/n2048-is-summary.json
/usr/bin/python3 $C $W/is/draws.csv > $D/n2048-is-corner.txt
$T -o $D/n2048-chains.time /tmp/st-head gp --data $S/train.csv --standardize --importance off --max-time 40m --out $W/chains > $D/n2048-chains.out 2> $D/n2048-chains.err
cp $W/chains/summary.json $D/n2048-chains-summary.json
/usr/bin/python3 $C $W/chains/draws.csv > $D/n2048-chains-corner.txt
/usr/bin/python3 $D/zlog.py $W/is/draws.csv $W/is/summary.json $W/chains/draws.csv $W/chains/summary.json > $D/n2048-zlog.txt
