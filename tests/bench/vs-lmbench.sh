#!/usr/bin/env bash
# tests/bench/vs-lmbench.sh: every metric of lmbench's five summary tables
# measured by lmbench 3 itself and by fleetmark-agent, interleaved run by
# run so that a shared, noisy machine affects both alike.  For each metric
# it prints both medians over the rounds, their ratio (agent / lmbench)
# and each side's spread (largest / smallest of its per-round values),
# with two figures that say what five rounds can: in how many rounds the
# agent's value was the higher of the pair (a difference of method shows
# in every round; one of luck does not), and whether the agent's spread is
# wider than lmbench's beyond chance (a permutation test, below).
#
#   tests/bench/vs-lmbench.sh [-r ROUNDS] [-m METRIC,...] [-c CPUS] [-a] [-k] [LMBENCH_TARBALL]
#   LMBENCH_SRC=/path/to/lmbench-3.tar.gz tests/bench/vs-lmbench.sh
#
#   -r ROUNDS   rounds (default 5); each runs every metric once per side,
#               the side that goes first alternating from round to round
#   -m LIST     only these metrics (comma-separated keys; -l lists them)
#   -c CPUS     run every program of both sides, servers included, on
#               these CPUs only (taskset -c CPUS): with one CPU, a ring or
#               a ping-pong never crosses to another CPU, so the run
#               compares the two methods without the scheduler's choice
#               of same-CPU switch or cross-CPU wake-up, which flips from
#               run to run on a shared machine (both sides alike)
#   -a          lmbench against itself: the second side runs lmbench's
#               same command lines again in the agent's place, so the
#               table shows how far two runs of one method, interleaved,
#               are apart on this machine: the floor under every ratio
#               and count of an agent run made in the same conditions
#   -l          list the metrics and exit
#   -k          keep the work directory (raw outputs) and print its path
#
# lmbench 3 is not packaged in Debian.  It comes from the intel/lmbench
# repository on GitHub, commit 941a0dc; make the tarball with
#   git clone https://github.com/intel/lmbench && cd lmbench &&
#   git archive --prefix=lmbench/ -o lmbench-3-src.tar.gz 941a0dc
# This script builds it from that tarball outside the repository (in
# ${XDG_CACHE_HOME:-~/.cache}/fleetmark/, once per tarball), with the flags
# that work on Debian 12 (needs gcc, make and libtirpc-dev), and never
# copies any of it into the tree.
#
# lmbench runs with the command lines of its own scripts/lmbench (-P 1, the
# sizes behind the summary with its default MB=8, lat_ctx's whole list of
# ring sizes, lat_sig prot on its own binary, lat_proc with /tmp/hello, the
# servers started with -s and stopped with -S) and with TIMING_O and LOOP_O
# as its scripts/config-run sets them (from timing_o and loop_o).  ENOUGH
# defaults to 5000 us, the agent's 5 ms sample and the shortest interval
# lmbench's `enough` can choose; `enough` itself is run and reported, and
# ENOUGH=N in the environment overrides (on a loaded machine `enough` falls
# back to 1000000, a second per sample, and a round then takes an hour).
# lmbench's FSDIR (lat_fs, stat, open) and FILE (lmdd's 8 MB file for
# lat_mmap, lat_pagefault, bw_file_rd, bw_mmap_rd; written afresh before
# each of them, below) and the agent's TMPDIR (its scratch directories)
# are the same fresh directory, so both work on the same file system at
# the same depth.
#
# The agent is $AGENT (default build/fleetmark-agent: make first), its
# points run with their defaults, the lmbench suite's.  Every command runs
# under timeout(1) (TIMEOUT, default 300 s) and a round takes 4.5 minutes
# on this machine when it is quiet, 12 under load: lmbench's bw_pipe,
# bw_unix, lat_pipe, lat_udp and lat_tcp time one or two seconds per
# sample whatever ENOUGH says, and so do the agent's points for them;
# bw_tcp warms up for 7.5 s on both sides.
# Needs bash, coreutils, awk, jq, gcc, make, libtirpc-dev.
set -eu

# Descriptors the caller left open (a harness's shell passes some, 10
# and 251 here) would be inherited by every program and shift
# lat_select's descriptor numbers: both sides start from 0-2.  255 is
# this shell's own hold on the script, close-on-exec already.
for fd in "/proc/$$/fd"/*; do
	fd=${fd##*/}
	case $fd in 0 | 1 | 2 | 255 | *[!0-9]*) continue ;; esac
	eval "exec $fd>&-" 2>/dev/null || true
