#!/usr/bin/env bash
# t305-plan-trials-cap: the cap of 100000 trials per host is checked as the
# entries are read, before their points are made.
#
# A 144 KB plan of 60 munmap entries, each a matrix of 316 x 316 points,
# would make six million points before the cap was checked; under a 1 GB
# address-space limit `fleetmark plan` refuses it with exit 2 and the
# FILE:LINE:COL of the second entry (the first one that goes over), in
# about a second (the first entry's 99856 points are made).  The old check,
# after the whole matrix, ran out of memory here after 9 s.  Costs about
# 1 s here.  A controller built with ASan cannot start under an
# address-space limit (its shadow memory alone is terabytes of it), so
# this test runs the plain build beside it.
# cost: 1 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
[ -x "$TOP/build/fleetmark-agent" ] || [ -n "${FLEETMARK_AGENT:-}" ] ||
	skip_all "no native agent (run make)"
FM=$FLEETMARK
if ldd "$FM" 2>/dev/null | grep -q libasan; then
	FM=$TOP/build/fleetmark
	[ -x "$FM" ] || skip_all "needs the plain build beside the sanitized one (run make)"
fi
W=$(mktemp -d /tmp/t305.XXXXXX)
trap 'rm -rf "$W"' EXIT

axis=$(seq -s, 1 316)
{
	printf 'name: big\nrepeat: 1\nbenchmarks:\n'
	for _ in $(seq 1 60); do
		printf '  - bench: munmap\n    params:\n      pages: [%s]\n      accesses: [%s]\n' \
			"$axis" "$axis"
	done
} >"$W/big.yaml"
printf 'hosts:\n  local:\n    transport: local\n    workdir: %s/wd\n' "$W" >"$W/fleet.yaml"
diag "plan of $(wc -c <"$W/big.yaml") bytes"

t0=$(date +%s%N)
(ulimit -v 1000000 && cd "$W" && HOME=$W "$FM" plan big.yaml -f fleet.yaml) >"$W/out" 2>"$W/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
diag "exit $rc after $ms ms: $(head -c 300 "$W/err")"
is "$rc" 2 "a plan of too many trials is refused with exit 2, not out of memory"
like "$(cat "$W/err")" "big.yaml:8:5: 1 variants x 199712 points x repeat 1 is more than 100000 trials per host" \
	"... at the entry that goes over the cap, saying by how much"
is "$(wc -c <"$W/out")" 0 "... and prints nothing on stdout"

done_testing
