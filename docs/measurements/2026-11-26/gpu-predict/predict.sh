#!/usr/bin/env bash
# GPU prediction check: regenerate the PTX, vet, the cuda tests, the gp Predict tests on every
# backend (gonum, openblas, cuda), compute-sanitizer memcheck over the cuda Predict test, and the
# PredictDraws benchmarks, openblas beside cuda.
source .cuda-bundle/env.sh
el setup
(cd cuda && nvcc -ptx -arch=compute_80 -o kernels.ptx kernels.cu) || { el "nvcc failed"; exit 1; }
cp cuda/kernels.ptx "$res/"
el nvcc
T='cuda openblas'
go vet -tags "$T" ./cuda/ ./gp/ 2>&1 | tee "$res/vet.txt" || { el "vet failed"; exit 1; }
el vet
go test -tags "$T" -count=1 ./cuda/ 2>&1 | tee "$res/test-cuda.txt" | tail -5
el cuda tests
go test -tags "$T" -count=1 -v -run 'Predict' ./gp/ 2>&1 | tee "$res/test-gp.txt" | grep -E '^\s*(--- |ok|FAIL|PASS|panic)' | head -60
el gp predict tests
go test -c -tags "$T" -o /tmp/gp.test ./gp/ && (cd gp && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/gp.test -test.count=1 -test.run 'TestPredict(MatchesDense|NotPositiveDefinite|DrawsWorkersInvariant)/cuda' > "$res/sanitize-memcheck.txt" 2>&1; echo "memcheck exit $?"; tail -3 "$res/sanitize-memcheck.txt")
el memcheck
for pat in 'BenchmarkPredictDraws$/^(openblas|cuda)$/^N=442$/^Nt=10000$/^S=(20|1000)$' 'BenchmarkPredictDrawsLargeN$/^(openblas|cuda)$'; do
	go test -tags "$T" -run '^$' -bench "$pat" -benchtime 1x -count 3 -timeout 8m ./gp/ 2>&1 | tee -a "$res/bench.txt"
done
el bench
