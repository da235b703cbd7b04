#!/bin/sh
# K-fold held-out comparison of length-scale priors, side by side with
# scikit-learn: for each data set and fold, `subtemper gp --standardize
# --predict` under each prior variant and scikit-learn's ML-II fit
# (sklearn_gp.py: ConstantKernel × ARD RBF + WhiteKernel, 10 restarts), then
# the mean log predictive density (MLPD) and RMSE over all folds' test points
# (kfold_table.py).
#
#   [SETS=...] [VARIANTS=...] [K=5] [STANDARDIZE=--standardize] scripts/compare/kfold.sh [OUTDIR] [-- extra subtemper gp flags...]
#
# SETS (default "mtcars swiss airquality diabetes"): R's mtcars, swiss and
# airquality (complete rows) and MASS::Boston ("boston") through
# export_r.R, scikit-learn's diabetes through export_diabetes.py, and
# "bimodal", gp.BimodalExample's 60 points (bimodalcsv).
# VARIANTS (default "paper invhalft"): "paper" is the paper's length-scale
# prior, log ℓ_d ~ N(0.5, 1); "invhalft" 1/ℓ_d ~ half-t(3, 1), which lets a
# length scale grow without bound (an input switched off); "wide" log ℓ_d ~
# N(0.5, 2); "matern52" the paper's prior with the Matérn 5/2 kernel.
# STANDARDIZE is the flag subtemper's fits get (empty: the data's units,
# as the bimodal example is defined); scikit-learn always standardises. OUTDIR (default docs/measurements/$(date +%F)/kfold) receives
# data/, SET/foldK/{sklearn.json,VARIANT/,VARIANT.log}, commands.txt and
# table.md. SUBTEMPER names the CLI (default: built into OUTDIR/bin, with
# -tags openblas when OpenBLAS is installed). Needs Rscript with MASS and
# Debian's python3 with python3-sklearn.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-docs/measurements/$(date +%F)/kfold}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
EXTRA="$*"
PY=/usr/bin/python3
SETS=${SETS:-"mtcars swiss airquality diabetes"}
VARIANTS=${VARIANTS:-"paper invhalft"}
K=${K:-5}
STANDARDIZE=${STANDARDIZE---standardize}
mkdir -p "$OUT/data"
# shellcheck source=scripts/compare/common.sh
. scripts/compare/common.sh
use_subtemper
start_log

run Rscript scripts/compare/export_r.R "$OUT/data"
pyrun $PY scripts/compare/export_diabetes.py "$OUT/data" >/dev/null
run go run ./scripts/compare/bimodalcsv "$OUT/data/bimodal.csv"
for s in $SETS; do
	[ -f "$OUT/data/$s.csv" ] || { echo "unknown data set $s" >&2; exit 2; }
	pyrun $PY scripts/compare/kfold_split.py "$OUT/data/$s.csv" "$OUT/data/$s" "$K"
done

for s in $SETS; do
	k=1
	while [ "$k" -le "$K" ]; do
		f=$OUT/$s/fold$k
		mkdir -p "$f"
		tr=$OUT/data/${s}_fold${k}_train.csv
		te=$OUT/data/${s}_fold${k}_test.csv
		pyrun $PY scripts/compare/sklearn_gp.py --train "$tr" --test "$te" --restarts 10 --seed 0 --out "$f/sklearn.json" >/dev/null
		for v in $VARIANTS; do
			case $v in
			paper) flags="--prior-ell lognormal:0.5,1" ;;
			invhalft) flags="--prior-ell invhalft:3,1" ;;
			wide) flags="--prior-ell lognormal:0.5,2" ;;
			matern52) flags="--prior-ell lognormal:0.5,1 --kernel matern52" ;;
			*) echo "unknown variant $v (paper, invhalft, wide, matern52)" >&2; exit 2 ;;
			esac
			rm -rf "$f/$v"
			# shellcheck disable=SC2086
			run "$SUBTEMPER" gp --data "$tr" $STANDARDIZE --predict "$te" --out "$f/$v" --quiet $flags $EXTRA >"$f/$v.log" 2>&1 || echo "subtemper failed on $s fold $k ($v): see $f/$v.log" >&2
			rm -f "$f/$v/fit.json" "$f/$v/fit-data.csv" "$f/$v/draws.csv" "$f/$v/draws.nc"
		done
		k=$((k + 1))
	done
done
# shellcheck disable=SC2086
$PY scripts/compare/kfold_table.py "$OUT" "$commit$dirty" "$K" "$VARIANTS" $SETS >"$OUT/table.md"
cat "$OUT/table.md"
