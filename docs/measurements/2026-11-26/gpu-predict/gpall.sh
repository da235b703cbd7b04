#!/usr/bin/env bash
# The cuda package's tests and the whole gp test suite with cuda compiled in (every
# forEachBackend test runs on cuda too).
source .cuda-bundle/env.sh
el setup
go test -tags 'cuda openblas' -count=1 -timeout 3m ./cuda/ ./gp/ 2>&1 | tee "$res/gp-all.txt" | tail -30
el tests
go test -tags 'cuda openblas' -count=1 -v -run 'TestInputsOverflow|TestLogLikPrefixes' ./gp/ 2>&1 | grep -E -- '--- ' | tee -a "$res/gp-all.txt"
el done
