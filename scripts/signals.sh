#!/usr/bin/env bash
# Signal storm: interrupts `subtemper gp --out DIR` at random instants and
# checks what the run leaves behind.
#
# Run from the repository root:
#
#	scripts/signals.sh            # 50 SIGINT/SIGTERM runs, 50 SIGKILL runs
#	SIG_RUNS=10 KILL_RUNS=10 scripts/signals.sh
#
# It builds the CLI (go build -o "$BIN" ./cmd/subtemper), draws a synthetic
# data set (gp --n 300 --dims 2: the first 100 rows train, the last 40
# test), and runs
#
#	gp --data train.csv --predict test.csv --plots --draws 100 --warmup 50
#	   --min-ess 0 --levels 2 --chains 2 --predict-draws 100 --seed S
#	   --out WORK/out
#
# with a new seed S each time, so that each run's files differ from the
# previous run's. --out starts with a complete run and two user files,
# notes.txt and mine/keep.txt, which no run may change or lose.
#
# Part 1 (SIG_RUNS runs): SIGINT and SIGTERM, alternately, at an instant
# drawn uniformly over one full run's measured duration (reading, set-up,
# warm-up, sampling, prediction, figures, writing), a few (EARLY_RUNS) at
# very early instants, log-uniform over [0.2 ms, 50 ms] after the launch
# (the program's start-up: the handler is installed about 1 ms after the
# Go runtime starts). Each run must exit 130 (or 0 when it finished before
# the signal: counted apart; or 128 + the signal's number when the signal
# killed the process before its handler was installed: counted apart);
# the time from the signal to the exit is recorded, and its distribution
# (median, 90th percentile, maximum, runs over 1 s) printed at the end;
# --out must hold either exactly what it held before the run
# (byte for byte, the "old" run) or a complete new run of this seed:
# summary.json parses and its "interrupted" agrees with the files present
# (false: every file of a full run; true: the draws and summary, and
# either no fit and no predictions (stopped while sampling) or the fit and
# all of the predictions or none (stopped while predicting; when only the
# prediction figures were cut, the warning names them), or every file of
# a full run but some figures, with "interrupted_during": "figures" and a
# warning (stopped while the figures were drawn)) and no file of the
# previous run is left beside it; every figure is whole (PNG and SVG, or
# neither); the user files are byte-identical; no staging folder is left
# beside --out.
#
# Part 2 (KILL_RUNS runs): SIGKILL at an instant drawn the same way.
# --out must be the old run or a complete new one, with the user files;
# a hidden staging folder (.out.staging-PID-*) may be left behind. After
# every FOLLOW_EVERY kills one more run goes to its end unsignalled: it
# must exit 0, leave a complete new run with the user files, and remove
# every stale staging folder.
#
# Prints one line per run, then a table of counts; exits 1 if any check
# failed. Needs bash, go, awk, jq (or python3), diff, cmp.
#
# Settings (environment): BIN (the binary built, default a temporary
# path), WORK (working folder, default a new temporary one, kept),
# SIG_RUNS (50), KILL_RUNS (50), EARLY_RUNS (6 of the SIG_RUNS), EARLY_KILLS
# (2 of the KILL_RUNS), FOLLOW_EVERY (1), SEED (1: the instants'
# generator), NICE (19: the runs' nice level).
set -uo pipefail

SIG_RUNS=${SIG_RUNS:-50}
KILL_RUNS=${KILL_RUNS:-50}
EARLY_RUNS=${EARLY_RUNS:-6}
EARLY_KILLS=${EARLY_KILLS:-2}
FOLLOW_EVERY=${FOLLOW_EVERY:-1}
SEED=${SEED:-1}
NICE=${NICE:-19}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/subtemper-signals.XXXXXX")}
BIN=${BIN:-$WORK/subtemper}
mkdir -p "$WORK"

if command -v jq >/dev/null; then
	jget() { jq -r "$2 | if . == null then \"\" else . end" "$1" 2>/dev/null; }
	jok() { jq -e . "$1" >/dev/null 2>&1; }
else
	jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=sys.argv[2].lstrip(".");
