# sourced: the toolchain, vendored modules, CUDA and OpenBLAS of the device
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
