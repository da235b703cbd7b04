#!/usr/bin/env bash
# cuda-vet.sh — type-check the CUDA backend (build tag cuda) on a machine
# without a CUDA toolkit: cgo compiles the package's C preamble against the
# stub headers in scripts/cuda-stub (the declarations package cuda uses,
# with CUDA 13's signatures), then go vet checks the Go side, the packages
# that import it included. Nothing is linked, so no CUDA library is needed.
# A real toolkit's headers win where one is installed (CUDA_HOME or
# /usr/local/cuda), since the package's own #cgo CFLAGS come after these.
#
# Usage: scripts/cuda-vet.sh [packages]   (default: ./cuda/ ./linalg/... ./cmd/... ./bench/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CGO_ENABLED=1 CGO_CFLAGS="-I$root/scripts/cuda-stub ${CGO_CFLAGS:-}"
if [ $# -eq 0 ]; then set -- ./cuda/ ./linalg/... ./cmd/... ./bench/ .; fi
go vet -tags cuda "$@"
echo "cuda-vet: ok"