done

TOP=$(cd "$(dirname "$0")/../.." && pwd)
AGENT=${AGENT:-$TOP/build/fleetmark-agent}
TIMEOUT=${TIMEOUT:-300}
ROUNDS=5
ONLY=
CPUS=
KEEP=0
LIST=0
SELF=0

# key|table|column|unit|direction (lower/higher is better)
METRICS='
null|Processor, Processes|null call|us|lower
io_read|Processor, Processes|null I/O (read /dev/zero)|us|lower
io_write|Processor, Processes|null I/O (write /dev/null)|us|lower
stat|Processor, Processes|stat|us|lower
open|Processor, Processes|open clos|us|lower
slct_tcp|Processor, Processes|slct TCP|us|lower
sig_inst|Processor, Processes|sig inst|us|lower
sig_hndl|Processor, Processes|sig hndl|us|lower
fork|Processor, Processes|fork proc|us|lower
exec|Processor, Processes|exec proc|us|lower
sh|Processor, Processes|sh proc|us|lower
ctx_2p0k|Context switching|2p/0K|us|lower
ctx_2p16k|Context switching|2p/16K|us|lower
ctx_2p64k|Context switching|2p/64K|us|lower
ctx_8p16k|Context switching|8p/16K|us|lower
ctx_8p64k|Context switching|8p/64K|us|lower
ctx_16p16k|Context switching|16p/16K|us|lower
ctx_16p64k|Context switching|16p/64K|us|lower
pipe|Local latencies|Pipe|us|lower
unix|Local latencies|AF UNIX|us|lower
udp|Local latencies|UDP|us|lower
tcp|Local latencies|TCP|us|lower
tcp_conn|Local latencies|TCP conn|us|lower
fs0k_create|File & VM|0K File Create|us|lower
fs0k_delete|File & VM|0K File Delete|us|lower
fs10k_create|File & VM|10K File Create|us|lower
fs10k_delete|File & VM|10K File Delete|us|lower
mmap|File & VM|Mmap Latency|us|lower
prot|File & VM|Prot Fault|us|lower
pagefault|File & VM|Page Fault|us|lower
slct_file|File & VM|100fd selct|us|lower
bw_pipe|Local bandwidths|Pipe|MB/s|higher
bw_unix|Local bandwidths|AF UNIX|MB/s|higher
bw_tcp|Local bandwidths|TCP|MB/s|higher
reread|Local bandwidths|File reread|MB/s|higher
mmap_reread|Local bandwidths|Mmap reread|MB/s|higher
bcopy_libc|Local bandwidths|Bcopy (libc)|MB/s|higher
bcopy_hand|Local bandwidths|Bcopy (hand)|MB/s|higher
mem_read|Local bandwidths|Mem read|MB/s|higher
mem_write|Local bandwidths|Mem write|MB/s|higher
'

# The runs: each measures one or more metrics, on both sides.
JOBS='null io_read io_write stat open slct_tcp sig_inst sig_hndl fork exec sh
ctx0 ctx16 ctx64 pipe unix udp tcp tcp_conn fs mmap prot pagefault slct_file
bw_pipe bw_unix bw_tcp reread mmap_reread bcopy_libc bcopy_hand mem_read mem_write'

# Which metrics a run gives.
job_metrics() {
	case $1 in
	ctx0) echo ctx_2p0k ;;
	ctx16) echo ctx_2p16k ctx_8p16k ctx_16p16k ;;
	ctx64) echo ctx_2p64k ctx_8p64k ctx_16p64k ;;
	fs) echo fs0k_create fs0k_delete fs10k_create fs10k_delete ;;
	*) echo "$1" ;;
	esac
}

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while getopts 'r:m:c:aklh' opt; do
	case $opt in
	a) SELF=1 ;;
	r) ROUNDS=$OPTARG ;;
	m) ONLY=$OPTARG ;;
	c) CPUS=$OPTARG ;;
	k) KEEP=1 ;;
	l) LIST=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))

if [ "$LIST" = 1 ]; then
	echo "$METRICS" | awk -F'|' 'NF { printf "%-13s %-22s %s\n", $1, $2, $3 }'
	exit 0
