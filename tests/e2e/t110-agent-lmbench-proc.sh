#!/usr/bin/env bash
# t110-agent-lmbench-proc: the agent's process, signal, context switch,
# file and VM benchmarks (lat_select, lat_sig, lat_proc, lat_ctx, lat_fs,
# lat_mmap, lat_pagefault, pagefault) on this machine.
#
# Every point of the lmbench suite these benchmarks provide, and a few more,
# runs with 3 samples and must give well-formed output (every line JSON, a
# header echoing the parameters, one metric line per declared metric with
# 3 samples, an end line with status ok) and values in a physically sane
# range: wide enough never to flake on a slow shared VM, tight enough to
# catch a unit error (ns for us, ms for us) or a zero.  Each run happens in
# a session of its own, and afterwards no process of that session may be
# left and the agent's TMPDIR must be empty.  Bad parameters are refused;
# a trial killed at its deadline in the middle of a ring of 16 processes
# leaves nothing either; and every suite point finishes well within the
# time budget at the default 11 samples.
# cost: 38 s, machine
set -u
_agent=${AGENT:-}
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
AGENT=${_agent:-$TOP/build/fleetmark-agent}
need_agent
need_tools jq setsid ps awk

W=$(mktemp -d /tmp/t110.XXXXXX)
trap 'rm -rf "$W"' EXIT
T=$W/tmp	# the agent's TMPDIR
mkdir -p "$T"
SAMPLES=3

"$AGENT" list --json >"$W/list" || { echo "Bail out! agent list failed"; exit 1; }

# agent ARGS...: run the agent in a new session (whose id is left in
# $W/sid), with TMPDIR=$T, output in $W/out and $W/err; returns its status.
agent() {
	rm -f "$W/sid"
	# shellcheck disable=SC2016 # $$ is the inner shell's, the session id
	TMPDIR=$T setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$W/sid" "$AGENT" "$@" \
		>"$W/out" 2>"$W/err" </dev/null
}

# Processes still in the session of the last agent() run.
leftovers() {
	local sid
	sid=$(cat "$W/sid" 2>/dev/null) || return 0
	ps -e -o sid=,pid=,comm= | awk -v s="$sid" '$1 == s { print $2 "(" $3 ")" }' | tr '\n' ' '
}

clean_after() {
	is "$(leftovers)" "" "$1: no process left behind"
	is "$(find "$T" -mindepth 1 | head -3 | tr '\n' ' ')" "" "$1: nothing left in TMPDIR"
	find "$T" -mindepth 1 -delete 2>/dev/null	# one leak, one failure
}

# metric NAME: the value of metric NAME in the last output ("" if none).
metric() {
	jq -r --arg m "$1" 'select(.type == "metric" and .name == $m) | .value' "$W/out" 2>/dev/null
}

# within DESC VALUE LOW HIGH: LOW <= VALUE <= HIGH, VALUE a number.
within() {
	awk -v v="${2:-x}" -v lo="$3" -v hi="$4" \
		'BEGIN { exit !(v ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && v + 0 >= lo && v + 0 <= hi) }'
	tap_result $? "$1: ${2:-none} is between $3 and $4"
}

# Sane ranges per metric of a point, "METRIC UNIT LOW HIGH" lines.
ranges() {
	case "$1" in
	"lat_select type=file"*) echo "latency us 0.02 10000" ;;	# 100 regular files
	"lat_select type=tcp"*) echo "latency us 0.05 10000" ;;
	"lat_sig op=install") echo "latency us 0.01 1000" ;;
	"lat_sig op=catch") echo "latency us 0.05 1000" ;;
	# lmbench's subtraction (the fault less a net catch measured before it)
	# leaves nothing when the load rose in between: 0, with a note, below
	"lat_sig op=prot") echo "latency us 0 1000" ;;
	"lat_proc op=fork") echo "latency us 10 100000" ;;	# 10 us to 100 ms
	"lat_proc op=exec") echo "latency us 20 500000" ;;
	"lat_proc op=shell") echo "latency us 50 1000000" ;;
	"lat_ctx"*) echo "handoff us 0.05 10000" ;;	# 50 ns to 10 ms
	lat_fs*) printf '%s\n' "create us 0.5 100000" "delete us 0.1 100000" ;;
	lat_mmap*) echo "latency us 1 100000" ;;
	lat_pagefault*) echo "latency us 0.005 20" ;;	# per page: 5 ns to 20 us
	pagefault*) printf '%s\n' "file_fault ns 10 1000000" "anon_fault ns 10 1000000" \
		"minor_faults faults/touch 0.5 20" "major_faults faults/touch 0 1" ;;
	esac
}

