#!/usr/bin/env bash
# Runs Stan's NUTS and subtemper's default sampler (PT, HMC at the target,
# MH above), PT with HMC at every level, HMC alone and NUTS alone on the same GP posterior
# (the paper's generator, N = 128, D = 3, data seed 1), one after the other,
# 4 chains × (1000 warm-up + 1000 draws) each, and writes both outputs to
# OUTDIR. Both report min and median bulk-ESS per CPU-second as the ESS of
# all chains over the CPU time of all chains, warm-up included.
#   scripts/compare/side_by_side.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: side_by_side.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export OPENBLAS_NUM_THREADS=1
git rev-parse --short HEAD > "$out/commit.txt"
go test -c -tags openblas -o "$out/bench.test" ./bench/
for s in '^pt$/^hmc-mh$' '^pt$/^hmc$' '^none$/^hmc$' '^none$/^nuts$'; do
	(cd bench && "$out/bench.test" -test.run '^$' -test.bench "Sampler/gp/N=128/D=3/$s/default" \
		-test.benchtime 1x -test.timeout 2h)
done | tee "$out/subtemper.txt"
rm -f "$out/bench.test"
Rscript scripts/compare/run_stan.R --data scripts/compare/data/gp_n128_d3_seed1.csv --chains 4 --warmup 1000 \
	--draws 1000 --seed 1 --cores 1 --out "$out/stan" 2>&1 | tee "$out/stan.txt"