fi
TARBALL=${1:-${LMBENCH_SRC:-}}
[ -n "$TARBALL" ] || usage
[ -f "$TARBALL" ] || { echo "vs-lmbench: no such tarball: $TARBALL" >&2; exit 2; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "vs-lmbench: -r wants a positive number" >&2; exit 2 ;; esac
[ "$SELF" = 1 ] || [ -x "$AGENT" ] || { echo "vs-lmbench: no agent at $AGENT (run make)" >&2; exit 2; }
for tool in jq awk gcc make timeout sha256sum; do
	command -v "$tool" >/dev/null || { echo "vs-lmbench: $tool not found" >&2; exit 2; }
done
PIN=
if [ -n "$CPUS" ]; then
	command -v taskset >/dev/null || { echo "vs-lmbench: -c needs taskset (util-linux)" >&2; exit 2; }
	taskset -c "$CPUS" true 2>/dev/null ||
		{ echo "vs-lmbench: -c $CPUS: not a CPU list taskset can use here" >&2; exit 2; }
	PIN="taskset -c $CPUS"
fi
[ -f /usr/include/tirpc/rpc/rpc.h ] || { echo "vs-lmbench: lmbench needs libtirpc-dev" >&2; exit 2; }

# --- Build lmbench outside the tree ---------------------------------------------
LMB_PROGS='lat_syscall lat_select lat_sig lat_proc hello lat_ctx lat_pipe lat_unix
lat_udp lat_tcp lat_connect lat_fs lat_mmap lat_pagefault bw_pipe bw_unix bw_tcp
bw_file_rd bw_mmap_rd bw_mem enough timing_o loop_o lmdd'
LMB_CFLAGS='-O -DRUSAGE -DHAVE_uint=1 -DHAVE_int64_t=1 -DHAVE_DRAND48 -DHAVE_SCHED_SETAFFINITY=1 -I/usr/include/tirpc -fcommon'

sum=$(sha256sum "$TARBALL" | cut -c1-16)
CACHE=${LMBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fleetmark/lmbench-$sum}
BIN=$CACHE/bin
build_lmbench() {
	local tmp src targets p
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vs-lmbench-build.XXXXXX")
	tar -xzf "$TARBALL" -C "$tmp"
	src=$(find "$tmp" -name lib_timing.c -path '*/src/*' | head -1)
	[ -n "$src" ] || { echo "vs-lmbench: $TARBALL holds no lmbench src/lib_timing.c" >&2; exit 2; }
	src=$(dirname "$src")
	mkdir -p "$src/../bin/fm"
	targets=
	for p in $LMB_PROGS; do targets="$targets ../bin/fm/$p"; done
	echo "vs-lmbench: building lmbench in $CACHE" >&2
	# shellcheck disable=SC2086 # the target list is meant to split
	if ! (cd "$src" && make -s OS=fm CC=gcc O=../bin/fm CFLAGS="$LMB_CFLAGS" \
	    LDLIBS='-lm -ltirpc' $targets) >"$tmp/build.log" 2>&1; then
		tail -20 "$tmp/build.log" >&2
		echo "vs-lmbench: building lmbench failed (log above)" >&2
		exit 2
	fi
	mkdir -p "$CACHE"
	rm -rf "$BIN"
	mv "$src/../bin/fm" "$BIN"
	rm -rf "$tmp"
}
[ -x "$BIN/lmdd" ] || build_lmbench

# --- The work directory -------------------------------------------------------
W=$(mktemp -d "${TMPDIR:-/tmp}/vs-lmbench.XXXXXX")
SERVERS=
HELLO=/tmp/hello		# lmbench's lat_proc execs exactly this path
HELLO_OURS=0
cleanup() {
	local s
	for s in $SERVERS; do stop_server "$s"; done
	[ "$HELLO_OURS" = 1 ] && rm -f "$HELLO"
	if [ "$KEEP" = 1 ]; then echo "vs-lmbench: raw outputs in $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/raw" "$W/res" "$W/lat_fs"
FSDIR=$W/lat_fs
STAT=$FSDIR/lmbench
FILE=$FSDIR/XXX
touch "$STAT"

if [ -e "$HELLO" ] && ! cmp -s "$HELLO" "$BIN/hello"; then
	echo "vs-lmbench: $HELLO exists and is not lmbench's hello; move it away first" >&2
	exit 2
fi
[ -e "$HELLO" ] || { cp "$BIN/hello" "$HELLO"; HELLO_OURS=1; }

# shellcheck disable=SC2086 # PIN is empty or "taskset -c CPUS"
ENOUGH_FOUND=$($PIN "$BIN/enough")
ENOUGH=${ENOUGH:-5000}
export ENOUGH
# shellcheck disable=SC2086
TIMING_O=$($PIN "$BIN/timing_o")
export TIMING_O
# shellcheck disable=SC2086
LOOP_O=$($PIN "$BIN/loop_o")
export LOOP_O
# lmbench's scripts write FILE once, with lmdd, before everything else.
# Here it is written again before each lmbench program that reads it, so
# that its pages are in the page cache as lmdd leaves them, as the agent's
# freshly written file's are.  Left for minutes, they need not stay so: on
# the VM this was written on, cold page cache was evicted within minutes
# (a DAMON thread, kdamond, runs in its kernel; the reclaim counters of
# /proc/vmstat did not move), the pages came back as 4 KB folios where
# lmdd's 8 KB writes had left 8 KB ones, and lmbench's page faults on that
# file took 0.48 to 0.52 us against 0.31 to 0.40 on a fresh one, its
# reread 3,465 to 4,140 MB/s against 4,767 to 5,273 (docs/performance.md).
write_file() {
	"$BIN/lmdd" label="File $FILE write bandwidth: " of="$FILE" move=8m fsync=1 print=3 \
		2>>"$W/raw/lmdd" || { echo "vs-lmbench: lmdd could not write $FILE" >&2; exit 2; }
}
write_file

# --- Running one side ---------------------------------------------------------

# lmbench's programs run in its bin directory, as its scripts run them
# (lat_sig prot maps its own binary, named relative to it); they print
# their results on stderr.
# Each run's output is also kept, after a line naming the round and the
# command, in raw/lm.PROG (-k keeps the directory): a round that gave no
# figure can be read there.
lmb() {
	local prog=$1 out rc=0
	shift
	# shellcheck disable=SC2086 # PIN is empty or "taskset -c CPUS"
	out=$(cd "$BIN" && timeout -k 5 "$TIMEOUT" $PIN "./$prog" "$@" 2>&1 >/dev/null </dev/null) || rc=$?
	printf '## round %s%s: %s %s (exit %s)\n%s\n' "${r:-0}" "${SIDE2:+, second side}" "$prog" "$*" "$rc" \
		"$out" >>"$W/raw/lm.$prog"
	[ -z "$out" ] || printf '%s\n' "$out"
}

# The daemon keeps its standard error: not lmb(), whose capture would
# wait for it to close.
start_server() {	# lat_udp, lat_tcp, lat_connect, bw_tcp: "-s" forks a daemon
	# shellcheck disable=SC2086 # PIN is empty or "taskset -c CPUS"
	(cd "$BIN" && timeout -k 5 "$TIMEOUT" $PIN "./$1" -s >/dev/null 2>&1 </dev/null) || true
	SERVERS="$SERVERS $1"
	sleep 0.2
}
stop_server() {
	case $1 in
	lat_connect) lmb lat_connect -S localhost >/dev/null ;;
	*) lmb "$1" -S localhost >/dev/null ;;
	esac
	SERVERS=${SERVERS// $1/}
}

# The number before "microseconds" (or "MB/sec") in lmbench's line.
num_before() { awk -v w="$1" '{ for (i = 2; i <= NF; i++) if ($i == w) v = $(i - 1) } END { if (v != "") print v }'; }
# The second field of the last line: lmbench's "size value" outputs.
last_value() { awk 'NF >= 2 && $1 ~ /^[0-9.]+$/ { v = $2 } END { if (v != "") print v }'; }
# lat_ctx: the value for N processes ("N value" lines after "size=").
ctx_value() { awk -v n="$1" '$1 == n && NF == 2 { print $2; exit }'; }
# lat_fs: "SIZEk files creates/s deletes/s" -> microseconds per file.
fs_value() { awk -v s="$1" -v f="$2" '$1 == s && $f > 0 { printf "%.4f\n", 1e6 / $f; exit }'; }

# Print "metric value" lines for one lmbench run.
lm_job() {
	local out
	case $1 in
	null | io_read | io_write | stat | open)
		case $1 in
		null) out=$(lmb lat_syscall -P 1 null) ;;
		io_read) out=$(lmb lat_syscall -P 1 read) ;;
		io_write) out=$(lmb lat_syscall -P 1 write) ;;
		stat) out=$(lmb lat_syscall -P 1 stat "$STAT") ;;
		open) out=$(lmb lat_syscall -P 1 open "$STAT") ;;
		esac
		echo "$1 $(echo "$out" | num_before microseconds)" ;;
	slct_tcp) echo "slct_tcp $(lmb lat_select -n 100 -P 1 tcp | num_before microseconds)" ;;
	slct_file) echo "slct_file $(lmb lat_select -n 100 -P 1 file | num_before microseconds)" ;;
	sig_inst) echo "sig_inst $(lmb lat_sig -P 1 install | num_before microseconds)" ;;
	sig_hndl) echo "sig_hndl $(lmb lat_sig -P 1 catch | num_before microseconds)" ;;
	prot) echo "prot $(lmb lat_sig -P 1 prot lat_sig | num_before microseconds)" ;;
	fork) echo "fork $(lmb lat_proc -P 1 fork | num_before microseconds)" ;;
	exec) echo "exec $(lmb lat_proc -P 1 exec | num_before microseconds)" ;;
	sh) echo "sh $(lmb lat_proc -P 1 shell | num_before microseconds)" ;;
	ctx0 | ctx16 | ctx64)
		out=$(lmb lat_ctx -P 1 -s "${1#ctx}" 2 4 8 16 24 32 64 96)
		echo "$out" >>"$W/raw/lm.$1"
		case $1 in
		ctx0) echo "ctx_2p0k $(echo "$out" | ctx_value 2)" ;;
		*)	local n
			for n in 2 8 16; do
				echo "ctx_${n}p${1#ctx}k $(echo "$out" | ctx_value $n)"
			done ;;
		esac ;;
	pipe) echo "pipe $(lmb lat_pipe -P 1 | num_before microseconds)" ;;
	unix) echo "unix $(lmb lat_unix -P 1 | num_before microseconds)" ;;
	udp | tcp | tcp_conn)
		local prog=lat_$1
		[ "$1" = tcp_conn ] && prog=lat_connect
		start_server "$prog"
		if [ "$1" = tcp_conn ]; then
			out=$(lmb lat_connect localhost)
		else
			out=$(lmb "$prog" -P 1 localhost)
		fi
		stop_server "$prog"
		echo "$1 $(echo "$out" | num_before microseconds)" ;;
	fs)
		out=$(lmb lat_fs "$FSDIR")
		echo "$out" >>"$W/raw/lm.fs"
		echo "fs0k_create $(echo "$out" | fs_value 0k 3)"
		echo "fs0k_delete $(echo "$out" | fs_value 0k 4)"
		echo "fs10k_create $(echo "$out" | fs_value 10k 3)"
		echo "fs10k_delete $(echo "$out" | fs_value 10k 4)" ;;
	mmap) write_file; echo "mmap $(lmb lat_mmap -P 1 8m "$FILE" | last_value)" ;;
	pagefault) write_file; echo "pagefault $(lmb lat_pagefault -P 1 "$FILE" | num_before microseconds)" ;;
	bw_pipe) echo "bw_pipe $(lmb bw_pipe -P 1 | num_before MB/sec)" ;;
	bw_unix) echo "bw_unix $(lmb bw_unix -P 1 | num_before MB/sec)" ;;
	bw_tcp)
		start_server bw_tcp
		out=$(lmb bw_tcp -P 1 -m 10M localhost)
		stop_server bw_tcp
		echo "bw_tcp $(echo "$out" | last_value)" ;;
	reread) write_file; echo "reread $(lmb bw_file_rd -P 1 8m io_only "$FILE" | last_value)" ;;
	mmap_reread) write_file; echo "mmap_reread $(lmb bw_mmap_rd -P 1 8m mmap_only "$FILE" | last_value)" ;;
	bcopy_libc) echo "bcopy_libc $(lmb bw_mem -P 1 4m bcopy | last_value)" ;;
	bcopy_hand) echo "bcopy_hand $(lmb bw_mem -P 1 4m fcp | last_value)" ;;
	mem_read) echo "mem_read $(lmb bw_mem -P 1 8m frd | last_value)" ;;
	mem_write) echo "mem_write $(lmb bw_mem -P 1 8m fwr | last_value)" ;;
	esac
}

