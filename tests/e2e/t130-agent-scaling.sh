#!/usr/bin/env bash
# t130-agent-scaling: the agent's scaling benchmarks, run as a user would.
#
# munmap (TLB shootdown) over threads x pages, every will-it-scale test in
# both modes with one and two tasks, and exec with concurrent copies: valid
# JSON, the declared metrics, sane and mutually consistent values.  exec
# must hand the command to sh as one argument and report a failing copy's
# status.  Tasks must really be threads or processes as asked, and nothing
# may outlive a trial: no process (normal end, deadline, or the agent
# killed with SIGKILL) and no file in $TMPDIR.
# cost: 22 s, machine
# shellcheck disable=SC2317 # functions called through check
# shellcheck disable=SC2016 # jq programs and sh commands are meant literally
set -u
AGENT=${AGENT:-$(cd "$(dirname "$0")/../.." && pwd)/build/fleetmark-agent}
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_tools jq
if [ ! -x "$AGENT" ]; then
	echo "Bail out! no agent at $AGENT (make first)"
	exit 1
fi

WORK=$(mktemp -d /tmp/t130.XXXXXX)
bg=()
cleanup() {
	local p
	for p in "${bg[@]}" $(marked); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT
# Scratch directories go to $TMPDIR: a fresh one shows what is left over.
export TMPDIR=$WORK/tmp
mkdir "$TMPDIR"
# Every process of ours carries this in its environment, the test shell not.
MARK=t130-$$-$RANDOM

# run_agent NAME ARGS...: `fleetmark-agent run ARGS`, output in $WORK/NAME.out,
# exit status in $WORK/NAME.rc.
run_agent() {
	local name=$1
	shift
	env FM_T130_MARK="$MARK" "$AGENT" run "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
	echo $? >"$WORK/$name.rc"
}

rc_of() { cat "$WORK/$1.rc"; }

# jqs NAME FILTER [jq args...]: the filter over all lines of NAME's output, slurped.
jqs() {
	local name=$1 filter=$2
	shift 2
	jq -e -s "$@" "$filter" "$WORK/$name.out" >/dev/null 2>&1
}

# Live processes whose environment holds the mark (zombies have none).
marked() { grep -lsaz "^FM_T130_MARK=$MARK\$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
nmarked() { marked | wc -l; }

# wait_marked N: until at least N marked processes run (10 s at most).
wait_marked() {
	local tries=100
	while [ "$((tries -= 1))" -ge 0 ]; do
		[ "$(nmarked)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# none_left: no marked process within 5 s.
none_left() {
	local tries=50
	while [ "$((tries -= 1))" -ge 0 ]; do
		[ "$(nmarked)" -eq 0 ] && return 0
		sleep 0.1
	done
	diag "left running: $(marked | while read -r p; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done)"
	return 1
}

tmpdir_empty() {
	[ -z "$(find "$TMPDIR" -mindepth 1 | head -1)" ] && return 0
	diag "left in TMPDIR: $(find "$TMPDIR" -mindepth 1 | head -5 | tr '\n' ' ')"
	return 1
}

METRICS='(map(select(.type == "metric")) | INDEX(.name))'

# --- munmap ---------------------------------------------------------------------
for threads in 1 4; do
	for pages in 8 32; do
		n=munmap-$threads-$pages
		run_agent "$n" munmap threads=$threads pages=$pages --samples 3
		is "$(rc_of "$n")" 0 "munmap threads=$threads pages=$pages exits 0"
		check "munmap threads=$threads pages=$pages: every line is a JSON object" \
			jqs "$n" 'length > 2 and all(.[]; type == "object")'
		check "munmap threads=$threads pages=$pages: the header has the parameters" \
			jqs "$n" '.[] | select(.type == "header") | .params.threads == $t and .params.pages == $p' \
			--argjson t "$threads" --argjson p "$pages"
		check "munmap threads=$threads pages=$pages: three metrics of 3 samples" \
			jqs "$n" "$METRICS"' | (keys == ["accesses_per_thread_ms", "ns_per_access", "ns_per_munmap"]) and all(.[]; .count == 3 and (.samples | length) == 3)'
		check "munmap threads=$threads pages=$pages: 100 ns <= ns_per_munmap <= 10 ms" \
			jqs "$n" "$METRICS"' | .ns_per_munmap.value >= 100 and .ns_per_munmap.value <= 1e7'
		check "munmap threads=$threads pages=$pages: 0.1 <= ns_per_access <= 10000" \
			jqs "$n" "$METRICS"' | .ns_per_access.value >= 0.1 and .ns_per_access.value <= 10000'
		# both access metrics come from the same count: their product is 10^6 ns/ms
		check "munmap threads=$threads pages=$pages: ns_per_access x accesses_per_thread_ms = 1e6" \
			jqs "$n" "$METRICS"' | [.ns_per_access.samples, .accesses_per_thread_ms.samples] | transpose | all(.[0] * .[1] > 0.999e6 and .[0] * .[1] < 1.001e6)'
	done
done
run_agent munmap-0 munmap threads=0 --samples 3
check "munmap threads=0 (no other thread) reports all three metrics" \
	jqs munmap-0 "$METRICS"' | .ns_per_munmap.value >= 100 and .ns_per_access.value >= 0.1 and .accesses_per_thread_ms.value > 0'
run_agent munmap-bad munmap write=2 --samples 1
# refused before the trial starts, as any parameter out of its range (exit 2)
is "$(rc_of munmap-bad)" 2 "munmap write=2 is refused: exit 2"
like "$(cat "$WORK/munmap-bad.err")" "parameter write: 2 is out of range \(0 to 1\)" "and it says why"

# --- will-it-scale ------------------------------------------------------------------
for bench in page_fault1 page_fault2 page_fault3 tlb_flush1 tlb_flush2 tlb_flush3 mmap1 mmap2; do
	for mode in processes threads; do
		for tasks in 1 2; do
			n=$bench-$mode-$tasks
			what="$bench mode=$mode tasks=$tasks"
			run_agent "$n" "$bench" mode=$mode tasks=$tasks --samples 3
			if [ "$(rc_of "$n")" != 0 ]; then
				tap_result 1 "$what exits 0"
				diag "$(grep -h '"error"' "$WORK/$n.out" "$WORK/$n.err" | head -3)"
				continue
			fi
			check "$what: ops_per_sec > 0 in every sample" \
				jqs "$n" "$METRICS"' | .ops_per_sec.count == 3 and all(.ops_per_sec.samples[]; . > 0)'
			check "$what: ops_per_sec_per_task = ops_per_sec / tasks" \
				jqs "$n" "$METRICS"' | [.ops_per_sec.samples, .ops_per_sec_per_task.samples] | transpose | all((.[1] * $k - .[0] | fabs) <= 1e-6 * .[0])' \
				--argjson k "$tasks"
		done
	done
done

# Tasks are what the mode says: processes of their own, or threads of the trial.
env FM_T130_MARK="$MARK" "$AGENT" run page_fault2 mode=processes tasks=2 --samples 1000 \
	>"$WORK/kill-p.out" 2>&1 </dev/null &
apid=$!
bg+=("$apid")
check "processes mode: agent, trial and two task processes run" wait_marked 4
sleep 0.3
is "$(nmarked)" 4 "processes mode: no more than those four processes"
is "$(find "$TMPDIR" -mindepth 2 | wc -l)" 0 "page_fault2's task files are unlinked while it runs"
{ kill -9 "$apid" && wait "$apid"; } 2>/dev/null	# quietly: bash reports killed jobs
check "killing the agent with SIGKILL ends the trial and its task processes" none_left

env FM_T130_MARK="$MARK" "$AGENT" run tlb_flush2 mode=threads tasks=2 --samples 1000 \
	>"$WORK/kill-t.out" 2>&1 </dev/null &
apid=$!
bg+=("$apid")
check "threads mode: agent and trial processes run" wait_marked 2
sleep 0.3
is "$(nmarked)" 2 "threads mode: no task process"
trial=$(for p in $(marked); do [ "$(awk '/^PPid:/ { print $2 }' "/proc/$p/status")" = "$apid" ] && echo "$p"; done)
is "$(awk '/^Threads:/ { print $2 }' "/proc/$trial/status" 2>/dev/null)" 3 \
	"threads mode: the trial process runs itself and two task threads"
{ kill -9 "$apid" && wait "$apid"; } 2>/dev/null	# quietly: bash reports killed jobs
check "killing the agent with SIGKILL ends the threads trial" none_left

run_agent wis-deadline page_fault1 mode=processes tasks=2 --samples 1000 --deadline 1
is "$(rc_of wis-deadline)" 3 "page_fault1 past its deadline exits 3 (timeout)"
check "page_fault1 past its deadline leaves no task running" none_left

# --- exec -------------------------------------------------------------------------------
run_agent exec-true exec copies=2 command=true --samples 3
is "$(rc_of exec-true)" 0 "exec copies=2 command=true exits 0"
check "exec: runs_per_hour > 0 and seconds > 0 in every sample" \
	jqs exec-true "$METRICS"' | .runs_per_hour.count == 3 and all(.runs_per_hour.samples[]; . > 0) and all(.seconds.samples[]; . > 0)'
check "exec: runs_per_hour = copies x 3600 / seconds" \
	jqs exec-true "$METRICS"' | [.seconds.samples, .runs_per_hour.samples] | transpose | all((.[0] * .[1] - 7200 | fabs) < 0.01)'

# Two copies of a 0.4 s command take 0.4 s, not 0.8 s, when they run at once.
run_agent exec-sleep exec copies=2 'command=sleep 0.4' --samples 1
check "exec: copies run concurrently (2 x sleep 0.4 within 0.4-0.7 s)" \
	jqs exec-sleep "$METRICS"' | .seconds.value >= 0.39 and .seconds.value < 0.7'

run_agent exec-fail exec 'command=echo $(id -u) > out; exit 3' --samples 1
is "$(rc_of exec-fail)" 1 "exec: a copy exiting 3 fails the trial"
like "$(jq -r 'select(.type == "error") | .message' "$WORK/exec-fail.out")" 'status 3($|[^0-9])' \
	"exec: the error names exit status 3"
run_agent exec-stderr exec 'command=echo "it broke" >&2; exit 4' --samples 1
like "$(jq -r 'select(.type == "error") | .message' "$WORK/exec-stderr.out")" 'status 4.*it broke' \
	"exec: the error carries the copy's stderr"

# The command reaches sh as one argument, exactly as written: quotes, ;,
# $(...), backticks and newlines are sh's to interpret, once.
LIT=$WORK/literal
mkdir "$LIT"
body=$(cat <<'EOF'
touch 'a;b' "$(printf x)"
touch `printf y`
printf '%s\n' "$#" > argc
EOF
)
run_agent exec-literal exec "command=cd '$LIT' || exit 9
$body" --samples 1
is "$(rc_of exec-literal)" 0 "exec: the literal command exits 0"
is "$(cd "$LIT" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | paste -sd/ -)" 'a;b/argc/x/y' \
	"exec: the command made exactly a;b, argc, x and y"
is "$(cat "$LIT/argc" 2>/dev/null)" 0 "exec: sh got the command and no further operand"

run_agent exec-pwd exec "command=pwd > '$WORK/pwd'" --samples 1
like "$(cat "$WORK/pwd" 2>/dev/null)" "^$TMPDIR/fleetmark-trial\\." "exec: copies run in the trial's scratch directory"

check "no process is left after the normal runs" none_left
check "nothing is left in TMPDIR after the normal runs" tmpdir_empty

# A copy past the deadline is killed with the trial's process group.
run_agent exec-deadline exec 'command=sleep 30; true' --samples 1 --deadline 1
is "$(rc_of exec-deadline)" 3 "exec past its deadline exits 3 (timeout)"
check "exec past its deadline leaves no copy running" none_left

# With the agent killed, each copy dies with the trial (exec keeps PDEATHSIG).
env FM_T130_MARK="$MARK" "$AGENT" run exec copies=2 'command=exec sleep 30' --samples 1 \
	>"$WORK/kill-e.out" 2>&1 </dev/null &
apid=$!
bg+=("$apid")
check "exec: agent, trial and two copies run" wait_marked 4
{ kill -9 "$apid" && wait "$apid"; } 2>/dev/null	# quietly: bash reports killed jobs
check "killing the agent with SIGKILL ends the exec copies" none_left

# The next agent sweeps the scratch directories of the killed ones.
run_agent final exec command=true --samples 1
is "$(rc_of final)" 0 "a last run succeeds"
check "no process is left at the end" none_left
check "nothing is left in TMPDIR at the end" tmpdir_empty

done_testing
