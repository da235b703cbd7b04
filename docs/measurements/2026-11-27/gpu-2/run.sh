#!/usr/bin/env bash
# One device call, from the repository root with .cuda-bundle/ carried
# (make cuda-bundle): the conformance suite and the race detector on the
# cuda package as it stands, how host threads wait for the device
# (SUBTEMPER_CUDA_SYNC auto against blocking: GPStep at N = 2048 and 8192,
# and the whole N = 4096 fit), the generating θ against the 90% intervals
# over more data seeds (N = 4096, D = 8), and the openblas backend's whole
# N = 4096 fit on the machine's cores, for as long as the call has left.
# Logs go to $OUT (else /tmp/cuda-out).
set -uo pipefail
b=.cuda-bundle
res=${OUT:-/tmp/cuda-out}
mkdir -p "$res"
budget=${BUDGET:-585} # seconds this script may run
stamp() { echo "[$SECONDS s] $*" | tee -a "$res/steps.txt"; }

# ---- toolchain and libraries, as run-on-device.sh sets them
[ -x /tmp/gotc/go/bin/go ] || { mkdir -p /tmp/gotc && tar -C /tmp/gotc -xJf "$b/go-toolchain.tar.xz"; }
[ -f vendor/modules.txt ] || tar -xJf "$b/vendor.tar.xz"
nv=$(command -v nvcc || true)
cuda=${CUDA_HOME:-$([ -n "$nv" ] && dirname "$(dirname "$(readlink -f "$nv")")" || echo /usr/local/cuda)}
mkdir -p /tmp/ob && tar -C /tmp/ob -xf "$b/openblas-debs.tar" && for f in /tmp/ob/debs/*.deb; do dpkg -x "$f" /tmp/ob/root; done
obl=/tmp/ob/root/usr/lib/x86_64-linux-gnu
export GOROOT=/tmp/gotc/go PATH=/tmp/gotc/go/bin:$cuda/bin:$PATH
export LD_LIBRARY_PATH=$cuda/lib64:$obl/openblas-pthread:$obl:${LD_LIBRARY_PATH:-}
export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOCACHE=/tmp/gocache CGO_ENABLED=1
export CGO_CFLAGS="-I$cuda/include" CGO_LDFLAGS="-L$cuda/lib64 -L$cuda/lib64/stubs -L$obl/openblas-pthread -L$obl"
{ nvcc --version | tail -1; go version; nproc
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } 2>&1 | tee "$res/device.txt"
git log -1 --format='commit %H' 2>/dev/null | tee -a "$res/device.txt"

# ---- builds, side by side
stamp build
go test -c -tags cuda -o /tmp/cuda.test ./cuda/ &
go test -c -race -tags cuda -o /tmp/cuda-race.test ./cuda/ &
go build -tags 'cuda openblas' -o /tmp/subtemper ./cmd/subtemper &
wait
stamp built

# ---- correctness: vet, the conformance suite (linalg's too), race
go vet -tags cuda ./cuda/ >"$res/vet.txt" 2>&1
echo "vet exit $?" | tee -a "$res/steps.txt"
go test -tags cuda -count=1 -v ./cuda/ ./linalg/... >"$res/test.txt" 2>&1
echo "test exit $?" | tee -a "$res/steps.txt"
grep -E '^(--- FAIL|ok|FAIL)' "$res/test.txt"
stamp tested
(cd cuda && /tmp/cuda-race.test -test.count=1) >"$res/race.txt" 2>&1
echo "race exit $?" | tee -a "$res/steps.txt"
tail -2 "$res/race.txt"
stamp raced

# ---- how host threads wait: GPStep and the N = 4096 fit, auto against blocking
TIMEFORMAT='%R s wall, %U s user, %S s sys'
for s in auto blocking auto blocking; do
	{ time (cd cuda && SUBTEMPER_CUDA_SYNC=$s /tmp/cuda.test -test.run '^$' \
		-test.bench 'GPStep/backend=cuda/N=(2048|8192)$' -test.benchtime 40x); } >>"$res/sync-bench-$s.txt" 2>&1
done
grep -h -E '^Benchmark|wall' "$res"/sync-bench-*.txt
fit() { # fit NAME SYNC BACKEND DATASEED
	{ time SUBTEMPER_CUDA_SYNC=$2 timeout "$5" /tmp/subtemper gp --n 4096 --dims 8 --backend "$3" \
		--data-seed "$4" --out "/tmp/fit-$1" --max-time "$(($5 - 5))s"; } >"$res/fit-$1.txt" 2>&1
	echo "fit $1 exit $?: $(tail -1 "$res/fit-$1.txt")" | tee -a "$res/steps.txt"
	cp "/tmp/fit-$1/summary.json" "$res/fit-$1-summary.json" 2>/dev/null
}
fit auto-s1 auto cuda 1 120
fit blocking-s1 blocking cuda 1 120
stamp synced
cov=blocking
grep -q '^converged' "$res/fit-blocking-s1.txt" || cov=auto

# ---- the generating θ against the 90% intervals, more data seeds
for ds in 2 3 4 5 6; do
	[ $((budget - SECONDS)) -gt 300 ] || break
	fit "$cov-s$ds" $cov cuda "$ds" 90
done
stamp covered

# ---- openblas on all the cores, whole fit, seed 1, what time is left
left=$((budget - SECONDS - 5))
stamp "openblas fit, limit $left s"
[ "$left" -gt 60 ] && fit openblas-s1 auto openblas 1 "$left"
stamp done