# One agent trial: "name value" for each metric; its notes go to notes.
agent() {
	local out="$W/raw/agent.last"
	# shellcheck disable=SC2086 # PIN is empty or "taskset -c CPUS"
	TMPDIR=$W timeout -k 5 "$TIMEOUT" $PIN "$AGENT" run "$@" </dev/null >"$out" 2>&1 || true
	{ printf '## round %s: %s\n' "${r:-0}" "$*"; cat "$out"; } >>"$W/raw/agent.$1"
	jq -r --arg b "$*" 'select(.type == "note") | "\($b): \(.text)"' "$out" 2>/dev/null >>"$W/notes" || true
	jq -r --arg b "$*" 'select(.type == "error") | "\($b): error: \(.message)"' "$out" 2>/dev/null >>"$W/notes" || true
	jq -r 'select(.type == "metric") | "\(.name) \(.value)"' "$out" 2>/dev/null || true
}
# The value of metric $1 in agent()'s output on stdin.
pick() { awk -v m="$1" '$1 == m { print $2; exit }'; }

ag_job() {
	local n
	case $1 in
	null) echo "null $(agent lat_syscall op=null | pick latency)" ;;
	io_read) echo "io_read $(agent lat_syscall op=read | pick latency)" ;;
	io_write) echo "io_write $(agent lat_syscall op=write | pick latency)" ;;
	stat) echo "stat $(agent lat_syscall op=stat | pick latency)" ;;
	open) echo "open $(agent lat_syscall op=open | pick latency)" ;;
	slct_tcp) echo "slct_tcp $(agent lat_select type=tcp n=100 | pick latency)" ;;
	slct_file) echo "slct_file $(agent lat_select type=file n=100 | pick latency)" ;;
	sig_inst) echo "sig_inst $(agent lat_sig op=install | pick latency)" ;;
	sig_hndl) echo "sig_hndl $(agent lat_sig op=catch | pick latency)" ;;
	prot) echo "prot $(agent lat_sig op=prot | pick latency)" ;;
	fork) echo "fork $(agent lat_proc op=fork | pick latency)" ;;
	exec) echo "exec $(agent lat_proc op=exec | pick latency)" ;;
	sh) echo "sh $(agent lat_proc op=shell | pick latency)" ;;
	ctx0) echo "ctx_2p0k $(agent lat_ctx procs=2 size=0 | pick latency)" ;;
	ctx16 | ctx64)
		for n in 2 8 16; do
			echo "ctx_${n}p${1#ctx}k $(agent lat_ctx procs=$n size="${1#ctx}" | pick latency)"
		done ;;
	pipe) echo "pipe $(agent lat_pipe | pick latency)" ;;
	unix) echo "unix $(agent lat_unix | pick latency)" ;;
	udp) echo "udp $(agent lat_udp | pick latency)" ;;
	tcp) echo "tcp $(agent lat_tcp | pick latency)" ;;
	tcp_conn) echo "tcp_conn $(agent lat_connect | pick latency)" ;;
	fs)
		agent lat_fs size=0 >"$W/raw/ag.fs"
		echo "fs0k_create $(pick create <"$W/raw/ag.fs")"
		echo "fs0k_delete $(pick delete <"$W/raw/ag.fs")"
		agent lat_fs size=10240 >"$W/raw/ag.fs"
		echo "fs10k_create $(pick create <"$W/raw/ag.fs")"
		echo "fs10k_delete $(pick delete <"$W/raw/ag.fs")" ;;
	mmap) echo "mmap $(agent lat_mmap | pick latency)" ;;
	pagefault) echo "pagefault $(agent lat_pagefault | pick latency)" ;;
	bw_pipe) echo "bw_pipe $(agent bw_pipe | pick bandwidth)" ;;
	bw_unix) echo "bw_unix $(agent bw_unix | pick bandwidth)" ;;
	bw_tcp) echo "bw_tcp $(agent bw_tcp | pick bandwidth)" ;;
	reread) echo "reread $(agent bw_file_rd | pick bandwidth)" ;;
	mmap_reread) echo "mmap_reread $(agent bw_mmap_rd | pick bandwidth)" ;;
	bcopy_libc) echo "bcopy_libc $(agent bw_mem op=bcopy | pick bandwidth)" ;;
	bcopy_hand) echo "bcopy_hand $(agent bw_mem op=fcp | pick bandwidth)" ;;
	mem_read) echo "mem_read $(agent bw_mem op=frd | pick bandwidth)" ;;
	mem_write) echo "mem_write $(agent bw_mem op=fwr | pick bandwidth)" ;;
	esac
}

