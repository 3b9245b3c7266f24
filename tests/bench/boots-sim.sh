#!/usr/bin/env bash
# tests/bench/boots-sim.sh: the paired boot verdict of `fleetmark ab`
# (include/ab.h) against today's same-night rule, on simulated kernels
# (tests/bench/boots-sim.c's header has the model), for docs/performance.md
# ("Boots as the unit: the simulation").
#
#   tests/bench/boots-sim.sh              the full table (2,000 runs a cell; about 40 s)
#   tests/bench/boots-sim.sh --quick      200 runs a cell (under 10 s)
#   tests/bench/boots-sim.sh --runs N --seed S
#
# Builds the simulation (sim-build.sh: against the controller's objects,
# `make` first) into a temporary directory, and prints a Markdown table.
# One core; seeded.
set -eu
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$(dirname "$0")/sim-build.sh" boots-sim "$W/boots-sim"
"$W/boots-sim" "$@"
