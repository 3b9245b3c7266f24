#!/usr/bin/env bash
# monitor-cost.sh: what the monitors cost the number they sit beside.
#
# Runs `fleetmark-agent run lat_syscall op=OP` without monitors and with
# all three (interrupts, vmstat, perf-stat), interleaved: off, on, off,
# on... ROUNDS times each, so that a drift of the machine falls on both
# alike.  Prints the median of each side's trial values, their ratio (on /
# off), and the time a whole trial took on each side (the monitors read
# /proc twice per trial, outside the samples).
#
#	tests/bench/monitor-cost.sh [ROUNDS] [OP]	(default 21 rounds, op=null)
#
# The figure and the command are in docs/performance.md ("Monitors").
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=${AGENT:-$TOP/build/fleetmark-agent}
ROUNDS=${1:-21}
OP=${2:-null}
MON=interrupts,vmstat,perf-stat
command -v jq >/dev/null || { echo "monitor-cost.sh: needs jq" >&2; exit 1; }
[ -x "$AGENT" ] || { echo "monitor-cost.sh: no agent at $AGENT (make)" >&2; exit 1; }

off=() on=() doff=() don=()
for ((i = 0; i < ROUNDS; i++)); do
	for side in off on; do
		args=(run lat_syscall "op=$OP" --samples 11)
		[ "$side" = on ] && args+=(--monitor "$MON")
		out=$("$AGENT" "${args[@]}")
		v=$(jq -r 'select(.type == "metric") | .value' <<<"$out")
		d=$(jq -r 'select(.type == "end") | .duration' <<<"$out")
		if [ "$side" = on ]; then
			on+=("$v")
			don+=("$d")
			[ "$(jq -r 'select(.type == "monitor") | .monitor' <<<"$out" | wc -l)" = 3 ] ||
				{ echo "monitor-cost.sh: a trial with monitors sent no monitor lines" >&2; exit 1; }
		else
			off+=("$v")
			doff+=("$d")
		fi
	done
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
moff=$(median "${off[@]}")
mon=$(median "${on[@]}")
awk -v a="$moff" -v b="$mon" -v da="$(median "${doff[@]}")" -v db="$(median "${don[@]}")" \
    -v n="$ROUNDS" -v op="$OP" -v mon="$MON" 'BEGIN {
	printf "lat_syscall op=%s, %d trials each side, interleaved, 11 samples a trial\n", op, n
	printf "%-34s %10s %10s\n", "", "median us", "trial s"
	printf "%-34s %10.4f %10.3f\n", "without monitors", a, da
	printf "%-34s %10.4f %10.3f\n", "with " mon, b, db
	printf "ratio (with / without)             %10.4f %10.3f\n", b / a, db / da
}'
