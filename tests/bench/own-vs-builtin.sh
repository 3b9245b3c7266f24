#!/usr/bin/env bash
# tests/bench/own-vs-builtin.sh: the munmap program of plans/own-munmap.yaml
# (plans/bench/munmap.c, run as your own benchmark) against the agent's
# built-in munmap benchmark, side by side in one run on this machine (the
# default fleet), trials interleaved so that load affects both alike.  For
# each point it prints both sides' ns_per_access (mean of the trials) and
# their ratio (program / built-in), and the same for ns_per_munmap.
#
#   tests/bench/own-vs-builtin.sh [-r REPEAT] [-k]
#
#   -r REPEAT   trials per point and side (default 5)
#   -k          keep the work directory (the run directory) and print its path
#
# Needs build/fleetmark (make), jq and a C compiler for the program's build
# (musl-gcc, as for make agents, or cc).  Docs: docs/performance.md.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
REPEAT=5
KEEP=0
while getopts r:k o; do
	case $o in
	r) REPEAT=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,16p' "$0" >&2; exit 2 ;;
	esac
done
W=$(mktemp -d /tmp/own-vs-builtin.XXXXXX)
[ "$KEEP" = 1 ] || trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME=$W/cache
mkdir -p "$W/plans"
cp -r "$TOP/plans/bench" "$W/plans/"
# The program's entry of the shipped plan, and the built-in benchmark at
# the same points (threads writing, as the program's do).
cat >"$W/plans/side-by-side.yaml" <<P
name: own-vs-builtin
repeat: $REPEAT
samples: 3
timeout: 120s
benchmarks:
$(sed -n '/^  - bench: program/,/^regression:/p' "$TOP/plans/own-munmap.yaml" | sed '$d')
  - bench: munmap
    params:
      threads: [4, 8, 16]
      pages: [8, 16, 32]
      write: 1
P
# Exit 3 (some trials failed: the built-in benchmark refuses a sample in
# which oversubscribed threads finish no round) still leaves the others.
rc=0
"$FLEETMARK" run -q --wait-lock 5m -o "$W/r" "$W/plans/side-by-side.yaml" >/dev/null || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || exit "$rc"
D=$(find "$W/r" -mindepth 1 -maxdepth 1 -type d | head -1)
printf '| threads | pages | metric | built-in | program | program / built-in |\n|---|---|---|---|---|---|\n'
jq -r -s '
	map(select(.status == "ok" and (.metric == "ns_per_access" or .metric == "ns_per_munmap"))) |
	group_by([.resolved.threads, .resolved.pages, .metric]) | .[] |
	{ t: .[0].resolved.threads, p: .[0].resolved.pages, m: .[0].metric,
	  b: ([.[] | select(.bench == "munmap") | .value] | if length > 0 then add / length else null end),
	  o: ([.[] | select(.bench == "munmap-range") | .value] | if length > 0 then add / length else null end) } |
	select(.b != null and .o != null) |
	"| \(.t) | \(.p) | \(.m) | \(.b | . * 10 | round / 10) | \(.o | . * 10 | round / 10) | \(.o / .b | . * 100 | round / 100) |"
' "$D/trials.jsonl" | sort -t'|' -k4,4 -k2n -k3n
[ "$KEEP" = 1 ] && echo "kept: $W" >&2
exit 0
