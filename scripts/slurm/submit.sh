#!/usr/bin/env bash
# submit.sh OUT GROUPS gp FLAGS...: submits a gp fit of --chains C as a
# Slurm array of GROUPS tasks of C/GROUPS chains each (fit-array.sbatch),
# then a job that merges them into OUT/merged once all have succeeded.
# Prints the two job ids. The flags must give --chains (a multiple of
# GROUPS), --min-ess 0 and --ladder fixed (docs/CLUSTER.md says why).
#
#   scripts/slurm/submit.sh /scratch/fit 4 gp --data train.csv --chains 8 --min-ess 0 --ladder fixed
#
# SUBTEMPER names the binary (default: subtemper on the PATH); SBATCH_ARGS
# are passed to both sbatch calls (--partition, --time, --account, …).
set -euo pipefail
out=$1 groups=$2
shift 2
chains=
prev=
for a in "$@"; do
	case $prev in --chains) chains=$a ;; esac
	case $a in --chains=*) chains=${a#--chains=} ;; esac
	prev=$a
done
if [ -z "$chains" ] || [ $((chains % groups)) -ne 0 ]; then
	echo "submit.sh: give --chains C with C a multiple of $groups" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
bin=${SUBTEMPER:-subtemper}
mkdir -p "$out"
# shellcheck disable=SC2086 # SBATCH_ARGS are words
array=$(sbatch --parsable ${SBATCH_ARGS:-} --array=0-$((groups - 1)) --output="$out/shard-%a.log" \
	--export=ALL,SUBTEMPER="$bin" "$here/fit-array.sbatch" "$out" $((chains / groups)) "$@")
shards=()
for i in $(seq 0 $((groups - 1))); do shards+=("$out/shard-$i"); done
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency=afterok:"${array%%;*}" --job-name=subtemper-merge \
	--output="$out/merge.log" --wrap="$(printf '%q ' "$bin" merge "${shards[@]}" --out "$out/merged")")
echo "$array $merge"
