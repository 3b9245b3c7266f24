#!/usr/bin/env bash
# t120-agent-lmbench-ipc: lmbench's "*Local* Communication" benchmarks of
# the agent (lat_pipe, lat_unix, lat_udp, lat_tcp, lat_connect, bw_pipe,
# bw_unix, bw_tcp, bw_file_rd, bw_mmap_rd, bw_mem) on this machine.
#
# Every point the lmbench suite runs, and a few other parameter points,
# must give a well-formed result (JSON lines: header, one metric line per
# declared metric with every sample, end ok) whose value is physically
# sane: wide enough ranges never to flake, tight enough to catch a unit
# error, a zero or a bogus count.  Each run leaves nothing in TMPDIR and
# no process behind (the peer processes are found by a marker in their
# environment).  Bad parameters are refused, and lat_connect keeps its
# bound on connections per trial (each leaves a TIME_WAIT socket).
# cost: 22 s, machine
set -u
_agent=${AGENT:-}
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
AGENT=${_agent:-$TOP/build/fleetmark-agent}
need_agent
need_tools jq

W=$(mktemp -d /tmp/t120.XXXXXX)
trap 'rm -rf "$W"' EXIT
T=$W/tmp	# the agent's TMPDIR, and the marker of its processes
mkdir -p "$T"
SAMPLES=3

"$AGENT" list --json >"$W/list" || { echo "Bail out! agent list failed"; exit 1; }

# Processes started by a run of the agent: they carry TMPDIR=$T.
leftovers() {
	grep -lsF "TMPDIR=$T" /proc/[0-9]*/environ 2>/dev/null |
		sed -e 's|^/proc/||' -e 's|/environ$||' | tr '\n' ' '
}

# Sane value range of a point, "LOW HIGH" in the metric's unit.
range() {
	case $1 in
	lat_*) echo "0.5 10000" ;;		# 0.5 us to 10 ms per round trip / connection
	bw_mem) echo "100 500000" ;;		# 100 MB/s to 500 GB/s
	bw_file_rd | bw_mmap_rd) echo "20 500000" ;;
	bw_*) echo "10 100000" ;;		# pipes and sockets: 10 MB/s to 100 GB/s
	esac
}

# point BENCH [K=V...]: run one point with $SAMPLES samples and check all
# of it; the metric's value is left in $value (empty when there is none).
point() {
	local b=$1 name="$*" out err rc bad lo hi m unit dir left
	shift
	out=$W/out.$$ err=$W/err.$$
	value=
	TMPDIR=$T "$AGENT" run "$b" "$@" --samples "$SAMPLES" >"$out" 2>"$err" </dev/null
	rc=$?
	left=$(leftovers)
	is "$rc" 0 "$name: exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$out" "$err" | head -10

	bad=0
	while IFS= read -r line; do
		printf '%s\n' "$line" | jq -e 'type == "object" and has("type")' >/dev/null 2>&1 || bad=1
	done <"$out"
	is "$bad" 0 "$name: every output line is a JSON object with a type"
	is "$(jq -r 'select(.type == "header") | "\(.bench) \(.samples)"' "$out" 2>/dev/null)" \
		"$b $SAMPLES" "$name: one header line, for $b with $SAMPLES samples"
	for kv in "$@"; do
		is "$(jq -r --arg k "${kv%%=*}" 'select(.type == "header") | .params[$k] | tostring' "$out" 2>/dev/null)" \
			"$(bytes "${kv#*=}")" "$name: header carries ${kv%%=*}=${kv#*=}"
	done
	is "$(tail -n 1 "$out" | jq -r '"\(.type) \(.status)"' 2>/dev/null)" "end ok" \
		"$name: last line is end with status ok"
	is "$(jq -r 'select(.type == "error") | .message' "$out" 2>/dev/null)" "" "$name: no error line"

	for m in $(jq -r --arg b "$b" 'select(.name == $b) | .metrics[].name' "$W/list"); do
		unit=$(jq -r --arg b "$b" --arg m "$m" 'select(.name == $b) | .metrics[] | select(.name == $m) | .unit' "$W/list")
		dir=$(jq -r --arg b "$b" --arg m "$m" 'select(.name == $b) | .metrics[] | select(.name == $m) | .direction' "$W/list")
		is "$(jq -r --arg m "$m" 'select(.type == "metric" and .name == $m) |
			"\(.count) \(.samples | length) \(.unit) \(.direction) \(all(.samples[]; . > 0))"' "$out" 2>/dev/null)" \
			"$SAMPLES $SAMPLES $unit $dir true" \
			"$name: metric $m with $SAMPLES positive samples in $unit ($dir is better)"
	done
	# the metric the reports map to the lmbench column
	case $b in
	lat_*) m=latency unit=us ;;
	*) m=bandwidth unit=MB/s ;;
	esac
	value=$(jq -r --arg m "$m" --arg u "$unit" 'select(.type == "metric" and .name == $m and .unit == $u) | .value' "$out" 2>/dev/null)
	read -r lo hi <<<"$(range "$b")"
	awk -v v="${value:-x}" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v ~ /^[0-9.e+-]+$/ && v + 0 >= lo && v + 0 <= hi) }'
	tap_result $? "$name: $m ${value:-none} $unit is between $lo and $hi"

	is "$(find "$T" -mindepth 1 | head -3 | tr '\n' ' ')" "" "$name: nothing left in TMPDIR"
	is "$left" "" "$name: no process left behind"
	cp "$out" "$W/last"
}

