#!/bin/sh
# Diamonds at N_train = 2048: ../../2026-11-28/corners-fit/run-2048.sh (the split, the gp
# command's defaults with the binary of each commit given, one after the other on 2 cores,
# corner.py and zsum.py against the chains' means), its files written here. Run from the
# repository root.
OUT=$PWD/docs/measurements/2026-11-29/climbs WORK=/tmp/climbs2048 exec sh docs/measurements/2026-11-28/corners-fit/run-2048.sh "$@"
