#!/bin/sh
# A warm-started gp run at N = 2048, D = 8 (§4.2 generator, data seed 1),
# interrupted by SIGINT 20 s after its first checkpoint, then resumed and
# interrupted again the same way: each line of stderr is stamped with the
# seconds since its process started, so the time to the first sampling
# line shows what the warm start cost each time. Writes first.log and
# resumed.log here. Run from the repository root:
#   sh docs/measurements/2026-11-27/resume-warm/run.sh
set -eu
D=$(pwd)/docs/measurements/2026-11-27/resume-warm
BIN=${BIN:-/tmp/st-resume}
OUT=${OUT:-/tmp/resume-warm}
go build -tags openblas -o "$BIN" ./cmd/subtemper
rm -rf "$OUT"
stamp() { t0=$(date +%s.%N); while IFS= read -r l; do printf '%7.1f s  %s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" "$l"; done; }
# run LOG ARGS...: start the command, SIGINT it 20 s after the checkpoint appears.
run() {
	log=$1; shift
	( "$BIN" "$@" 2>&1 | stamp >"$D/$log" ) &
	while [ ! -e "$OUT/checkpoint.subtemper" ] || [ "$OUT/checkpoint.subtemper" -ot "$D/$log" ]; do sleep 1; done
	sleep 20
	pkill -INT -f "$BIN gp" || true
	wait
}
run first.log gp --n 2048 --dims 8 --out "$OUT" --checkpoint-every 10s
sleep 1
run resumed.log gp --resume "$OUT"
