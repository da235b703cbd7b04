#!/usr/bin/env bash
# A second device call, from the repository root with .cuda-bundle/ carried
# (make cuda-bundle, openblas-debs.tar included): the default fit at
# N = 4096, D = 8 (data seed 1, no tuning flags) on cuda, then on openblas
# over the machine's cores, same binary and flags, the openblas fit cut by
# --max-time to the time left of BUDGET seconds.
set -uo pipefail
b=.cuda-bundle
res=${OUT:-/tmp/cuda-out}
mkdir -p "$res"
budget=${BUDGET:-280}
stamp() { echo "[$SECONDS s] $*" | tee -a "$res/steps.txt"; }
[ -x /tmp/gotc/go/bin/go ] || { mkdir -p /tmp/gotc && tar -C /tmp/gotc -xJf "$b/go-toolchain.tar.xz"; }
[ -f vendor/modules.txt ] || tar -xJf "$b/vendor.tar.xz"
nv=$(command -v nvcc || true)
cuda=${CUDA_HOME:-$([ -n "$nv" ] && dirname "$(dirname "$(readlink -f "$nv")")" || echo /usr/local/cuda)}
mkdir -p /tmp/ob && tar -C /tmp/ob -xf "$b/openblas-debs.tar" && for f in /tmp/ob/debs/*.deb; do dpkg -x "$f" /tmp/ob/root; done
obl=/tmp/ob/root/usr/lib/x86_64-linux-gnu
export GOROOT=/tmp/gotc/go PATH=/tmp/gotc/go/bin:$cuda/bin:$PATH
export LD_LIBRARY_PATH=$obl/openblas-pthread:$obl:$cuda/lib64:${LD_LIBRARY_PATH:-}
export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOCACHE=/tmp/gocache CGO_ENABLED=1
export CGO_CFLAGS="-I$cuda/include -I/tmp/ob/root/usr/include -I/tmp/ob/root/usr/include/x86_64-linux-gnu"
export CGO_LDFLAGS="-L$cuda/lib64 -L$cuda/lib64/stubs -L$obl/openblas-pthread -L$obl"
stamp build
go build -tags 'cuda openblas' -o /tmp/subtemper ./cmd/subtemper >"$res/build.txt" 2>&1 || { cat "$res/build.txt"; exit 1; }
stamp built
TIMEFORMAT='%R s wall, %U s user, %S s sys'
{ time /tmp/subtemper gp --backend cuda --n 4096 --dims 8 --out /tmp/c4096; } >"$res/fit4096-cuda.txt" 2>&1
echo "cuda exit $?: $(tail -1 "$res/fit4096-cuda.txt")" | tee -a "$res/steps.txt"
cp /tmp/c4096/summary.json "$res/fit4096-cuda-summary.json"
l=$((budget - SECONDS - 10))
stamp "openblas, --max-time ${l}s"
{ time timeout $((l + 8)) /tmp/subtemper gp --backend openblas --n 4096 --dims 8 --out /tmp/o4096 --max-time "${l}s"; } >"$res/fit4096-openblas.txt" 2>&1
echo "openblas exit $?: $(tail -1 "$res/fit4096-openblas.txt")" | tee -a "$res/steps.txt"
cp /tmp/o4096/summary.json "$res/fit4096-openblas-summary.json" 2>/dev/null
stamp done
