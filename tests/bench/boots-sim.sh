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
# Builds the simulation against the controller's objects in build/src
# (`make` first: the objects of the sources the Makefile lists now, so
# that objects left by an older layout of src/ are not linked), into a
# temporary directory, and prints a Markdown table.  One core; seeded.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
make -s -j2 >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
objs=$(make -s print-CTL_SRCS | tr ' ' '\n' | grep -v '^src/main\.c$' | grep . |
	sed 's|^|build/|; s|\.c$|.o|')
# shellcheck disable=SC2046,SC2086 # the objects and libraries are words
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o "$W/boots-sim" tests/bench/boots-sim.c \
	$objs $(make -s print-CTL_LIBS)
"$W/boots-sim" "$@"