v=d.get(k); print("" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2" 2>/dev/null; }
	jok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
fi

echo "# subtemper signal storm, $(date -u +%Y-%m-%dT%H:%M:%SZ), work folder $WORK"
echo "# $(go version), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
go build -o "$BIN" ./cmd/subtemper || { echo "build failed"; exit 1; }

OUT=$WORK/out
GEN=$WORK/gen
nice -n "$NICE" "$BIN" gp --n 300 --dims 2 --data-seed 3 --draws 10 --warmup 10 --min-ess 0 --quiet --out "$GEN" >/dev/null ||
	{ echo "data generation failed"; exit 1; }
head -n 101 "$GEN/data.csv" >"$WORK/train.csv"
{ head -n 1 "$GEN/data.csv"; tail -n 40 "$GEN/data.csv"; } >"$WORK/test.csv"

ARGS=(gp --data "$WORK/train.csv" --predict "$WORK/test.csv" --plots
	--draws 100 --warmup 50 --min-ess 0 --levels 2 --chains 2 --predict-draws 100)

# now: the time in seconds (microseconds).
now() { echo "$EPOCHREALTIME"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

# ourNames DIR: the names subtemper wrote in DIR (not the user's files).
ourNames() { ls -A "$1" | grep -vx -e notes.txt -e mine | sort; }

# The reference run: its duration and the files of a complete run.
t0=$(now)
nice -n "$NICE" "$BIN" "${ARGS[@]}" --seed 99999 --out "$WORK/ref" >/dev/null 2>"$WORK/ref.err" ||
	{ echo "reference run failed"; cat "$WORK/ref.err"; exit 1; }
DUR=$(sub "$(now)" "$t0")
ourNames "$WORK/ref" >"$WORK/ref.names"
echo "# a full run takes $DUR s here (the reference run, seed 99999); it writes $(wc -l <"$WORK/ref.names") files"

# The old run in --out, and the user's files.
rm -rf "$OUT" "$WORK"/.out.staging-*
nice -n "$NICE" "$BIN" "${ARGS[@]}" --seed 1 --out "$OUT" >/dev/null 2>&1 || { echo "first run failed"; exit 1; }
mkdir -p "$OUT/mine" "$WORK/user/mine"
printf 'notes of the user, %s\n' "$(date -u)" >"$WORK/user/notes.txt"
head -c 4096 /dev/urandom >"$WORK/user/mine/keep.txt"
cp "$WORK/user/notes.txt" "$OUT/notes.txt"
cp "$WORK/user/mine/keep.txt" "$OUT/mine/keep.txt"

# The instants: EARLY log-uniform over [0.2 ms, 50 ms], the rest uniform
# over [0, DUR].
instants() { # n early seed
	awk -v n="$1" -v e="$2" -v d="$DUR" -v s="$3" 'BEGIN { srand(s)
		for (i = 0; i < n; i++) printf "%.6f\n", (i < e ? 0.0002 * exp(rand() * log(250)) : d * rand()) }' |
		awk -v s="$3" 'BEGIN { srand(s + 1) } { printf "%.6f %s\n", rand(), $0 }' | sort -n | cut -d' ' -f2
}

# A command run in the background of a script starts with SIGINT ignored
# (bash does so without job control), which the Go runtime keeps until
# the program asks for the signal: a SIGINT in that window, or before the
# forked shell has executed the program, would be lost, not a Ctrl-C's
# fate. Job control (set -m) while a run is launched keeps SIGINT's
# default action, as a terminal's foreground job has it.

# pause SECONDS: waits without a fork (sleep is a program: its start
# alone takes milliseconds), by a read that times out on a pipe nothing
# writes to.
exec {NEVER}<> <(:)
pause() { read -r -t "$1" -u "$NEVER" _; }

FAILS=0
declare -A COUNT
inc() { COUNT[$1]=$((${COUNT[$1]:-0} + 1)); }
fail() { FAILS=$((FAILS + 1)); inc "fail: $1"; echo "  FAIL: $1"; }
MAXEXIT=0
MAXEXIT_RUN=""
OVER1=0

# userOK: notes.txt and mine/keep.txt are in --out, unchanged.
userOK() {
	cmp -s "$WORK/user/notes.txt" "$OUT/notes.txt" && cmp -s "$WORK/user/mine/keep.txt" "$OUT/mine/keep.txt" &&
		[ "$(ls -A "$OUT/mine")" = keep.txt ]
}

# classify SEED: sets STATE to old (--out as in $WORK/prev, byte for byte),
# new-complete, new-interrupted or bad (with REASON), and INTDURING.
classify() {
	local seed=$1 n
	STATE=bad REASON="" INTDURING=""
	if [ ! -d "$OUT" ]; then
		REASON="--out is missing"
		return
	fi
	if diff -r --no-dereference "$WORK/prev" "$OUT" >/dev/null 2>&1; then
		STATE=old
		return
	fi
	if ! jok "$OUT/summary.json"; then
		REASON="--out differs from the old run and summary.json does not parse"
		return
	fi
	if [ "$(jget "$OUT/summary.json" .seed)" != "$seed" ]; then
		REASON="--out differs from the old run but summary.json is not this run's (seed $(jget "$OUT/summary.json" .seed))"
		return
	fi
	for n in $(ourNames "$OUT"); do
		if ! grep -qx -- "$n" "$WORK/ref.names"; then
			REASON="unexpected file $n"
			return
		fi
		if [ "$n" != fit-data.csv ] && [ -f "$WORK/prev/$n" ] && cmp -s "$WORK/prev/$n" "$OUT/$n"; then
			REASON="$n is the previous run's (left beside the new run)"
			return
		fi
	done
	n=$(ourNames "$OUT" | grep -e '\.png$' -e '\.svg$' | sed 's/\.[a-z]*$//' | uniq -u | head -1)
	if [ -n "$n" ]; then
		REASON="figure $n half written (PNG or SVG alone)"
		return
	fi
	local intr
	intr=$(jget "$OUT/summary.json" .interrupted)
	INTDURING=$(jget "$OUT/summary.json" .interrupted_during)
	case $intr in
	false)
		if [ "$(ourNames "$OUT")" != "$(cat "$WORK/ref.names")" ]; then
			REASON="\"interrupted\": false but the files differ from a full run's: $(ourNames "$OUT" | comm -3 - "$WORK/ref.names" | tr -d '\t' | tr '\n' ' ')"
			return
		fi
		STATE=new-complete
		;;
	true)
		for n in draws.csv draws.nc summary.json; do
			[ -f "$OUT/$n" ] || { REASON="\"interrupted\": true without $n"; return; }
		done
		if [ "$INTDURING" = figures ]; then
			# Every file of a full run but some of the run's figures (the
			# prediction figures came before them).
			for n in $(grep -v -e '\.png$' -e '\.svg$' "$WORK/ref.names") predictions.png predictions.svg ppc.png ppc.svg; do
				[ -e "$OUT/$n" ] || { REASON="interrupted during the figures without $n"; return; }
			done
			grep -q 'interrupted while the figures' "$OUT/summary.json" ||
				{ REASON="interrupted during the figures, no warning"; return; }
		elif [ "$INTDURING" = prediction ]; then
			# The fit is saved; the predictions are written whole (when
			# only figures were cut, which the warning names) or not at all.
			[ -f "$OUT/fit.json" ] || { REASON="interrupted during the prediction without fit.json"; return; }
			if [ -e "$OUT/predictions.csv" ]; then
				[ -f "$OUT/predictions.json" ] || { REASON="predictions.csv without predictions.json"; return; }
				grep -q 'prediction figures were drawn' "$OUT/summary.json" ||
					{ REASON="interrupted during the prediction with predictions.csv, no warning about figures"; return; }
				[ -e "$OUT/predictions.png" ] && [ -e "$OUT/ppc.png" ] &&
					{ REASON="interrupted during the prediction figures, with every figure"; return; }
			else
				[ -e "$OUT/predictions.json" ] && { REASON="predictions.json without predictions.csv"; return; }
			fi
		else
			for n in fit.json predictions.csv predictions.json; do
				[ -e "$OUT/$n" ] && { REASON="\"interrupted\": true (during sampling) with $n"; return; }
			done
		fi
		STATE=new-interrupted
		;;
	*)
		REASON="summary.json has no \"interrupted\" field"
		;;
	esac
}

