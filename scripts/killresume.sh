#!/usr/bin/env bash
# killresume.sh: SIGKILLs a gp run at KILLS (default 30) random instants
# spread over its whole life (set-up, warm-up, sampling, writing the
# results), resumes each killed run with `gp --resume`, and checks that
# every resumed run's draws.csv is byte-identical to the uninterrupted
# run's. For each kill it reports what the checkpoint held (the iteration,
# and so the phase, it was taken at) and the loss: the wall time from the
# last checkpoint written to the kill, the work the resumed run redoes
# (the whole run so far when no checkpoint had been written yet). Exits 1
# if any draws differ or a resume fails.
#
#   scripts/killresume.sh                      # builds the CLI from the tree
#   BIN=/tmp/subtemper KILLS=10 SEED=3 scripts/killresume.sh
#
# INTERVAL is --checkpoint-every (default 1s); ARGS the run's flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
KILLS=${KILLS:-30}
INTERVAL=${INTERVAL:-1s}
SEED=${SEED:-1}
ARGS=${ARGS:-gp --n 60 --warmup 200 --draws 300 --seed 7 --backend gonum --quiet}
tmp=$(mktemp -d /tmp/killresume.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${BIN:-}" ]; then
	BIN=$tmp/subtemper
	(cd "$root" && go build -o "$BIN" ./cmd/subtemper)
fi
now() { date +%s.%N; }

# The reference: the run not interrupted, and its wall time (the faster
# of two runs, with checkpoints as the killed runs take them).
wall=
for r in 1 2; do
	rm -rf "$tmp/ref"
	t0=$(now)
	# shellcheck disable=SC2086 # ARGS are words
	"$BIN" $ARGS --out "$tmp/ref" --checkpoint-every "$INTERVAL" >/dev/null
	w=$(echo "$(now) - $t0" | bc)
	if [ -z "$wall" ] || [ "$(echo "$w < $wall" | bc)" -eq 1 ]; then wall=$w; fi
done
echo "reference: $ARGS ($(($(wc -l <"$tmp/ref/draws.csv") - 1)) draw lines), ${wall} s; checkpoints every $INTERVAL"
warmup=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['settings']['warmup'])" "$tmp/ref/summary.json")
# The draws per chain the reference made (fewer than --draws when the
# stop rule ended it).
chains=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['settings']['chains'])" "$tmp/ref/summary.json")
made=$((($(wc -l <"$tmp/ref/draws.csv") - 1) / chains))

RANDOM=$SEED
fail=0
printf '%4s %8s %-32s %8s %8s %s\n' kill at_s checkpoint loss_s resume_s draws.csv
for i in $(seq 1 "$KILLS"); do
	out=$tmp/run$i
	# An instant uniform in (0, the reference's wall time).
	at=$(echo "scale=3; $wall * ($RANDOM + 1) / 32768" | bc)
	start=$(now)
	# shellcheck disable=SC2086
	"$BIN" $ARGS --out "$out" --checkpoint-every "$INTERVAL" >/dev/null 2>&1 &
	pid=$!
	sleep "$at"
	killed=$(now)
	kill -KILL "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	state=killed
	[ "$rc" -eq 0 ] && state=finished
	if [ ! -f "$out/checkpoint.subtemper" ]; then
		cp_at=none
		loss=$(echo "$killed - $start" | bc)
	else
		cp_at=$(date +%s.%N -r "$out/checkpoint.subtemper")
		loss=$(echo "$killed - $cp_at" | bc)
		[ "$(echo "$loss < 0" | bc)" -eq 1 ] && loss=0
	fi
	rs=$(now)
	if [ "$state" = finished ] && [ -f "$out/summary.json" ]; then
		desc="finished before the kill"
		loss=0
	elif [ "$cp_at" = none ]; then
		# No checkpoint yet: the run starts again.
		desc="none yet (started again)"
		rm -rf "$out"
		# shellcheck disable=SC2086
		"$BIN" $ARGS --out "$out" --checkpoint-every 0 >/dev/null || { echo "kill $i: rerun failed"; fail=1; }
	else
		if ! "$BIN" gp --resume "$out" --quiet >/dev/null 2>"$tmp/err"; then
			echo "kill $i: resume failed: $(cat "$tmp/err")"
			fail=1
		fi
		desc=$(python3 - "$out/summary.json" "$warmup" "$made" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
r, w, made = s.get("resumed_from") or {}, int(sys.argv[2]), int(sys.argv[3])
it, n = r.get("iteration", 0), r.get("draws", 0)
phase = "warm-up" if it < w else ("end of warm-up" if it == w else ("sampling" if n < made else "end (writing)"))
print(f"it {it}, {n} draws: {phase}")
EOF
)
	fi
	resume=$(echo "$(now) - $rs" | bc)
	if cmp -s "$tmp/ref/draws.csv" "$out/draws.csv"; then same=identical; else same=DIFFERENT; fail=1; fi
	printf '%4d %8.2f %-32s %8.2f %8.2f %s\n' "$i" "$at" "$desc" "$loss" "$resume" "$same"
	rm -rf "$out"
done
[ "$fail" -eq 0 ] && echo "all $KILLS resumed runs: draws.csv identical to the reference" || echo "FAILED"
exit "$fail"
