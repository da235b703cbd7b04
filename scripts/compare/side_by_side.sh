#!/usr/bin/env bash
# Runs Stan's NUTS and subtemper's default sampler (PT, HMC at the target,
# MH above), PT with HMC at every level, HMC alone and NUTS alone on the same GP posterior,
# one after the other, 4 chains × (WARMUP warm-up + DRAWS draws) each, and
# writes both outputs to OUTDIR. Both report min and median bulk-ESS per
# CPU-second as the ESS of all chains over the CPU time of all chains,
# warm-up included.
#   scripts/compare/side_by_side.sh OUTDIR
# Environment:
#   CASE    gp (default: the paper's generator, N = 128, D = 3, data seed 1),
#           gp512 (the same generator at N = 512, D = 8, data seed 1)
#           or diabetes (scikit-learn's, N = 442, D = 10, standardised)
#   WARMUP  warm-up iterations per chain (default 1000)
#   DRAWS   draws per chain (default 1000)
#   SAMPLERS  the subtemper rows, as BenchmarkSampler's driver/kernel
#           patterns (default '^pt$/^hmc-mh$ ^pt$/^hmc$ ^none$/^hmc$ ^none$/^nuts$')
#   STAN_CORES  Stan's chains run this many at a time, each in its own
#           process (default 1: one after another); its CPU seconds are
#           each chain's own either way
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: side_by_side.sh OUTDIR}
case=${CASE:-gp}
warmup=${WARMUP:-1000}
draws=${DRAWS:-1000}
case $case in
gp) bench=gp/N=128/D=3 data=scripts/compare/data/gp_n128_d3_seed1.csv std= ;;
gp512) bench=gp/N=512/D=8 data=scripts/compare/data/gp_n512_d8_seed1.csv std= ;;
diabetes) bench=diabetes data=scripts/compare/data/diabetes.csv std=--standardize ;;
*) echo "side_by_side.sh: CASE must be gp, gp512 or diabetes, got $case" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
export OPENBLAS_NUM_THREADS=1
git rev-parse --short HEAD > "$out/commit.txt"
echo "CASE=$case WARMUP=$warmup DRAWS=$draws STAN_CORES=${STAN_CORES:-1}" > "$out/settings.txt"
go test -c -tags openblas -o "$out/bench.test" ./bench/
for s in ${SAMPLERS:-'^pt$/^hmc-mh$' '^pt$/^hmc$' '^none$/^hmc$' '^none$/^nuts$'}; do
	(cd bench && "$out/bench.test" -test.run '^$' -test.bench "Sampler/^$bench\$/$s/default" \
		-test.benchtime 1x -test.timeout 3h -sampler.warmup "$warmup" -sampler.draws "$draws")
done | tee "$out/subtemper.txt"
rm -f "$out/bench.test"
# The default's draws (the same as its benchmark row: same settings and
# seed) for the comparison of posterior means.
go build -tags openblas -o "$out/subtemper" ./cmd/subtemper
"$out/subtemper" gp --data "$data" $std --chains 4 --warmup "$warmup" --draws "$draws" \
	--min-ess 0 --seed 1 --backend openblas --quiet --out "$out/subtemper_default" \
	> "$out/subtemper_default.txt" 2>&1
rm -f "$out/subtemper"
Rscript scripts/compare/run_stan.R --data "$data" $std --chains 4 --warmup "$warmup" \
	--draws "$draws" --seed 1 --cores "${STAN_CORES:-1}" --out "$out/stan" 2>&1 | tee "$out/stan.txt"
/usr/bin/python3 scripts/compare/compare_means.py "$out/subtemper_default/summary.json" \
	"$out/stan/stan.json" | tee "$out/means.md"
