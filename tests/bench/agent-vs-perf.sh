#!/usr/bin/env bash
# tests/bench/agent-vs-perf.sh: the agent's numbers side by side with
# `perf bench` measuring the same operation, interleaved round by round so
# that the shared, noisy machine affects both alike.  Prints the median of
# each over the rounds and the ratio agent/perf; then the wall time of the
# agent's full lmbench set.
#
#   tests/bench/agent-vs-perf.sh [ROUNDS]      (default 5)
#
# Pairs (same operation, same unit):
#   null call     lat_syscall op=null            perf bench syscall basic (getppid)
#   pipe rtt      lat_pipe                        perf bench sched pipe (a round trip per op)
#   ctx switch    lat_ctx procs=2 size=0 pin=one  perf bench sched pipe / 2 (two switches per op),
#                 (pinned to one CPU: pin=one for the agent; perf under taskset -c 0)
#   memcpy        bw_mem op=bcopy size=8M (MB/s)  perf bench mem memcpy -f default -s 8MB
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=${AGENT:-$TOP/build/fleetmark-agent}
ROUNDS=${1:-5}
command -v perf >/dev/null || { echo "perf not installed (apt-get install linux-perf)" >&2; exit 2; }
[ -x "$AGENT" ] || { echo "no agent at $AGENT (make)" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

agent() { "$AGENT" run "$@" </dev/null | jq -r 'select(.type == "metric") | .value' | head -1; }
perf_usecs() { perf bench "$@" 2>&1 | awk '/usecs\/op/ {print $1}'; }
perf_mbps() { perf bench mem memcpy -f default -s 8MB -l 20 2>&1 | awk '/GB\/sec/ {printf "%.1f\n", $1 * 1073.741824; exit}'; }

for r in $(seq "$ROUNDS"); do
	echo "round $r/$ROUNDS" >&2
	agent lat_syscall op=null >>"$W/a.null"
	perf_usecs syscall basic -l 2000000 >>"$W/p.null"
	agent lat_pipe >>"$W/a.pipe"
	perf_usecs sched pipe -l 20000 >"$W/p.sched.1"
	cat "$W/p.sched.1" >>"$W/p.pipe"
	agent lat_ctx procs=2 size=0 pin=one >>"$W/a.ctx"
	taskset -c 0 perf bench sched pipe -l 20000 2>&1 | awk '/usecs\/op/ {print $1 / 2}' >>"$W/p.ctx"
	agent bw_mem op=bcopy size=8M >>"$W/a.mem"
	perf_mbps >>"$W/p.mem"
done

median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '\n%-12s %-6s %12s %12s %8s\n' measurement unit agent perf agent/perf
for m in null:us pipe:us ctx:us mem:MB/s; do
	k=${m%%:*}
	a=$(median "$W/a.$k")
	p=$(median "$W/p.$k")
	printf '%-12s %-6s %12.4g %12.4g %8.2f\n' "$k" "${m#*:}" "$a" "$p" "$(awk -v a="$a" -v p="$p" 'BEGIN {print a / p}')"
done

echo >&2 "full lmbench set (default samples)..."
start=$(date +%s.%N)
"$AGENT" run lmbench </dev/null >"$W/lmbench"
end=$(date +%s.%N)
printf '\nlmbench set: %.1f s wall, %d metrics, %d errors\n' "$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}')" \
	"$(jq -r 'select(.type == "metric") | .name' "$W/lmbench" | wc -l)" \
	"$(jq -r 'select(.type == "error") | .class' "$W/lmbench" | wc -l)"