# --- every point of the lmbench suite that these benchmarks provide ----------
mine='^(lat_pipe|lat_unix|lat_udp|lat_tcp|lat_connect|bw_pipe|bw_unix|bw_tcp|bw_file_rd|bw_mmap_rd|bw_mem)$'
jq -r 'select(.name == "lmbench") | .suite[] | "\(.bench) \(.params)"' "$W/list" >"$W/points"
n=$(awk -v re="$mine" '$1 ~ re' "$W/points" | wc -l)
is "$n" 14 "the lmbench suite has 14 points of lat_pipe .. bw_mem"
# lat_pipe at the suite's defaults (lmbench's 1 s samples); the other points
# that sample for 1 or 2 s, or warm up for 7.5 s, with 5 ms samples and no
# warm-up, their defaults checked in the catalogue below (they are what the
# whole set's 2 minutes are spent on, and lat_pipe's run shows the rule).
declare -A bw=()
while read -r b params; do
	[[ $b =~ $mine ]] || continue
	case $b in
	lat_udp | lat_tcp | bw_pipe | bw_unix) params="$params interval=5000" ;;
	bw_tcp) params="$params warmup=0" ;;
	esac
	# shellcheck disable=SC2086 # params is a list of k=v words
	point "$b" $params
	[ "$b" = bw_mem ] && bw[${params#op=}]=$value
	[ "$b" = lat_pipe ] && cp "$W/last" "$W/lat_pipe.default"
done < <(awk -v re="$mine" '$1 ~ re' "$W/points")
is "$(for b in lat_pipe lat_udp lat_tcp bw_pipe bw_unix bw_tcp; do
	jq -r --arg b "$b" 'select(.name == $b) | .params[] | select(.name == "interval" or .name == "warmup") |
		"\($b) \(.name)=\(.default)"' "$W/list"; done | xargs)" \
	"lat_pipe interval=1000000 lat_udp interval=1000000 lat_tcp interval=2000000 bw_pipe interval=2000000 bw_unix interval=2000000 bw_tcp warmup=7500000" \
	"the catalogue: lmbench's sample lengths (1 s, 2 s) and bw_tcp's 7.5 s warm-up are the defaults"

# Both copy 4M of 8M: the C library's copy and the unrolled word copy are
# within a factor of ten of each other, or one of them counts wrong.
awk -v a="${bw[bcopy]:-0}" -v b="${bw[fcp]:-0}" 'BEGIN { exit !(a > 0 && b > 0 && a / b <= 10 && b / a <= 10) }'
tap_result $? "bw_mem: bcopy (${bw[bcopy]:-none}) is within 10x of fcp (${bw[fcp]:-none})"
# Reading every word is no slower than a hundredth of copying them.
awk -v a="${bw[frd]:-0}" -v b="${bw[bcopy]:-0}" 'BEGIN { exit !(a > 0 && b > 0 && a / b <= 100 && b / a <= 100) }'
tap_result $? "bw_mem: frd (${bw[frd]:-none}) is within 100x of bcopy (${bw[bcopy]:-none})"

# Samples are taken as lmbench's benchmp() takes them unless a plan says
# sampling=all: the default of every benchmark of the suite that has the
# parameter (all but lat_fs, which has no other way).
while read -r b; do
	case $b in lat_fs) continue ;; esac
	is "$(jq -r --arg b "$b" 'select(.name == $b) | .params[] | select(.name == "sampling") |
		"\(.default) \(.choices)"' "$W/list")" "lmbench lmbench|all" \
		"$b: sampling defaults to lmbench (or all)"
done < <(awk '{ print $1 }' "$W/points" | sort -u)
is "$(jq -r 'select(.type == "header") | "\(.params.sampling) \(.params.interval)"' "$W/lat_pipe.default")" \
	"lmbench 1000000" "lat_pipe: runs with sampling=lmbench and lmbench's 1 s samples by default"
is "$(jq -r 'select(.type == "note") | .text' "$W/lat_pipe.default" | grep -c '^unlike lmbench')" 0 \
	"lat_pipe: no note says it is unlike lmbench"
# ... and the agent's own way says it is not lmbench's
point lat_pipe sampling=all interval=5000
is "$(jq -r 'select(.type == "note") | .text' "$W/last" | grep -c '^unlike lmbench: sampling=all')" 1 \
	"lat_pipe sampling=all: a note says every run is a sample, unlike lmbench"
is "$(jq -r 'select(.type == "note") | .text' "$W/last" | grep -c '^unlike lmbench: samples of 5000 us')" 1 \
	"lat_pipe interval=5000: a note says its samples are shorter than lmbench's"
point bw_tcp warmup=0
is "$(jq -r 'select(.type == "note") | .text' "$W/last" | grep -c '^unlike lmbench: warmup=0')" 1 \
	"bw_tcp warmup=0: a note says it warms up less than lmbench"

# --- other parameter points ----------------------------------------------------
# (with 5 ms samples and no warm-up: lmbench's seconds were checked above)
point bw_pipe sampling=all interval=5000
point lat_pipe size=4096 interval=5000
point lat_unix size=1000
point lat_udp size=1000 interval=5000
point lat_tcp size=100000 interval=5000	# more than a segment: must not stall on a delayed ACK
point bw_pipe msg=4K total=1M interval=5000
point bw_unix msg=1K total=1M interval=5000
point bw_tcp msg=64K total=4M sockbuf=0 warmup=0
point bw_file_rd size=1M block=4K mode=open2close
point bw_mmap_rd size=2M mode=open2close
for op in rd wr rdwr cp bzero; do
	point bw_mem op=$op size=1M
done

# lat_connect spreads a bounded number of connections over its samples:
# at most 20000 / (samples + 3) a sample.
SAMPLES=40 point lat_connect
its=$(jq -r 'select(.type == "metric") | .iterations' "$W/last" 2>/dev/null)
awk -v i="${its:-0}" 'BEGIN { exit !(i > 0 && i * (40 + 3) <= 20000) }'
tap_result $? "lat_connect: $its connections per sample x 43 stays within 20000"
# Its listener's backlog is 1024, lmbench's 100 on request; either other
# than the default says so in a note (a backlog of 100 can overflow and
# stall a connect() for a second, so it is not run here).
is "$(jq -r 'select(.name == "lat_connect") | .params[] | select(.name == "backlog") | .default' "$W/list")" \
	1024 "lat_connect: the backlog defaults to 1024"
is "$(jq -r 'select(.type == "note") | .text' "$W/last" 2>/dev/null)" "" \
	"lat_connect: no note at the default backlog"
SAMPLES=3 point lat_connect backlog=2048
like "$(jq -r 'select(.type == "note") | .text' "$W/last" 2>/dev/null)" \
	'backlog=2048 .the default is 1024; lmbench.s server listens with 100.' \
	"lat_connect backlog=2048: a note says so"

# --- bad parameters are refused, with an error line, and leave nothing -------
for bad in "lat_udp size=2" "lat_tcp size=0" "bw_pipe msg=0" "bw_mem size=1000" \
	"bw_mem op=xyz" "bw_file_rd block=0" "bw_tcp sockbuf=-1" "lat_pipe sampling=some" "lat_pipe interval=10" "bw_tcp warmup=-1" \
	"lat_connect backlog=0"; do
	# shellcheck disable=SC2086 # bad is a benchmark and its parameters
	TMPDIR=$T "$AGENT" run $bad --samples 1 >"$W/bad" 2>&1 </dev/null
	# Refused is exit 2 with the reason, not any failure (a crash is 139).
	is "$?" 2 "$bad: refused (exit 2)"
	p=${bad#* }
	like "$(cat "$W/bad")" "parameter ${p%%=*}:|\"class\":\"bad-request\"" "$bad: ... saying why"
	is "$(jq -r 'select(.type == "metric") | .name' "$W/bad" 2>/dev/null)" "" "$bad: no metric reported"
done
is "$(find "$T" -mindepth 1 | head -3 | tr '\n' ' ')" "" "refused runs leave nothing in TMPDIR"
is "$(leftovers)" "" "refused runs leave no process"

done_testing
