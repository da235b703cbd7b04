#!/bin/sh
# The gp command's defaults on the §4.2 generator at D = 8 (data seed 1), N = 2048 and 4096, with
# the binary of commit $1, one after the other on 2 cores, OpenBLAS with one thread per evaluation;
# then BenchmarkChainsCorner (the chains' kernels on the corner target, 8 seeds).
set -u
D=$PWD/docs/measurements/2026-11-29/grid
git worktree add -f --detach /tmp/grid-cli-wt $1 > /dev/null 2>&1
(cd /tmp/grid-cli-wt && go build -tags openblas -o /tmp/st-grid-$1 ./cmd/subtemper && go test -c -o /tmp/tempering-grid-$1.test ./tempering/)
git worktree remove --force /tmp/grid-cli-wt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
for n in 2048 4096; do
	rm -rf /tmp/grid-cli-$n
	/usr/bin/time -f %e_wall_s_%U_user_s_%S_sys_s -o $D/cli-n$n.time /tmp/st-grid-$1 gp --n $n --dims 8 --out /tmp/grid-cli-$n > $D/cli-n$n.out 2> $D/cli-n$n.err
	cp /tmp/grid-cli-$n/summary.json $D/cli-n$n-summary.json
done
(cd tempering && /tmp/tempering-grid-$1.test -test.run '^$' -test.bench ChainsCorner -test.benchtime 1x > $D/chains-corner.txt 2>&1)