# point BENCH [K=V...]: run one point with $SAMPLES samples and check it.
point() {
	local b=$1 name="$*" rc bad m unit dir line metric lo hi
	shift
	agent run "$b" "$@" --samples "$SAMPLES"
	rc=$?
	is "$rc" 0 "$name: exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$W/out" "$W/err" | head -10

	bad=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | jq -e 'type == "object" and has("type")' >/dev/null 2>&1 || bad=1
	done <"$W/out"
	is "$bad" 0 "$name: every output line is a JSON object with a type"
	is "$(jq -r 'select(.type == "header") | "\(.bench) \(.samples)"' "$W/out" 2>/dev/null)" \
		"$b $SAMPLES" "$name: one header line, for $b with $SAMPLES samples"
	for kv in "$@"; do
		is "$(jq -r --arg k "${kv%%=*}" 'select(.type == "header") | .params[$k] | tostring' \
			"$W/out" 2>/dev/null)" "$(bytes "${kv#*=}")" "$name: header carries $kv"
	done
	is "$(tail -n 1 "$W/out" | jq -r '"\(.type) \(.status)"' 2>/dev/null)" "end ok" \
		"$name: last line is end with status ok"
	is "$(jq -r 'select(.type == "error") | .message' "$W/out" 2>/dev/null)" "" \
		"$name: no error line"

	# every declared metric, once, with $SAMPLES numeric samples, unit and direction
	for m in $(jq -r --arg b "$b" 'select(.name == $b) | .metrics[].name' "$W/list"); do
		unit=$(jq -r --arg b "$b" --arg m "$m" \
			'select(.name == $b) | .metrics[] | select(.name == $m) | .unit' "$W/list")
		dir=$(jq -r --arg b "$b" --arg m "$m" \
			'select(.name == $b) | .metrics[] | select(.name == $m) | .direction' "$W/list")
		is "$(jq -r --arg m "$m" 'select(.type == "metric" and .name == $m) |
			"\(.count) \(.samples | length) \(.unit) \(.direction) \(all(.samples[]; type == "number" and . >= 0))"' \
			"$W/out" 2>/dev/null)" "$SAMPLES $SAMPLES $unit $dir true" \
			"$name: metric $m once, $SAMPLES samples >= 0 in $unit ($dir is better)"
	done
	while read -r metric unit lo hi; do
		[ -n "$metric" ] || continue
		within "$name: $metric in $unit" "$(jq -r --arg m "$metric" --arg u "$unit" \
			'select(.type == "metric" and .name == $m and .unit == $u) | .value' \
			"$W/out" 2>/dev/null)" "$lo" "$hi"
	done <<<"$(ranges "$name")"
	clean_after "$name"
	cp "$W/out" "$W/last"
}

# --- every point of the lmbench suite these benchmarks provide -------------
mine='^(lat_select|lat_sig|lat_proc|lat_ctx|lat_fs|lat_mmap|lat_pagefault)$'
jq -r 'select(.name == "lmbench") | .suite[] | "\(.bench) \(.params)"' "$W/list" >"$W/points"
awk -v re="$mine" '$1 ~ re' "$W/points" >"$W/mine"
is "$(wc -l <"$W/mine" | tr -d ' ')" 19 "the lmbench suite has 19 points of these benchmarks"
while read -r b params; do
	# shellcheck disable=SC2086 # params is a list of k=v words
	point "$b" $params
	case "$b $params" in
	"lat_ctx procs=2 size=0")
		# lmbench's subtraction leaves the switch itself: not zero at 0K
		within "lat_ctx 2p/0K: latency in us" "$(metric latency)" 0.05 10000 ;;
	lat_ctx*)
		awk -v l="$(metric latency)" -v h="$(metric handoff)" \
			'BEGIN { exit !(l != "" && h != "" && l + 0 <= h + 0) }'
		tap_result $? "$b $params: latency $(metric latency) is at most handoff $(metric handoff)" ;;
	"lat_select type=file n=100") file100=$(metric latency) ;;
	"lat_select type=tcp n=100") tcp100=$(metric latency) ;;
	"lat_sig op=catch") catch=$(metric latency) ;;
	"lat_sig op=prot")
		awk -v l="$(metric latency)" 'BEGIN { exit !(l + 0 > 0) }' ||
			jq -r 'select(.type == "note") | .text' "$W/out" | grep -q 'subtraction leaves nothing'
		tap_result $? "lat_sig op=prot: a fault above 0 ($(metric latency) us), or a note that the subtraction left nothing" ;;
	"lat_proc op=fork")
		fork=$(metric latency)
		fork_min=$(jq -r 'select(.type == "metric") | .min' "$W/out" 2>/dev/null) ;;
	"lat_proc op=exec") exec_min=$(jq -r 'select(.type == "metric") | .min' "$W/out" 2>/dev/null) ;;
	esac