# Record "metric value" lines from stdin under side $1 (lm or ag), as
# "round value" lines of res/SIDE.METRIC (r is the round).  A
# value of 0 is no figure, as a missing one: lmbench prints nothing where
# its subtraction leaves nothing (lat_ctx, lat_sig catch and prot) and the
# agent reports 0 there, so each side's median is over the rounds that
# gave a figure.
record() {
	local m v
	while read -r m v; do
		if [ -n "${v:-}" ] && awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then
			echo "$r $v" >>"$W/res/$1.$m"
		else
			echo "$m" >>"$W/res/$1.$m.missing"
		fi
	done
}

# The second side: the agent, or with -a lmbench again.
side2_job() {
	if [ "$SELF" = 1 ]; then
		SIDE2=1 lm_job "$1"
	else
		ag_job "$1"
	fi
}

# --- Rounds -------------------------------------------------------------------
selected() {	# is any metric of run $1 selected?
	local m
	[ -z "$ONLY" ] && return 0
	for m in $(job_metrics "$1"); do
		case ",$ONLY," in *",$m,"*) return 0 ;; esac
	done
	return 1
}

printf 'vs-lmbench: %s rounds; ENOUGH=%s (lmbench'"'"'s enough found %s) TIMING_O=%s LOOP_O=%s\n' \
	"$ROUNDS" "$ENOUGH" "$ENOUGH_FOUND" "$TIMING_O" "$LOOP_O" >&2
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
start=$(date +%s)
for r in $(seq "$ROUNDS"); do
	echo "vs-lmbench: round $r/$ROUNDS" >&2
	for j in $JOBS; do
		selected "$j" || continue
		if [ $((r % 2)) = 1 ]; then
			lm_job "$j" | record lm
			side2_job "$j" | record ag
		else
			side2_job "$j" | record ag
			lm_job "$j" | record lm
		fi
	done