stagingCount() { find "$WORK" -maxdepth 1 -name '.out.staging-*' | wc -l; }

# phaseOf ERRFILE RC: the phase the run says it was stopped in.
phaseOf() {
	local err=$1 rc=$2 p
	if [ "$rc" = 0 ]; then
		echo "finished"
	elif p=$(grep -o 'interrupted during [^:]*: nothing written' "$err" | head -1) && [ -n "$p" ]; then
		p=${p#interrupted during }
		p=${p%: nothing written}
		echo "${p//$WORK\//}"
	elif grep -q 'interrupted before any draw was kept' "$err"; then
		echo "warm-up (no draw kept)"
	elif grep -q 'writing the draws made so far' "$err"; then
		if [ -f "$OUT/summary.json" ] && grep -q 'interrupted during the summary' "$OUT/summary.json"; then
			echo "sampling, then the summary"
		else
			echo "warm-up or sampling"
		fi
	elif grep -q 'while the figures were drawn' "$err"; then
		echo "the figures"
	elif grep -q 'while the files were written' "$err"; then
		echo "writing"
	elif grep -q 'interrupted' "$err" && [ "$INTDURING" = prediction ]; then
		if grep -q 'prediction figures were drawn' "$OUT/summary.json"; then
			echo "the prediction figures"
		else
			echo "the prediction"
		fi
	elif [ ! -s "$err" ]; then
		echo "start-up (before the handler)"
	else
		echo "other: $(tail -n 1 "$err" | cut -c1-80)"
	fi
}

# launch I SEED DELAY SIG: runs the CLI, sends SIG after DELAY seconds,
# waits; sets RC, TSIG (s after the start), TEXIT (s from the signal to
# the exit), SENT (0 when the process had exited before the signal).
launch() {
	local i=$1 seed=$2 delay=$3 sig=$4 t0 ts te pid
	rm -rf "$WORK/prev"
	cp -a "$OUT" "$WORK/prev"
	# Emptied here: a signal before the forked shell's redirections would
	# leave the previous run's messages in them.
	: >"$WORK/run.out"
	: >"$WORK/run.err"
	t0=$(now)
	set -m
	nice -n "$NICE" "$BIN" "${ARGS[@]}" --seed "$seed" --out "$OUT" >"$WORK/run.out" 2>"$WORK/run.err" &
	pid=$!
	set +m
	pause "$delay"
	ts=$EPOCHREALTIME
	SENT=1
	kill -s "$sig" "$pid" 2>/dev/null || SENT=0
	{ wait "$pid"; } 2>/dev/null # no "Killed" line from the shell
	RC=$?
	te=$(now)
	TSIG=$(sub "$ts" "$t0")
	TEXIT=$(sub "$te" "$ts")
	cp "$WORK/run.err" "$WORK/logs/$i.err"
}
mkdir -p "$WORK/logs"
rm -f "$WORK/latency.tsv"

echo
echo "## SIGINT / SIGTERM: $SIG_RUNS runs"
printf '%-4s %-5s %8s %6s %4s %8s  %-30s %-16s %s\n' run sig t_sig frac rc exit_s phase out staging
i=0
for delay in $(instants "$SIG_RUNS" "$EARLY_RUNS" "$SEED"); do
	i=$((i + 1))
	if [ $((i % 2)) = 1 ]; then sig=INT; else sig=TERM; fi
	seed=$((1000 + i))
	launch "s$i" "$seed" "$delay" "$sig"
	classify "$seed"
	phase=$(phaseOf "$WORK/run.err" "$RC")
	st=$(stagingCount)
	printf '%-4s %-5s %8s %6s %4s %8s  %-30s %-16s %s\n' "s$i" "$sig" "$TSIG" \
		"$(awk -v a="$TSIG" -v d="$DUR" 'BEGIN { printf "%.2f", a / d }')" "$RC" "$TEXIT" "$phase" "$STATE" "$st"
	inc "sig: phase $phase"
	inc "sig: out $STATE"
	if [ "$phase" = "start-up (before the handler)" ]; then
		# Killed by the signal's default action before main installed its
		# handler: the shell reports 128 + the signal's number.
		want=130
		[ "$sig" = TERM ] && want=143
		inc "sig: killed by the signal before the handler"
		[ "$RC" = "$want" ] || fail "s$i: exit code $RC, silent"
	else
		case $RC in
		130) inc "sig: exit 130" ;;
		0) inc "sig: exit 0 (finished before the signal)" ;;
		*) fail "s$i: exit code $RC" ;;
		esac
	fi
	if [ "$RC" != 0 ] && [ "$SENT" = 1 ]; then
		if awk -v a="$TEXIT" -v b="$MAXEXIT" 'BEGIN { exit !(a > b) }'; then
			MAXEXIT=$TEXIT MAXEXIT_RUN="s$i ($phase)"
		fi
		if awk -v a="$TEXIT" 'BEGIN { exit !(a > 1) }'; then
			OVER1=$((OVER1 + 1))
		fi
		printf '%s\t%s\n' "$TEXIT" "$phase" >>"$WORK/latency.tsv"
	fi
	[ "$STATE" = bad ] && fail "s$i: $REASON"
	[ "$RC" = 0 ] && [ "$STATE" != new-complete ] && fail "s$i: exit 0 but --out is $STATE"
	[ "$STATE" = new-interrupted ] && [ "$RC" != 130 ] && fail "s$i: an interrupted run exited $RC"
	userOK || fail "s$i: the user files changed or went"
	[ "$st" = 0 ] || fail "s$i: $st staging folders left beside --out"
