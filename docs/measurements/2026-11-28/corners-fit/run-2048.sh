#!/bin/sh
# Diamonds at N_train = 2048 (the split of ../corner/run-2048.sh: ggplot2's diamonds, 2560 random
# rows, R's set.seed(1), split 80/20 by scripts/compare/sklearn_large.py), the gp command's
# defaults with the binary of each commit given (here 711d2bd, before the warm start's corners,
# and 88e588f, with them), one after the other on 2 cores, OpenBLAS with one thread per evaluation. corner.py reads
# each fit's weighted draws (log ℓ_depth in slices of log ℓ_z); zsum.py compares each fit's means of
# θ with the chains' of ../corner (n2048-chains-summary.json). Run from the repository root; needs R
# with r-cran-ggplot2 and python3-sklearn. OUT, if set, is the folder the files go to (default this
# one) and WORK the scratch folder (default /tmp/corners2048).
set -u
Z=$PWD/docs/measurements/2026-11-28/corners-fit
D=${OUT:-$Z}
C=$PWD/docs/measurements/2026-11-28/mixture/corner.py
W=${WORK:-/tmp/corners2048}
S=/tmp/cli-dia/split
rm -rf $W && mkdir -p $W
if [ ! -s $S/test.csv ]; then
  rm -rf /tmp/cli-dia && mkdir -p /tmp/cli-dia
  Rscript -e 'library(ggplot2); d <- as.data.frame(diamonds); set.seed(1); i <- sample(nrow(d), 2560);
    s <- d[i, c("carat","depth","table","x","y","z")]; s$log_price <- log(d$price[i]);
    write.csv(s, "/tmp/cli-dia/dia2560.csv", row.names=FALSE)'
  /usr/bin/python3 scripts/compare/sklearn_large.py --data /tmp/cli-dia/dia2560.csv --outdir $S --out $W/sklearn-unused.json > /dev/null 2>&1 &
  SK=$!
  while [ ! -s $S/test.csv ]; do sleep 1; done
  sleep 2 && kill $SK
fi
for r in "$@"; do
  git worktree add -f --detach $W-bin $r > /dev/null 2>&1
  (cd $W-bin && go build -tags openblas -o /tmp/st-$r ./cmd/subtemper)
  git worktree remove --force $W-bin
done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
for r in "$@"; do
  $T -o $D/n2048-$r.time /tmp/st-$r gp --data $S/train.csv --standardize --out $W/$r > $D/n2048-$r.out 2> $D/n2048-$r.err
  cp $W/$r/summary.json $D/n2048-$r-summary.json
  /usr/bin/python3 $C $W/$r/draws.csv > $D/n2048-$r-corner.txt
  /usr/bin/python3 $Z/zsum.py $W/$r/summary.json $Z/../corner/n2048-chains-summary.json > $D/n2048-$r-zsum.txt
done
