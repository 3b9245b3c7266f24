#!/usr/bin/env bash
# tests/bench/sim-build.sh NAME OUT: build the simulation tests/bench/NAME.c
# against the controller's objects in build/src into OUT, for the
# simulations' scripts (boots-sim.sh, nightly-model.sh).  `make` first,
# and only the objects of the sources the Makefile lists now, so that
# objects left by an older layout of src/ are not linked.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
if [ $# -ne 2 ] || [ ! -f "tests/bench/$1.c" ]; then
	echo "usage: $0 NAME OUT" >&2
	exit 2
fi
make -s -j2 >/dev/null
objs=$(make -s print-CTL_SRCS | tr ' ' '\n' | grep -v '^src/main\.c$' | grep . |
	sed 's|^|build/|; s|\.c$|.o|')
# shellcheck disable=SC2046,SC2086 # the objects and libraries are words
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -o "$2" "tests/bench/$1.c" $objs $(make -s print-CTL_LIBS)