done

echo
echo "## SIGKILL: $KILL_RUNS runs (a complete run after every $FOLLOW_EVERY)"
printf '%-4s %8s %6s %4s  %-16s %-7s %s\n' run t_sig frac rc out staging "next run"
i=0
for delay in $(instants "$KILL_RUNS" "$EARLY_KILLS" "$((SEED + 7))"); do
	i=$((i + 1))
	seed=$((2000 + i))
	launch "k$i" "$seed" "$delay" KILL
	classify "$seed"
	kstate=$STATE
	st=$(stagingCount)
	[ "$st" -gt 0 ] && inc "kill: left a staging folder"
	inc "kill: out $STATE"
	[ "$RC" = 0 ] && inc "kill: finished before the signal"
	[ "$RC" = 0 ] || [ "$RC" = 137 ] || fail "k$i: exit code $RC"
	[ "$STATE" = bad ] && fail "k$i: $REASON"
	[ "$STATE" = new-interrupted ] && fail "k$i: a killed run left an interrupted run"
	userOK || fail "k$i: the user files changed or went"
	next=-
	if [ $((i % FOLLOW_EVERY)) = 0 ] || [ "$i" = "$KILL_RUNS" ]; then
		fseed=$((3000 + i))
		rm -rf "$WORK/prev"
		cp -a "$OUT" "$WORK/prev"
		nice -n "$NICE" "$BIN" "${ARGS[@]}" --seed "$fseed" --out "$OUT" >"$WORK/run.out" 2>"$WORK/logs/f$i.err"
		frc=$?
		classify "$fseed"
		fst=$(stagingCount)
		next="rc $frc, $STATE, $fst staging"
		inc "kill: next run"
		{ [ "$frc" = 0 ] && [ "$STATE" = new-complete ] && [ "$fst" = 0 ] && userOK && inc "kill: next run ok"; } ||
			fail "k$i: the next run: $next${REASON:+ ($REASON)}"
		userOK || fail "k$i: the next run lost the user files"
	fi
	printf '%-4s %8s %6s %4s  %-16s %-7s %s\n' "k$i" "$TSIG" \
		"$(awk -v a="$TSIG" -v d="$DUR" 'BEGIN { printf "%.2f", a / d }')" "$RC" "$kstate" "$st" "$next"
