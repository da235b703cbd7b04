#!/usr/bin/env bash
# samedraws.sh REV_A REV_B: builds the CLI at two revisions (pure Go, the
# gonum backend) and checks that a set of small fixed-seed runs gives the
# same draws at both: draws.csv and draws.nc byte for byte, and summary.json
# with its timings (and the output paths) left out, so that every count,
# rate and tuning must agree too. A revision is anything git rev-parse
# takes, or "." for the working tree as it is. Exits 1 on any difference.
#
#   scripts/samedraws.sh 2fa0e12 .
#   RUNS='pt-mh mvn' scripts/samedraws.sh main HEAD   # a subset of the runs
#   ADDED='status' scripts/samedraws.sh 0c2c177 .     # summary.json keys that only B has
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 REV_A REV_B (a git revision, or . for the working tree)" >&2
	exit 2
fi
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d /tmp/samedraws.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# build REV BIN: the CLI at REV into BIN.
build() {
	local rev=$1 bin=$2 src
	if [ "$rev" = . ]; then
		src=$root
	else
		src=$tmp/src-$(git -C "$root" rev-parse --short "$rev")
		mkdir -p "$src"
		git -C "$root" archive "$rev" | tar -x -C "$src"
	fi
	(cd "$src" && go build -o "$bin" ./cmd/subtemper)
}

# The runs: a name, then the command's arguments. Small problems, short
# runs; every driver with every inner kernel, the hot kernels, the swap
# schedules, the ladder modes, warm starts and the paper's settings.
gpq=(gp --n 40 --dims 2)
short=(--warmup 100 --draws 100 --min-ess 0)
declare -A args
args[gp-default]="${gpq[*]}"
args[gp-warm-on]="${gpq[*]} --warm-start on"
args[gp-warm-on-n300]="gp --n 300 --dims 1 --warm-start on"
args[gp-warm-on-pt]="${gpq[*]} --warm-start on --sampler pt --draws 200 --min-ess 0"
args[gp-paper]="${gpq[*]} --paper --warmup 50 --draws 100"
args[mvn-default]="mvn --n 200 --dims 3"
args[mvn-paper]="mvn --n 200 --dims 3 --paper --warmup 50 --draws 100"
args[mvn-warm-on]="mvn --n 200 --dims 3 --warm-start on"
args[mvn-warm-auto]="mvn --n 1100 --dims 2"
for drv in none pt spt tt stt; do
	for inner in hmc nuts mh; do
		args[gp-$drv-$inner]="${gpq[*]} ${short[*]} --sampler $drv --inner $inner"
	done
done
for drv in pt spt tt stt; do
	args[gp-$drv-same]="${gpq[*]} ${short[*]} --sampler $drv --hot same --leapfrog 5"
	args[mvn-$drv]="mvn --n 200 --dims 3 ${short[*]} --sampler $drv"
done
args[gp-spt-nuts-hot]="${gpq[*]} ${short[*]} --sampler spt --hot nuts"
args[gp-stt-hmc-hot]="${gpq[*]} ${short[*]} --sampler stt --hot hmc --mh-steps 2"
args[gp-pt-sweep-fixed]="${gpq[*]} ${short[*]} --swap sweep --ladder fixed --levels 4"
args[gp-spt-levels0]="${gpq[*]} ${short[*]} --sampler spt --levels auto"
args[gp-tt-levels0]="${gpq[*]} ${short[*]} --sampler tt --levels auto"
args[gp-pt-nowarmup]="${gpq[*]} --warmup none --draws 100 --min-ess 0 --levels 3"
args[gp-stt-nobase]="${gpq[*]} ${short[*]} --sampler stt --base-steps none"
# The same runs as a revision without the words auto and none spells them
# (0); a side that refuses a run's arguments as a usage error (exit 2)
# runs these instead.
declare -A older
older[gp-spt-levels0]="${gpq[*]} ${short[*]} --sampler spt --levels 0"
older[gp-tt-levels0]="${gpq[*]} ${short[*]} --sampler tt --levels 0"
older[gp-pt-nowarmup]="${gpq[*]} --warmup 0 --draws 100 --min-ess 0 --levels 3"
older[gp-stt-nobase]="${gpq[*]} ${short[*]} --sampler stt --base-steps 0"
args[gp-tt-base3-thin2]="${gpq[*]} ${short[*]} --sampler tt --base-steps 3 --thin 2"
args[gp-pt-dense]="${gpq[*]} ${short[*]} --adapt dense --chains 2"
args[gp-pt-stepnone]="${gpq[*]} ${short[*]} --adapt none --inner mh --hot same"
args[gp-pt-evidence]="${gpq[*]} ${short[*]} --evidence --levels 4"
args[gp-spt-evidence]="${gpq[*]} ${short[*]} --sampler spt --evidence --levels 4"
args[gp-pt-stop]="${gpq[*]} --warmup 100 --draws 1000 --min-ess 150"

