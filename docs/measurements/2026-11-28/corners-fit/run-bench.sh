#!/bin/sh
# BenchmarkImportanceCorner (tempering/corner_test.go) at $1: every variant, 20 seeds each.
set -eu
D=$PWD/docs/measurements/2026-11-28/corners-fit
git worktree add -f --detach /tmp/corners-tb $1 > /dev/null 2>&1
(cd /tmp/corners-tb && go test -c -o /tmp/tempering-$1.test ./tempering/)
git worktree remove --force /tmp/corners-tb
cd tempering && /tmp/tempering-$1.test -test.run '^$' -test.bench ImportanceCorner -test.benchtime 1x -test.timeout 0 > "$D/bench.txt" 2>&1