done

echo
echo "## Summary (full run $DUR s; load average now $(cut -d' ' -f1-3 /proc/loadavg))"
for k in "${!COUNT[@]}"; do printf '%-50s %5d\n' "$k" "${COUNT[$k]}"; done | sort
printf '%-50s %5s\n' "sig: max signal-to-exit (s)" "$MAXEXIT"
echo "   (run $MAXEXIT_RUN)"
printf '%-50s %5d\n' "sig: signal-to-exit over 1 s" "$OVER1"
echo
echo "## Signal to exit (s), runs the signal reached that did not finish first"
printf '%-32s %5s %8s %8s %8s %8s\n' phase runs median p90 max "over 1 s"
# quantiles PHASE: runs, median, 90th percentile (nearest rank), max, > 1 s.
quantiles() {
	awk -F'\t' -v p="$1" 'p == "all" || $2 == p { print $1 }' "$WORK/latency.tsv" | sort -g |
		awk -v p="$1" '{ x[NR] = $1; if ($1 > 1) o++ } END { if (NR == 0) exit
			m = (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
			q = int(0.9 * NR + 0.999999); if (q < 1) q = 1
			printf "%-32s %5d %8.3f %8.3f %8.3f %8d\n", p, NR, m, x[q], x[NR], o }'
}
touch "$WORK/latency.tsv"
cut -f2 "$WORK/latency.tsv" | sort | uniq | while read -r p; do quantiles "$p"; done
quantiles all
printf '%-50s %5d\n' "failed checks" "$FAILS"
[ "$FAILS" = 0 ]
