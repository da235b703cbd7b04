#!/bin/sh
# BenchmarkImportanceCorner's variants with corners (tempering/corner_test.go, 200 seeds) with
# importance sampling's code of commit $1 (before the first batch with corners was made a full one)
# and of $2 (after), both with the benchmark of $2, one after the other on core $3 alone (taskset).
# Run from the repository root.
set -u
D=$PWD/docs/measurements/2026-11-29/corner-batch
for r in $1 $2; do
  git worktree add -f --detach /tmp/cb-wt $r > /dev/null 2>&1
  git show $2:tempering/corner_test.go > /tmp/cb-wt/tempering/corner_test.go
  (cd /tmp/cb-wt && go test -c -o /tmp/tempering-cb-$r.test ./tempering/)
  git worktree remove --force /tmp/cb-wt
done
T="/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s"
cd tempering
for r in $1 $2; do
  taskset -c $3 $T -o $D/corner-$r.time /tmp/tempering-cb-$r.test -test.run '^$' -test.bench 'ImportanceCorner/refits=[15]/corners$' -test.benchtime 1x > $D/corner-$r.txt 2>&1
done