done <"$W/mine"

# Orders the physics imposes, with margins for noise.  Ratios between
# benchmarks catch what a range cannot: a unit error in one of them.  A
# fork here takes 200 us or, behind other work, 4 ms, in runs of samples:
# the fastest samples of fork and exec are compared, not their medians.
awk -v f="${fork_min:-0}" -v e="${exec_min:-0}" 'BEGIN { exit !(f > 0 && e > f * 0.8) }'
tap_result $? "lat_proc: fork+exec (fastest sample ${exec_min:-none} us) is not cheaper than fork (${fork_min:-none} us)"
awk -v c="${catch:-0}" -v f="${fork:-0}" 'BEGIN { exit !(c > 0 && f / c >= 5 && f / c <= 20000) }'
tap_result $? "lat_proc fork (${fork:-none} us) costs 5 to 20000 signal deliveries (${catch:-none} us)"
# Per switch, a ring of 16 is not 5 times dearer than a ring of 2: the
# time of a trip round the ring is divided by the processes in it.  Pinned
# rings: unpinned, as lmbench and the suite run them, a hand-off flips
# between a switch (4 us) and a cross-CPU wake-up (45 us here).
point lat_ctx procs=2 size=16 pin=one
ctx2=$(metric handoff)
point lat_ctx procs=16 size=16 pin=one
ctx16=$(metric handoff)
awk -v a="${ctx2:-0}" -v b="${ctx16:-0}" 'BEGIN { exit !(a > 0 && b > 0 && b / a < 5 && a / b < 5) }'
tap_result $? "lat_ctx: hand-off at 16p/16K (${ctx16:-none} us) within 5x of 2p/16K (${ctx2:-none} us)"
# A socket is polled through its protocol; a regular file is always ready.
awk -v t="${tcp100:-0}" -v f="${file100:-0}" 'BEGIN { exit !(t > 0 && f > 0 && t > f) }'
tap_result $? "lat_select: 100 TCP sockets (${tcp100:-none} us) cost more than 100 files (${file100:-none} us)"

# --- more parameter points ---------------------------------------------------
point lat_select type=file n=10
small=$(metric latency)
point lat_select type=file n=1000
large=$(metric latency)
awk -v s="${small:-0}" -v l="${large:-0}" 'BEGIN { exit !(s > 0 && l > s) }'
tap_result $? "lat_select: 1000 files (${large:-none} us) cost more than 10 (${small:-none} us)"
point lat_select type=tcp n=10
point lat_ctx procs=4 size=4 pin=none
point lat_ctx procs=3 pin=one
is "$(jq -r 'select(.type == "note") | .text' "$W/last" | grep -c 'pinned to CPU')" 1 \
	"lat_ctx: a note says where the ring is pinned"
# lmbench does not pin its rings, and neither does the suite by default
point lat_ctx procs=3
is "$(jq -r 'select(.type == "header") | .params.pin' "$W/last")" none \
	"lat_ctx: unpinned by default, as lmbench"
is "$(jq -r 'select(.type == "note") | .text' "$W/last" | grep -c 'not pinned')" 1 \
	"lat_ctx: a note says the ring is not pinned"
# lmbench's way by default: the overhead by benchmp() before the ring,
# over the 96 pipes of lmbench's summary run; sampling=all the agent's own
is "$(jq -r 'select(.type == "header") | .params.sampling' "$W/last")" lmbench \
	"lat_ctx: lmbench's sampling by default"
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" \
	'overhead per hand-off .* over 96 pipes, measured before the ring, as lmbench' \
	"lat_ctx: the overhead is measured before the ring over 96 pipes, as lmbench"
point lat_ctx procs=3 sampling=all
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" \
	'^unlike lmbench: sampling=all: the ring and its overhead' \
	"lat_ctx sampling=all: a note says it is unlike lmbench"
