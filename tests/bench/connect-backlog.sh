#!/usr/bin/env bash
# tests/bench/connect-backlog.sh: lmbench's TCP conn (lat_connect) and the
# agent's, unpinned and with both ends on one CPU, the agent with lmbench's
# listen backlog (100) and with its own (1024), and the kernel's count of
# listen-queue overflows (nstat's TcpExtListenOverflows) around each run.
# It shows why the agent does not take lmbench's backlog: an overflow
# drops a SYN, and that connect() waits a second for its retransmission.
#
#   tests/bench/connect-backlog.sh [-r ROUNDS] [-c CPU]
#
#   -r ROUNDS   rounds (default 2); each runs the six cases once
#   -c CPU      the CPU of the pinned cases (default: the highest)
#
# lmbench's programs come from tests/bench/vs-lmbench.sh's build (run it
# once): LMBENCH_BIN, or the first ~/.cache/fleetmark/lmbench-*/bin.
# The agent is $AGENT (default build/fleetmark-agent).  ENOUGH=5000 as
# vs-lmbench.sh.  A case that overflows takes up to 40 s; every run is
# under timeout(1) (300 s).  Needs jq, taskset, nstat (iproute2).
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=${AGENT:-$TOP/build/fleetmark-agent}
ROUNDS=2
CPU=$(($(nproc) - 1))
while getopts 'r:c:h' opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	c) CPU=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $ROUNDS in '' | *[!0-9]* | 0) echo "connect-backlog: -r wants a positive number" >&2; exit 2 ;; esac
if [ -z "${LMBENCH_BIN:-}" ]; then
	for d in "${XDG_CACHE_HOME:-$HOME/.cache}"/fleetmark/lmbench-*/bin; do
		[ -x "$d/lat_connect" ] && LMBENCH_BIN=$d && break
	done
fi
[ -x "${LMBENCH_BIN:-}/lat_connect" ] ||
	{ echo "connect-backlog: no lmbench build (run tests/bench/vs-lmbench.sh once, or set LMBENCH_BIN)" >&2; exit 2; }
[ -x "$AGENT" ] || { echo "connect-backlog: no agent at $AGENT (run make)" >&2; exit 2; }
for tool in jq taskset nstat timeout; do
	command -v "$tool" >/dev/null || { echo "connect-backlog: $tool not found" >&2; exit 2; }
done
export ENOUGH=${ENOUGH:-5000}
ALL=0-$(($(nproc) - 1))

overflows() { nstat -az TcpExtListenOverflows 2>/dev/null | awk '$1 == "TcpExtListenOverflows" { print $2 }'; }
now() { date +%s.%N; }

# lmbench on CPUs $1: the server started as its scripts start it, then
# the client; "value, overflows, seconds".
lmbench() {
	local v o0 t0 rc=0
	(cd "$LMBENCH_BIN" && taskset -c "$1" timeout 300 ./lat_connect -s >/dev/null 2>&1 </dev/null) || true
	sleep 0.2
	o0=$(overflows); t0=$(now)
	v=$(cd "$LMBENCH_BIN" && taskset -c "$1" timeout 300 ./lat_connect localhost 2>&1 </dev/null |
		awk '{ for (i = 2; i <= NF; i++) if ($i == "microseconds") v = $(i - 1) } END { print v }') || rc=$?
	printf '%-32s %10s us  overflows %4d  %6.2f s\n' "lmbench, CPUs $1" "${v:-none}" \
		$(($(overflows) - o0)) "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')"
	(cd "$LMBENCH_BIN" && timeout 30 ./lat_connect -S localhost >/dev/null 2>&1 </dev/null) || true
	sleep 0.3
	return $rc
}
agent() {	# CPUs, backlog
	local v o0 t0
	o0=$(overflows); t0=$(now)
	v=$(taskset -c "$1" timeout 300 "$AGENT" run lat_connect backlog="$2" </dev/null 2>/dev/null |
		jq -r 'select(.type == "metric") | .value' 2>/dev/null) || true
	printf '%-32s %10.4g us  overflows %4d  %6.2f s\n' "agent backlog=$2, CPUs $1" "${v:-0}" \
		$(($(overflows) - o0)) "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')"
}

echo "lat_connect, ENOUGH=$ENOUGH, $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
	echo "round $r"
	for cpus in "$ALL" "$CPU"; do
		lmbench "$cpus"
		agent "$cpus" 100
		agent "$cpus" 1024
	done
done