done
elapsed=$(($(date +%s) - start))
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# --- The table ----------------------------------------------------------------
median() { cut -d' ' -f2 "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { cut -d' ' -f2 "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR && lo > 0) printf "%.2f\n", hi / lo; else print "-" }'; }
# "K/N": of the N rounds where both sides gave a figure, the K where the
# agent's was the higher.  Two methods that differ show it round after
# round (5/5 or 0/5); two that agree, on a machine whose speed moves
# between rounds, give anything between.
higher() {
	awk 'FNR == NR { l[$1] = $2; next } ($1 in l) { n++; if ($2 > l[$1]) k++ }
	    END { printf "%d/%d\n", k, n }' "$1" "$2"
}
# Is side 2's spread wider than side 1's beyond chance?  The statistic is
# the difference of the two spreads in logarithms; under "both sides'
# values come from one distribution" every split of the pooled values
# into groups of the two sizes is as likely as the one observed, so p is
# the share of 4,000 random splits (a fixed seed: the same files give the
# same p) whose difference is at least the observed one.  Prints p.
wider_p() {
	awk 'function span(a, lo_i, hi_i,   i, lo, hi) {
		lo = a[lo_i]; hi = a[lo_i]
		for (i = lo_i; i <= hi_i; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
		return hi - lo
	}
	FNR == NR { if ($2 > 0) x[++n1] = log($2); next }
	$2 > 0 { y[++n2] = log($2) }
	END {
		if (n1 < 2 || n2 < 2) { print "-"; exit }
		for (i = 1; i <= n1; i++) p[i] = x[i]
		for (i = 1; i <= n2; i++) p[n1 + i] = y[i]
		n = n1 + n2
		obs = span(y, 1, n2) - span(x, 1, n1)
		srand(1); ge = 0; T = 4000
		for (t = 0; t < T; t++) {
			for (i = n; i > 1; i--) { j = int(rand() * i) + 1; s = p[i]; p[i] = p[j]; p[j] = s }
			if (span(p, n1 + 1, n) - span(p, 1, n1) >= obs - 1e-12) ge++
		}
		printf "%.3f\n", ge / T
	}' "$1" "$2"
}

