#!/usr/bin/env bash
# PTX at ISA 7.8 (ptxas, the tests), race over the gp Predict tests, and the CLI end to end:
# a fit on diabetes, then predict at 10 000 points from 1 000 draws on cuda and openblas.
source .cuda-bundle/env.sh
el setup
ptxas -arch=sm_90 -o /tmp/k.cubin cuda/kernels.ptx && echo "ptxas sm_90 on .version $(grep -m1 '^\.version' cuda/kernels.ptx): ok"
T='cuda openblas'
go test -tags "$T" -count=1 ./cuda/ 2>&1 | tail -3
go test -tags "$T" -count=1 -run 'Predict' ./gp/ 2>&1 | tail -3
el tests
go test -race -tags "$T" -count=1 -run 'Predict' ./gp/ 2>&1 | tee "$res/race-gp.txt" | tail -3
el race
go build -tags "$T" -o /tmp/subtemper ./cmd/subtemper || exit 1
el build
/tmp/subtemper gp --data scripts/compare/data/diabetes.csv --standardize --backend openblas --sampler none --inner hmc --warmup 500 --draws 500 --out /tmp/fit --quiet 2>&1 | tail -3
el fit
TIMEFORMAT='wall %R s, user %U s, sys %S s'
for i in 1 2 3; do for be in cuda openblas; do
	echo "== predict $be run $i" | tee -a "$res/cli.txt"
	{ time /tmp/subtemper predict --fit /tmp/fit --data .gpu-e2e/test10000_y.csv --predict-draws 1000 --backend $be --out /tmp/p_${be}_$i --quiet ; } 2>&1 | tee -a "$res/cli.txt"
done; done
echo "== openblas vs cuda, run 1: largest difference relative to max(|value|, sd)" | tee -a "$res/cli.txt"
python3 .gpu-e2e/compare.py /tmp/p_openblas_1/predictions.csv /tmp/p_cuda_1/predictions.csv 2>&1 | tee -a "$res/cli.txt"
for be in openblas cuda; do echo "== $be predictions.json"; cat /tmp/p_${be}_1/predictions.json; done 2>&1 | tee -a "$res/cli.txt"
cp /tmp/fit/summary.json "$res/fit-summary.json" 2>/dev/null
el done
