#!/usr/bin/env bash
# compute-sanitizer racecheck (shared-memory hazards) and memcheck over the cuda cases of the gp
# Predict tests, on the kernels of this tree (gp_cross, gp_coldot).
source .cuda-bundle/env.sh
el setup
go test -c -tags 'cuda openblas' -o /tmp/gp.test ./gp/ || exit 1
el build
cd gp
for tool in racecheck memcheck; do
	timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/gp.test -test.count=1 \
		-test.run 'TestPredict(MatchesDense|NotPositiveDefinite|DrawsWorkersInvariant)/cuda|TestInputsOverflow/cuda' > "$res/sanitize-$tool.txt" 2>&1
	echo "compute-sanitizer --tool $tool: exit $?"; tail -3 "$res/sanitize-$tool.txt"
done
el done
