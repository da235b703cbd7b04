#!/bin/sh
# BenchmarkImportanceCorner's variants with corners (200 seeds: refits by one split-t, by one
# symmetric t, by a mixture of five t's, and that with k̂ ≤ 0.5) with the code of commit $1, on core
# $2 alone (taskset). Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/corner-batch
git worktree add -f --detach /tmp/cbf-wt $1 > /dev/null 2>&1
(cd /tmp/cbf-wt && go test -c -o /tmp/tempering-cbf-$1.test ./tempering/)
git worktree remove --force /tmp/cbf-wt
cd tempering
taskset -c $2 /usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/corner-final-$1.time /tmp/tempering-cbf-$1.test -test.run '^$' \
  -test.bench 'ImportanceCorner/refits=[15]/corners' -test.benchtime 1x > $D/corner-final-$1.txt 2>&1