# With -a the second side is lmbench again: "again" where the table and
# the counts say "agent".
if [ "$SELF" = 1 ]; then
	OTHER=again WHO="lmbench's second run" AGAINST="lmbench 3 itself (-a)"
else
	OTHER=agent WHO="the agent" AGAINST=$(basename "$AGENT")
fi
echo
echo "lmbench 3 (ENOUGH=$ENOUGH, TIMING_O=$TIMING_O, LOOP_O=$LOOP_O) against $AGAINST, $ROUNDS rounds, $(date -u +%Y-%m-%d), ${elapsed} s${CPUS:+, both sides on CPUs $CPUS}"
echo "load average (1, 5, 15 min): $load_start at the start, $load_end at the end"
echo
echo "| table | column | unit | lmbench | $OTHER | $OTHER/lmbench | lmbench spread | $OTHER spread | $OTHER higher | wider p |"
echo '|---|---|---|---|---|---|---|---|---|---|'
within10=0; within15=0; total=0; wider=0; wider_sig=0; steady=0
while IFS='|' read -r key table col unit _dir; do
	[ -n "$key" ] || continue
	if [ -n "$ONLY" ]; then case ",$ONLY," in *",$key,"*) ;; *) continue ;; esac; fi
	if [ -s "$W/res/lm.$key" ] && [ -s "$W/res/ag.$key" ]; then
		l=$(median "$W/res/lm.$key"); a=$(median "$W/res/ag.$key")
		ls=$(spread "$W/res/lm.$key"); as=$(spread "$W/res/ag.$key")
		ratio=$(awk -v a="$a" -v l="$l" 'BEGIN { if (l > 0) printf "%.2f", a / l; else print "-" }')
		total=$((total + 1))
		awk -v r="$ratio" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }' && within10=$((within10 + 1))
		awk -v r="$ratio" 'BEGIN { exit !(r >= 0.85 && r <= 1.15) }' && within15=$((within15 + 1))
		awk -v a="$as" -v l="$ls" 'BEGIN { exit !(a > l) }' && wider=$((wider + 1))
		hi=$(higher "$W/res/lm.$key" "$W/res/ag.$key")
		wp=$(wider_p "$W/res/lm.$key" "$W/res/ag.$key")
		awk -v p="$wp" 'BEGIN { exit !(p != "-" && p + 0 < 0.05) }' && wider_sig=$((wider_sig + 1))
		case $hi in 0/0) ;; 0/* | "${hi#*/}/${hi#*/}") steady=$((steady + 1)) ;; esac
		printf '| %s | %s | %s | %.4g | %.4g | %s | %s | %s | %s | %s |\n' "$table" "$col" "$unit" \
			"$l" "$a" "$ratio" "$ls" "$as" "$hi" "$wp"
	else
		printf '| %s | %s | %s | %s | %s | - | - | - | - | - |\n' "$table" "$col" "$unit" \
			"$( [ -s "$W/res/lm.$key" ] && median "$W/res/lm.$key" || echo none)" \
			"$( [ -s "$W/res/ag.$key" ] && median "$W/res/ag.$key" || echo none)"
	fi
done <<EOF
$METRICS
EOF
echo
echo "$total metrics: $within10 within 10%, $within15 within 15%; ${WHO}'s spread is wider than lmbench's on $wider"
echo "  wider beyond chance (p < 0.05) on $wider_sig; $WHO the higher in every round or in none on $steady"
echo "  (where the two sides' values come from one distribution, each spread is the wider in about half"
echo "  the columns, p < 0.05 in about 1 in 20, and every-or-none in 1 in 2^(rounds-1))"
for f in "$W"/res/*.missing; do
	[ -e "$f" ] || continue
	f=${f##*/}
	f=${f%.missing}
	echo "  ${f%%.*} ${f#*.}: $(wc -l <"$W/res/$f.missing" | tr -d ' ') of $ROUNDS rounds gave no figure"
done | sed "s/^  lm /  lmbench /; s/^  ag /  $OTHER /"
if [ -s "$W/notes" ]; then
	echo
	echo "The agent's notes:"
	sort -u "$W/notes" | sed 's/^/  /'
fi
