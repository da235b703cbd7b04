#!/usr/bin/env bash
# Runs each reader's fuzz target for FUZZTIME (default 20s).
#
# Go 1.26's fuzzing coordinator can end a run that found nothing with a bare
# "context deadline exceeded" failure when a worker is still busy as -fuzztime
# runs out (golang/go#75804, fixed in Go 1.27); on a loaded machine this
# happens often enough to fail CI. A target therefore fails here when the
# fuzzer wrote a new failing input under testdata/fuzz, or failed in any
# other way; a bare deadline failure with no new input is reported, the
# target's corpus is replayed as ordinary tests, and the run goes on.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20s}

# package target [extra go test flags...]
targets=(
	"./gp/ FuzzReadCSV"
	"./mvn/ FuzzReadCSV"
	"./mvn/ FuzzReadSigmaCSV"
	"./diag/ FuzzReadCSV"
	"./internal/netcdf/ FuzzRead"
	". FuzzReadTestCSV"
	". FuzzLoadGPFit -fuzzminimizetime 3s"
	"./tempering/ FuzzReadCheckpoint"
)

corpus() { # lists a target's saved inputs
	ls "$1/testdata/fuzz/$2" 2>/dev/null | sort
}

failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "${targets[@]}"; do
	read -r pkg name extra <<<"$t"
	before=$(corpus "$pkg" "$name")
	# shellcheck disable=SC2086
	$GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" $extra "$pkg" >"$log" 2>&1
	rc=$?
	cat "$log"
	[ "$rc" -eq 0 ] && continue
	after=$(corpus "$pkg" "$name")
	new=$(comm -13 <(echo "$before") <(echo "$after"))
	if [ -z "$new" ] && [ "$(grep -A1 -- '^--- FAIL' "$log" | tail -n1 | tr -d '[:space:]')" = contextdeadlineexceeded ] &&
		[ "$(grep -c -- '^--- FAIL' "$log")" -eq 1 ]; then
		echo "fuzz.sh: $pkg $name: Go's fuzzing coordinator stopped with a bare deadline failure and no failing input (golang/go#75804); replaying the corpus"
		if $GO test -count=1 -run "^${name}\$" "$pkg"; then
			continue
		fi
	fi
	echo "fuzz.sh: $pkg $name failed${new:+; new failing input: $new}"
	failed=1
done
exit "$failed"