# lat_sig as lmbench's: the send, the catch and the fault one after the
# other by benchmp()'s rule, medians subtracted; sampling=all in turn
point lat_sig op=prot
is "$(jq -r 'select(.type == "header") | .params.sampling' "$W/last")" lmbench \
	"lat_sig: lmbench's sampling by default"
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" \
	'^the net catch [0-9.]+ us \(median, measured before, as lmbench\) subtracted' \
	"lat_sig prot: the median net catch measured before the faults is subtracted, as lmbench"
point lat_sig op=catch sampling=all
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" \
	'^unlike lmbench: sampling=all: the send and the catch calibrated once and sampled in turn' \
	"lat_sig catch sampling=all: a note says it is unlike lmbench"
point lat_fs size=4096
point lat_mmap size=1M
point lat_pagefault size=2M
point pagefault
like "$(jq -r 'select(.type == "note") | .text' "$W/last" | tr '\n' ';')" \
	'THP (always|madvise|never|unknown);fault-around ' "pagefault: notes name the THP mode and fault-around"
point pagefault runs=20 size=64K
point lat_proc op=exec
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" '^exec runs /' \
	"lat_proc exec: a note names the program it runs"
# lmbench execs a small dynamically linked hello: the host's true, when it is one
if command -v ldd >/dev/null && ldd /bin/true >/dev/null 2>&1; then
	like "$(jq -r 'select(.type == "note") | .text' "$W/last")" \
		'^exec runs /(usr/)?bin/true \(dynamically linked, [0-9]+ KB\)' \
		"lat_proc exec: runs the host's dynamically linked true"
else
	skip "lat_proc exec: runs the host's dynamically linked true" "/bin/true is not dynamically linked here"
fi
point lat_proc op=shell
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" 'shell runs /bin/sh -c /' \
	"lat_proc shell: a note names the command"
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" "with the agent's environment, as lmbench's" \
	"lat_proc shell: the shell gets the agent's environment, as lmbench's gets its caller's"
point lat_proc op=exec image=agent
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" '^exec runs /.* __exit \(' \
	"lat_proc exec image=agent: runs the agent itself"
point lat_select type=file n=100
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" 'polls 92 of the 100 copies' \
	"lat_select file: polls as many descriptors as lmbench's select(100, ...)"
point lat_select type=tcp n=100
like "$(jq -r 'select(.type == "note") | .text' "$W/last")" 'polls 91 of the 100 copies' \
	"lat_select tcp: polls as many descriptors as lmbench's select(100, ...)"

# --- bad parameters are refused and leave nothing ------------------------------
for bad in "lat_ctx procs=1" "lat_ctx size=-1" "lat_select n=0" "lat_select n=5000" \
	"lat_select type=udp" "lat_sig op=nope" "lat_proc op=vfork" "lat_proc image=static" \
	"lat_fs size=-5" "lat_mmap size=4K" "lat_pagefault size=100K" "pagefault runs=0" "pagefault size=1"; do
	# shellcheck disable=SC2086 # bad is a benchmark and its parameters
	agent run $bad --samples 1
	# Refused is exit 2 with the reason, not any failure (a crash is 139).
	is "$?" 2 "$bad: refused (exit 2)"
	p=${bad#* }
	like "$(cat "$W/err" "$W/out")" "parameter ${p%%=*}:|\"class\":\"bad-request\"" "$bad: ... saying why"
	is "$(jq -r 'select(.type == "metric") | .name' "$W/out" 2>/dev/null)" "" "$bad: no metric"
	clean_after "$bad"
done

# --- a trial killed at its deadline leaves nothing -------------------------------
agent run lat_ctx procs=16 size=64 --samples 1000 --deadline 1
is "$?" 3 "lat_ctx at its deadline: exit status 3 (timeout)"
is "$(tail -n 1 "$W/out" | jq -r .status 2>/dev/null)" timeout "lat_ctx at its deadline: end timeout"
clean_after "lat_ctx at its deadline"
agent run lat_proc op=shell --samples 1000 --deadline 1
is "$?" 3 "lat_proc shell at its deadline: exit status 3 (timeout)"
clean_after "lat_proc shell at its deadline"

# --- the time budget at the default 11 samples -----------------------------------
# Each point well under 3 s here; 30 s is the alarm (a cap or calibration
# gone wrong costs minutes, not seconds).
while read -r b params; do
	# shellcheck disable=SC2086 # params is a list of k=v words
	agent run "$b" $params
	d=$(tail -n 1 "$W/out" | jq -r 'select(.status == "ok") | .duration' 2>/dev/null)
	within "$b $params at 11 samples: seconds" "$d" 0 30
done < <(cat "$W/mine"; echo "pagefault")
clean_after "the default-sample runs"

done_testing
