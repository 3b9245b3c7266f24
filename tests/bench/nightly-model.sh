#!/usr/bin/env bash
# tests/bench/nightly-model.sh: the nightly verdict on modelled nights
# (tests/bench/nightly-model.c's header has the model and the rules), for
# docs/performance.md ("The nightly verdict on modelled nights").
#
#   tests/bench/nightly-model.sh                   400 histories a cell
#   tests/bench/nightly-model.sh --histories 50    a quick look
#   tests/bench/nightly-model.sh --nights 14       14 nights of baseline
#   tests/bench/nightly-model.sh --seed S
#
# Builds the simulation (sim-build.sh) into a temporary directory and
# prints a Markdown table.  One core; seeded.
set -eu
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$(dirname "$0")/sim-build.sh" nightly-model "$W/nightly-model"
"$W/nightly-model" "$@"
