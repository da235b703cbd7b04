#!/usr/bin/env bash
# One device call, from the repository root with .cuda-bundle/ carried
# (make cuda-bundle, its openblas-debs.tar left out to fit the carry limit)
# and the N = 32 768 data of the §4.2 generator (data seed 1, D = 8) beside
# it as .cuda-bundle/d32768.csv, written on another machine by
# subtemper.SyntheticGPData(ctx, 32768, 8, 1) and WriteGPData. Its first
# 16 384 rows are the N = 16 384 data (the generator's prefix property).
# Steps, each cut to the time left of BUDGET seconds:
#   - build; vet and the conformance suite on the cuda package as it is;
#   - the default fit (no tuning flags) at N = 16 384, nvidia-smi every 2 s;
#   - the default fit at N = 32 768 with --max-time for the time left
#     less what the race detector and memcheck need;
#   - go test -race on the cuda package and compute-sanitizer memcheck.
# Logs go to $OUT (else /tmp/cuda-out): all of them in logs.tgz, the steps
# and the CLI's output beside it.
set -uo pipefail
b=.cuda-bundle
res=${OUT:-/tmp/cuda-out}
mkdir -p "$res"
budget=${BUDGET:-570}
stamp() { echo "[$SECONDS s] $*" | tee -a "$res/steps.txt"; }
left() { echo $((budget - SECONDS)); }

[ -x /tmp/gotc/go/bin/go ] || { mkdir -p /tmp/gotc && tar -C /tmp/gotc -xJf "$b/go-toolchain.tar.xz"; }
[ -f vendor/modules.txt ] || tar -xJf "$b/vendor.tar.xz"
nv=$(command -v nvcc || true)
cuda=${CUDA_HOME:-$([ -n "$nv" ] && dirname "$(dirname "$(readlink -f "$nv")")" || echo /usr/local/cuda)}
export GOROOT=/tmp/gotc/go PATH=/tmp/gotc/go/bin:$cuda/bin:$PATH
export LD_LIBRARY_PATH=$cuda/lib64:${LD_LIBRARY_PATH:-}
export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOCACHE=/tmp/gocache CGO_ENABLED=1
export CGO_CFLAGS="-I$cuda/include" CGO_LDFLAGS="-L$cuda/lib64 -L$cuda/lib64/stubs"
{ nvcc --version | tail -1; go version; nproc; free -g | head -2
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } 2>&1 | tee "$res/device.txt"
finish() { # the device tool returns 8 files: every log in logs.tgz, the CLI's output beside it
	stamp done
	tar -C "$res" -czf /tmp/logs.tgz --exclude logs.tgz . && mv /tmp/logs.tgz "$res/logs.tgz" &&
		find "$res" -maxdepth 1 -type f ! -name logs.tgz ! -name steps.txt ! -name 'fit*.txt' -delete
}
trap finish EXIT

stamp build
head -n 16385 "$b/d32768.csv" >/tmp/d16384.csv &
go test -c -tags cuda -o /tmp/cuda.test ./cuda/ &
go test -c -race -tags cuda -o /tmp/cuda-race.test ./cuda/ &
go build -tags cuda -o /tmp/subtemper ./cmd/subtemper &
wait
stamp built

go vet -tags cuda ./cuda/ >"$res/vet.txt" 2>&1
echo "vet exit $?" | tee -a "$res/steps.txt"
go test -tags cuda -count=1 -v ./cuda/ ./linalg/... >"$res/test.txt" 2>&1
echo "test exit $?" | tee -a "$res/steps.txt"
grep -E '^(--- FAIL|ok|FAIL)|TestSyncSetting' "$res/test.txt" | tee -a "$res/steps.txt"

TIMEFORMAT='%R s wall, %U s user, %S s sys'
fit() { # fit NAME TIMEOUT ARGS...: the CLI with nvidia-smi every 2 s
	local name=$1 to=$2
	shift 2
	nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 2 >"$res/$name-smi.csv" 2>&1 &
	local smi=$!
	{ time timeout "$to" /tmp/subtemper gp --backend cuda --out "/tmp/$name" "$@"; } >"$res/$name.txt" 2>&1
	echo "$name exit $?: $(tail -1 "$res/$name.txt")" | tee -a "$res/steps.txt"
	kill $smi
	cp "/tmp/$name/summary.json" "$res/$name-summary.json" 2>/dev/null
}
stamp "fit16384, limit 200 s"
fit fit16384 200 --data /tmp/d16384.csv

l=$(($(left) - 70))
if [ "$l" -gt 120 ]; then
	stamp "fit32768, --max-time $((l - 10))s"
	fit fit32768 "$l" --data "$b/d32768.csv" --max-time "$((l - 10))s"
fi

stamp race
(cd cuda && timeout "$(( $(left) > 80 ? 50 : $(left) - 30 ))" /tmp/cuda-race.test -test.count=1) >"$res/race.txt" 2>&1
echo "race exit $?: $(tail -1 "$res/race.txt")" | tee -a "$res/steps.txt"
stamp memcheck
(cd cuda && timeout "$(( $(left) - 5 ))" compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/cuda.test -test.count=1 -test.v \
	-test.run '^Test(GPLogLik|GPPrefix|GPResume|MVN|MVNPrefix|GPPrefixLarge|OutOfMemory|SyncSetting)$') >"$res/memcheck.txt" 2>&1
echo "memcheck exit $?: $(tail -1 "$res/memcheck.txt")" | tee -a "$res/steps.txt"
