#!/bin/sh
# Side by side with scikit-learn: held-out RMSE, mean log predictive density
# (MLPD) and 50%/90% interval coverage of subtemper's posterior-averaged GP
# predictions against GaussianProcessRegressor's ML-II fit
# (ConstantKernel × anisotropic RBF + WhiteKernel, standardised inputs and
# target, n_restarts_optimizer = 10), on the diabetes data (80/20 split,
# export_diabetes.py) and two synthetic sets drawn by `subtemper gp`'s
# generator (paper §4.2), split 80/20 by split_csv.py.
#
#   scripts/compare/vs_sklearn.sh [OUTDIR] [-- extra subtemper gp flags...]
#
# OUTDIR (default docs/measurements/$(date +%F)/sklearn) receives each run's
# folder, sklearn_*.json, the commands (commands.txt) and table.md, the
# markdown table that docs/COMPARISON-sklearn.md quotes. SUBTEMPER names the
# CLI (default: built here into OUTDIR/bin with -tags openblas when OpenBLAS
# is installed). Extra flags after -- go to every `subtemper gp` run (e.g.
# -- --adapt); VARIANTS (default "default adapt") picks the subtemper
# settings: "default" is the CLI's defaults, "adapt" adds --adapt.
# Needs Debian's python3 (/usr/bin/python3) with python3-sklearn.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-docs/measurements/$(date +%F)/sklearn}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
EXTRA="$*"
PY=/usr/bin/python3
VARIANTS=${VARIANTS:-"default adapt"}
mkdir -p "$OUT"
if [ -z "${SUBTEMPER:-}" ]; then
	tags=""
	if [ -f /usr/include/lapacke.h ] && ldconfig -p 2>/dev/null | grep -q libopenblas; then tags="-tags openblas"; fi
	go build $tags -o "$OUT/bin/subtemper" ./cmd/subtemper
	SUBTEMPER=$OUT/bin/subtemper
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo "+dirty" || true)
: >"$OUT/commands.txt"
log() { echo "$*" >>"$OUT/commands.txt"; }
run() { log "$*"; "$@"; }

# Data sets: diabetes (10 inputs, 354/88 rows) and two synthetic sets.
D=$OUT/data
mkdir -p "$D"
run $PY scripts/compare/export_diabetes.py "$D" >/dev/null
sets="diabetes"
for spec in "synth1 300 3 11" "synth2 400 6 12"; do
	set -- $spec
	run "$SUBTEMPER" gp --n "$2" --dims "$3" --data-seed "$4" --sampler none --chains 1 --warmup 1 --draws 1 --quiet --out "$D/$1-gen" >/dev/null
	run $PY scripts/compare/split_csv.py "$D/$1-gen/data.csv" "$D/$1" 0.8 20261125
	sets="$sets $1"
done

for s in $sets; do
	run $PY scripts/compare/sklearn_gp.py --train "$D/${s}_train.csv" --test "$D/${s}_test.csv" --restarts 10 --seed 0 --out "$OUT/sklearn_$s.json" >/dev/null
	for v in $VARIANTS; do
		flags=""
		[ "$v" = adapt ] && flags="--adapt"
		dir=$OUT/subtemper_${s}_$v
		rm -rf "$dir"
		# shellcheck disable=SC2086
		run "$SUBTEMPER" gp --data "$D/${s}_train.csv" --standardize --predict "$D/${s}_test.csv" --quiet --out "$dir" $flags $EXTRA >"$dir.log" 2>&1 || echo "subtemper failed on $s ($v): see $dir.log" >&2
	done
done

$PY scripts/compare/sklearn_table.py "$OUT" "$commit$dirty" "$VARIANTS" $sets >"$OUT/table.md"
cat "$OUT/table.md"
