#!/bin/bash
# The sampler grid behind docs/ADAPTATION.md, "Every kernel × driver": BenchmarkSampler in stages,
# raw output appended to the files named below. Run from the repository root:
#   go test -c -tags openblas -o /tmp/bench.test ./bench/ && bash docs/measurements/2026-11-26/grid/grid.sh
# n128.txt ran on a binary of d797ace, in which TT and STT with a zero Settings.BaseSteps ran Neal's
# form; every later file on a binary of 2a07d18 (one base step by default), and n128-base1.txt reran
# the N = 128 TT and STT default rows with it.
set -u
out=${OUT:-docs/measurements/2026-11-26/grid}
out=$(cd "$out" && pwd)
cd bench
run() { # file warmup draws pattern
	echo "== $(date -u +%FT%TZ) $1 W=$2 D=$3 $4" >>"$out/log.txt"
	OPENBLAS_NUM_THREADS=1 /tmp/bench.test -test.run '^$' -test.bench "$4" -test.benchtime 1x -test.cpu 4 \
		-test.timeout 5h -sampler.warmup "$2" -sampler.draws "$3" >>"$out/$1" 2>&1
}
run n128.txt 1000 1000 'Sampler/gp/N=128/D=3/.*/.*/.*'
run diabetes.txt 500 500 'Sampler/^diabetes$/^none$/.*/default'
run diabetes.txt 500 500 'Sampler/^diabetes$/^(pt|tt|spt|stt)$/^(mh|hmc-mh|nuts-mh)$/default'
run n512.txt 500 500 'Sampler/gp/N=512/D=8/^none$/.*/default'
run n512.txt 500 500 'Sampler/gp/N=512/D=8/^(pt|tt|spt|stt)$/^(mh|hmc-mh|nuts-mh)$/default'
run diabetes.txt 500 500 'Sampler/^diabetes$/.*/^mh$/paper'
run n512.txt 500 500 'Sampler/gp/N=512/D=8/.*/^mh$/paper'
run diabetes-short.txt 200 200 'Sampler/^diabetes$/.*/^hmc$/paper'
run n512-short.txt 200 200 'Sampler/gp/N=512/D=8/.*/^hmc$/paper'
run n128-base1.txt 1000 1000 'Sampler/gp/N=128/D=3/^(tt|stt)$/.*/default'
run diabetes-short.txt 200 200 'Sampler/^diabetes$/^(pt|spt|tt|stt)$/^(hmc|nuts)$/default'
run n512-100.txt 100 100 'Sampler/gp/N=512/D=8/^(pt|spt|tt|stt)$/^hmc$/default'
for d in spt pt stt tt; do
	run n512-100.txt 100 100 "Sampler/gp/N=512/D=8/^$d\$/^nuts\$/default"
done
