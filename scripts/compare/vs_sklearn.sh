#!/bin/sh
# Side by side with scikit-learn: held-out RMSE, mean log predictive density
# (MLPD) and 50%/90% interval coverage of subtemper's posterior-averaged GP
# predictions against GaussianProcessRegressor's ML-II fit
# (ConstantKernel × anisotropic RBF + WhiteKernel, standardised inputs and
# target, n_restarts_optimizer = 10), on the diabetes data (80/20 split,
# export_diabetes.py) and two synthetic sets drawn by `subtemper gp`'s
# generator (paper §4.2), split 80/20 by split_csv.py. For those two, the
# predictions at the θ they were drawn from (true_theta_gp.py) are a reference
# for the test set itself.
#
#   [SETS=...] [VARIANTS=...] scripts/compare/vs_sklearn.sh [OUTDIR] [-- extra subtemper gp flags...]
#
# OUTDIR (default docs/measurements/$(date +%F)/sklearn) receives the data
# (data/), each run's folder (subtemper_SET_VARIANT/, with its log beside it),
# sklearn_SET.json, truetheta_SET.json, the commands (commands.txt) and table.md, the markdown
# table that docs/COMPARISON-sklearn.md quotes. SETS (default
# "diabetes synth1 synth2") picks the data sets: synth1 is N = 300, D = 3,
# data seed 11; synth2 N = 400, D = 6, data seed 12. VARIANTS (default
# "hmc default") picks the subtemper settings: "hmc" is HMC alone
# (--sampler none --inner hmc), "default" the CLI's default sampler (PT with
# 10 hotter levels, about 11 times the cost). Extra flags after -- go to every
# `subtemper gp` run, e.g. -- --warmup 500 --draws 500 --backend openblas.
# SUBTEMPER names the CLI (default: built here into OUTDIR/bin, with
# -tags openblas when OpenBLAS is installed). Needs Debian's python3
# (/usr/bin/python3) with python3-sklearn; scikit-learn runs with
# OPENBLAS_NUM_THREADS=1 unless it is set.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-docs/measurements/$(date +%F)/sklearn}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
EXTRA="$*"
PY=/usr/bin/python3
SETS=${SETS:-"diabetes synth1 synth2"}
VARIANTS=${VARIANTS:-"hmc default"}
mkdir -p "$OUT"
# shellcheck source=scripts/compare/common.sh
. scripts/compare/common.sh
use_subtemper
start_log

# Data sets: diabetes (10 inputs, 354/88 rows) and two synthetic sets.
D=$OUT/data
mkdir -p "$D"
for s in $SETS; do
	case $s in
	diabetes) pyrun $PY scripts/compare/export_diabetes.py "$D" >/dev/null; continue ;;
	synth1) spec="300 3 11" ;;
	synth2) spec="400 6 12" ;;
	*) echo "unknown data set $s (diabetes, synth1, synth2)" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2086
	set -- $spec
	rm -rf "$D/$s-gen"
	run "$SUBTEMPER" gp --n "$1" --dims "$2" --data-seed "$3" --sampler none --chains 1 --warmup 1 --draws 1 --quiet --out "$D/$s-gen" >/dev/null
	# Keep the data and summary.json (data.true_theta); the one draw is no sample.
	rm -f "$D/$s-gen/draws.csv" "$D/$s-gen/fit.json" "$D/$s-gen/fit-data.csv"
	pyrun $PY scripts/compare/split_csv.py "$D/$s-gen/data.csv" "$D/$s" 0.8 20261125
	pyrun $PY scripts/compare/true_theta_gp.py --train "$D/${s}_train.csv" --test "$D/${s}_test.csv" --summary "$D/$s-gen/summary.json" --out "$OUT/truetheta_$s.json" >/dev/null
done

for s in $SETS; do
	pyrun $PY scripts/compare/sklearn_gp.py --train "$D/${s}_train.csv" --test "$D/${s}_test.csv" --restarts 10 --seed 0 --out "$OUT/sklearn_$s.json" >/dev/null
	for v in $VARIANTS; do
		case $v in
		hmc) flags="--sampler none --inner hmc" ;;
		default) flags="" ;;
		*) echo "unknown variant $v (hmc, default)" >&2; exit 2 ;;
		esac
		dir=$OUT/subtemper_${s}_$v
		rm -rf "$dir"
		# shellcheck disable=SC2086
		run "$SUBTEMPER" gp --data "$D/${s}_train.csv" --standardize --predict "$D/${s}_test.csv" --out "$dir" $flags $EXTRA >"$dir.log" 2>&1 || echo "subtemper failed on $s ($v): see $dir.log" >&2
		# fit.json (the draws again, for `subtemper predict`) and fit-data.csv
		# (a copy of the training file) add nothing to draws.csv and data/.
		rm -f "$dir/fit.json" "$dir/fit-data.csv"
	done
done

# shellcheck disable=SC2086
$PY scripts/compare/sklearn_table.py "$OUT" "$commit$dirty" "$VARIANTS" $SETS >"$OUT/table.md"
cat "$OUT/table.md"
