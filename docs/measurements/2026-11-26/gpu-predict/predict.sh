#!/usr/bin/env bash
# GPU prediction check: regenerate the PTX, vet, the cuda tests, the gp Predict tests on every
# backend (gonum, openblas, cuda), compute-sanitizer memcheck over the cuda Predict test, and the
# PredictDraws benchmarks, openblas beside cuda.
set -uo pipefail
b=.cuda-bundle
res=${OUT:-/tmp/cuda-out}; mkdir -p "$res"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
mkdir -p /tmp/gotc && tar -C /tmp/gotc -xJf $b/go-toolchain.tar.xz
[ -f vendor/modules.txt ] || tar -xJf $b/vendor.tar.xz
nv=$(command -v nvcc || true)
cuda=${CUDA_HOME:-$( [ -n "$nv" ] && dirname "$(dirname "$(readlink -f "$nv")")" || echo /usr/local/cuda)}
export GOROOT=/tmp/gotc/go PATH=/tmp/gotc/go/bin:$cuda/bin:$PATH
export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOCACHE=/tmp/gocache CGO_ENABLED=1
mkdir -p /tmp/ob && tar -C /tmp/ob -xf $b/openblas-debs.tar && for f in /tmp/ob/debs/*.deb; do dpkg -x "$f" /tmp/ob/root; done
obl=/tmp/ob/root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$obl/openblas-pthread:$obl:$cuda/lib64:${LD_LIBRARY_PATH:-}
export CGO_CFLAGS="-I$cuda/include" CGO_LDFLAGS="-L$cuda/lib64 -L$cuda/lib64/stubs -L$obl/openblas-pthread -L$obl"
export OPENBLAS_NUM_THREADS=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1; go version; nproc; lscpu | grep -E 'Model name|Flags' | cut -c1-200; } > "$res/device.txt" 2>&1
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