runs=${RUNS:-$(printf '%s\n' "${!args[@]}" | sort)}

echo "building $1 and $2 ..." >&2
build "$1" "$tmp/a"
build "$2" "$tmp/b"

# strip SUMMARY: summary.json less what a run cannot reproduce, and less
# the keys named in ADDED, at any depth (keys that B's summary.json gained).
strip() {
	python3 - "$1" <<'EOF'
import json, os, sys
added = set(os.environ.get("ADDED", "").split())
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()
                if k not in added and not any(w in k for w in ("second", "timings", "file", "out", "elapsed", "wall"))}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
summary = json.load(open(sys.argv[1]))
for k in added:
    summary.pop(k, None)
print(json.dumps(clean(summary), indent=1, sort_keys=True))
EOF
}

fail=0
for name in $runs; do
	[ -n "${args[$name]+x}" ] || { echo "unknown run $name" >&2; exit 2; }
	for side in a b; do
		rm -rf "$tmp/out-$side"
		rc=0
		# shellcheck disable=SC2086 # the arguments are words
		"$tmp/$side" ${args[$name]} --seed 7 --backend gonum --quiet --out "$tmp/out-$side" >"$tmp/stdout-$side" 2>&1 || rc=$?
		if [ "$rc" -eq 2 ] && [ -n "${older[$name]+x}" ]; then
			rm -rf "$tmp/out-$side"
			rc=0
			# shellcheck disable=SC2086 # the arguments are words
			"$tmp/$side" ${older[$name]} --seed 7 --backend gonum --quiet --out "$tmp/out-$side" >"$tmp/stdout-$side" 2>&1 || rc=$?
		fi
		if [ "$rc" -ne 0 ]; then
			echo "$name: $side failed:" >&2
			tail -5 "$tmp/stdout-$side" >&2
		fi
	done
	diffs=()
	for f in draws.csv draws.nc; do
		if ! cmp -s "$tmp/out-a/$f" "$tmp/out-b/$f"; then
			diffs+=("$f")
		fi
	done
	if [ -f "$tmp/out-a/summary.json" ] || [ -f "$tmp/out-b/summary.json" ]; then
		if ! diff -q <(strip "$tmp/out-a/summary.json" 2>/dev/null) <(strip "$tmp/out-b/summary.json" 2>/dev/null) >/dev/null; then
			diffs+=("summary.json")
			diff <(strip "$tmp/out-a/summary.json" 2>/dev/null) <(strip "$tmp/out-b/summary.json" 2>/dev/null) | head -10 >&2 || true
		fi
	fi
	if [ ! -s "$tmp/out-a/draws.csv" ]; then
		diffs+=("no draws.csv")
	fi
	if [ ${#diffs[@]} -eq 0 ]; then
		printf 'same  %-20s %s draws\n' "$name" "$(($(wc -l <"$tmp/out-a/draws.csv") - 1))"
	else
		printf 'DIFF  %-20s %s\n' "$name" "${diffs[*]}"
		fail=1
	fi
done
exit $fail
