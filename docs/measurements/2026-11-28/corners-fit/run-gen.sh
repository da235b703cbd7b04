#!/bin/sh
# BenchmarkLargeFit's warm-is as the default runs it (split-t, the proposal fit's draws reused,
# five-t refits) on the §4.2 generator at N = 1024, D = 8, data seed 1, fit seeds 1-4: the bench
# binary of 711d2bd (before the warm start's corners), then that of $1 (with them: corners and
# single-t refits where the warm start fitted any), one fit at a time on 2 cores; each against an
# importance-sampling reference of 20 000 draws (-large.reference, its max_z).
set -eu
D=$PWD/docs/measurements/2026-11-28/corners-fit
for r in 711d2bd $1; do
  git worktree add -f --detach /tmp/corners-bench $r > /dev/null 2>&1
  (cd /tmp/corners-bench && go test -c -tags openblas -o /tmp/bench-$r.test ./bench/)
  git worktree remove --force /tmp/corners-bench
done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
cd bench
A="-test.run ^$ -test.bench LargeFit -test.benchtime 1x -test.timeout 0 -large.methods warm-is -large.split -large.adapt -large.mixture 5 -large.n 1024 -large.dims 8 -large.seed 1,2,3,4 -large.reference 20000"
/tmp/bench-711d2bd.test $A > "$D/gen-n1024-d8-before.txt" 2>&1
/tmp/bench-$1.test $A > "$D/gen-n1024-d8-corners.txt" 2>&1
