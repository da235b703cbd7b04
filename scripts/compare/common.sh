# Helpers shared by vs_sklearn.sh, kfold.sh and kernel_rank.sh (sourced,
# not run). They expect OUT, the output folder, to be set.

# use_subtemper sets SUBTEMPER, building the CLI into $OUT/bin (with
# -tags openblas when OpenBLAS is installed) unless it is already set.
use_subtemper() {
	if [ -z "${SUBTEMPER:-}" ]; then
		tags=""
		if [ -f /usr/include/lapacke.h ] && ldconfig -p 2>/dev/null | grep -q libopenblas; then tags="-tags openblas"; fi
		# shellcheck disable=SC2086
		go build $tags -o "$OUT/bin/subtemper" ./cmd/subtemper
		SUBTEMPER=$OUT/bin/subtemper
	fi
	export SUBTEMPER
}

# start_log sets commit (the checkout's, +dirty when tracked files
# changed) and empties $OUT/commands.txt, which log, run and pyrun append
# to.
start_log() {
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "+dirty" || true)
	: >"$OUT/commands.txt"
}
log() { echo "$*" >>"$OUT/commands.txt"; }
run() { log "$*"; "$@"; }
pyrun() { log "OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} $*"; OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} "$@"; }
