#!/bin/sh
# Does `subtemper compare` rank the squared-exponential kernel against
# Matérn 5/2 as held-out data do? For each data set: a fit of all the data
# with each kernel (`subtemper gp --evidence --loo`, the paper's priors),
# `subtemper compare --json` of the two (log evidence and elpd_loo with
# their differences and standard errors), and the K-fold held-out mean log
# predictive density of the same two models (kfold.sh, variants "paper" and
# "matern52").
#
#   [SETS="bimodal mtcars airquality"] scripts/compare/kernel_rank.sh [OUTDIR]
#
# The bimodal example is fitted in its data's units (as gp.BimodalExample
# defines its posterior), the real sets standardised. OUTDIR (default
# docs/measurements/$(date +%F)/kernel-rank) receives SET/{se,matern52}/
# and their logs, SET/compare.json, kfold/ (kfold.sh's output) and
# ranks.md. SUBTEMPER names the CLI (default: built into OUTDIR/bin).
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-docs/measurements/$(date +%F)/kernel-rank}
SETS=${SETS:-"bimodal mtcars airquality"}
mkdir -p "$OUT"
# shellcheck source=scripts/compare/common.sh
. scripts/compare/common.sh
use_subtemper
std() { if [ "$1" = bimodal ]; then echo ""; else echo "--standardize"; fi; }
for s in $SETS; do
	STANDARDIZE=$(std "$s") SETS=$s VARIANTS="paper matern52" sh scripts/compare/kfold.sh "$OUT/kfold-$s" >/dev/null 2>"$OUT/kfold-$s.log"
	for k in se matern52; do
		rm -rf "${OUT:?}/$s/$k"
		mkdir -p "$OUT/$s"
		# shellcheck disable=SC2046
		"$SUBTEMPER" gp --data "$OUT/kfold-$s/data/$s.csv" $(std "$s") --kernel $k --evidence --loo --quiet --out "$OUT/$s/$k" >"$OUT/$s/$k.log" 2>&1 || echo "subtemper failed on $s ($k): see $OUT/$s/$k.log" >&2
		rm -f "$OUT/$s/$k/fit.json" "$OUT/$s/$k/fit-data.csv" "$OUT/$s/$k/draws.nc"
	done
	"$SUBTEMPER" compare --json "$OUT/$s/se" "$OUT/$s/matern52" >"$OUT/$s/compare.json" 2>"$OUT/$s/compare.log" || echo "compare failed on $s: see $OUT/$s/compare.log" >&2
done
/usr/bin/python3 scripts/compare/kernel_rank_table.py "$OUT" $SETS >"$OUT/ranks.md"
cat "$OUT/ranks.md"
