#!/usr/bin/env bash
# t100-agent-core: the agent's commands, wire format, deadlines, stdin EOF,
# serve mode and its hygiene (docs/agent.md), on this machine.
# cost: 15 s, timed
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_agent
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
MARK=FM_T100_$$
export "$MARK=1"

# --- list: every benchmark of docs/agent.md, each described completely -----------
"$AGENT" list --json >"$W/list" 2>"$W/err"
check "list --json exits 0" test $? -eq 0
check "list output is JSON lines" jq_all "$W/list"
for b in lat_syscall lat_select lat_sig lat_proc lat_ctx lat_pipe lat_unix lat_udp \
	lat_tcp lat_connect lat_fs lat_mmap lat_pagefault pagefault bw_pipe bw_unix bw_tcp \
	bw_file_rd bw_mmap_rd bw_mem munmap page_fault1 page_fault2 page_fault3 tlb_flush1 \
	tlb_flush2 tlb_flush3 mmap1 mmap2 exec spin lmbench; do
	n=$(jq -r --arg b "$b" 'select(.name == $b) | .name' "$W/list" | wc -l)
	is "$n" 1 "list names $b once"
done
bad=$(jq -r 'select(.suite == null) | select((.metrics | length) == 0
	or any(.metrics[]; .unit == "" or (.direction | IN("lower","higher") | not))
	or any(.params[]; .default == null or .help == "")) | .name' "$W/list")
is "$bad" "" "every benchmark declares metrics with units and directions, params with defaults"
bad=$(jq -r 'select(.summary == "placeholder" or .summary == "") | .name' "$W/list")
is "$bad" "" "no benchmark is a placeholder"
members=$(jq -r 'select(.name == "lmbench") | .suite[].bench' "$W/list" | sort -u | tr '\n' ' ')
for m in $members; do
	grep -q "\"name\":\"$m\"" "$W/list"
	tap_result $? "lmbench suite member $m is a registered benchmark"
done
"$AGENT" list | grep -q "^munmap - "
check "list without --json prints a readable table" test $? -eq 0

# --- env --------------------------------------------------------------------
"$AGENT" env --json >"$W/env"
check "env --json is one JSON line" test "$(jq -c . "$W/env" | wc -l)" -eq 1
check "env names kernel, cpus, memory, page size, arch" jq -e \
	'.uname.release != "" and .cpus >= 1 and .mem_kb > 0 and .page_size >= 4096
	 and .arch == "x86_64" and .proto == 6 and (.loadavg | length) == 3
	 and (.vulnerabilities | type) == "object" and has("thp") and has("compiler")' "$W/env"
is "$(jq -r .uname.release "$W/env")" "$(uname -r)" "env kernel release is uname -r"

# --- run: bad usage ---------------------------------------------------------
"$AGENT" run nosuch >/dev/null 2>"$W/err"
is "$?" 2 "unknown benchmark exits 2"
like "$(cat "$W/err")" "unknown benchmark 'nosuch'" "and says which"
"$AGENT" run lat_syscall opp=null >/dev/null 2>"$W/err"
is "$?" 2 "misspelt parameter exits 2"
like "$(cat "$W/err")" "did you mean 'op'" "with a suggestion"
"$AGENT" run lat_syscall op=bogus >/dev/null 2>"$W/err"
is "$?" 2 "bad enum value exits 2"
"$AGENT" run spin --samples 0 >/dev/null 2>&1
is "$?" 2 "--samples 0 exits 2"

# --- run: one trial ---------------------------------------------------------
"$AGENT" run lat_syscall op=stat --samples 5 >"$W/run" </dev/null
is "$?" 0 "run lat_syscall op=stat exits 0"
check "run output is JSON lines" jq_all "$W/run"
is "$(jq -r .type "$W/run" | tr '\n' ' ')" "header metric end " "header, metric, end"
check "metric has 5 raw samples and a median inside them" lines_ok "$W/run" metric \
	'(.samples | length) == 5 and .count == 5 and
	 .min <= .value and .value <= .max and .unit == "us" and .direction == "lower"'
check "header carries the resolved parameters" lines_ok "$W/run" header '.params.op == "stat"' 

# --- deadline: the agent stops by itself and leaves nothing ------------------
start=$(date +%s%N)
"$AGENT" run exec command='sleep 30' copies=2 --deadline 1 --samples 1 >"$W/dl" </dev/null
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
is "$rc" 3 "a trial past its deadline exits 3"
check "within 2.5 s of a 1 s deadline (took ${ms} ms)" test "$ms" -lt 2500
is "$(jq -r 'select(.type == "end") | .status' "$W/dl")" "timeout" "end line says timeout"
is "$(jq -r 'select(.type == "error") | .class' "$W/dl")" "timeout" "error line class timeout"
is "$(procs_with_mark "$MARK")" "" "no process left after the deadline"
is "$(ls -A "$TMPDIR")" "" "no scratch file left after the deadline"

# --- stdin EOF: the agent stops when its controller goes away -----------------
start=$(date +%s%N)
(sleep 1) | "$AGENT" run exec command='sleep 30' copies=2 --deadline 60 --samples 1 >"$W/eof"
rc=${PIPESTATUS[1]}
ms=$((($(date +%s%N) - start) / 1000000))
is "$rc" 4 "closed stdin exits 4"
check "within 1 s of stdin closing (took ${ms} ms for 1 s + stop)" test "$ms" -lt 2000
is "$(jq -r 'select(.type == "end") | .status' "$W/eof")" "cancelled" "end line says cancelled"
is "$(procs_with_mark "$MARK")" "" "no process left after stdin closed"
is "$(ls -A "$TMPDIR")" "" "no scratch file left after stdin closed"

# --- a crashing trial is reported as such -------------------------------------
# shellcheck disable=SC2016 # expanded by the trial's shell
"$AGENT" run exec command='kill -SEGV $PPID; sleep 5' --samples 1 >"$W/crash" </dev/null
rc=$?
check "a trial process killed by a signal fails (exit $rc)" test "$rc" -ne 0
like "$(jq -r 'select(.type == "error") | .class + ": " + .message' "$W/crash")" \
	"agent-crash: .*signal 11" "and is classed agent-crash with the signal"

# --- serve: many trials, one process, a fresh child per trial ----------------
# The control stream stays open until the agent says bye, as a controller's
# channel does (EOF means the controller is gone and cancels the work).
mkfifo "$W/ctl1"
"$AGENT" serve <"$W/ctl1" >"$W/serve" 2>"$W/serve.err" &
apid=$!
exec 7>"$W/ctl1"
{
	echo '{"type":"list","id":"l"}'
	echo '{"type":"env","id":"e"}'
	echo '{"type":"trial","id":"a","bench":"lat_syscall","params":{"op":"null"},"samples":3}'
	echo '{"type":"trial","id":"b","bench":"spin","params":{"work":1,"extra":"5"},"samples":3}'
	echo 'this is not json'
	echo '{"type":"dance","id":"x"}'
	echo '{"type":"trial","id":"c","bench":"nosuch"}'
	echo '{"type":"trial","id":"d","bench":"spin","params":{"wrok":1}}'
	echo '{"type":"trial","id":"f","bench":"lat_syscall","params":{"op":"write"},"samples":3}'
	echo '{"type":"exit"}'
} >&7
wait "$apid"
rc=$?
exec 7>&-
is "$rc" 0 "serve exits 0 on an exit request"
check "serve output is JSON lines" jq_all "$W/serve"
check "first line is hello with the protocol version" \
	test "$(head -1 "$W/serve" | jq -c '[.type, .proto]')" = '["hello",6]'
is "$(tail -1 "$W/serve" | jq -r .type)" "bye" "last line is bye"
is "$(jq -r 'select(.type == "end" and .id != null) | .id + "=" + .status' "$W/serve" | tr '\n' ' ')" \
	"l=ok a=ok b=ok x=bad-request c=bad-request d=bad-request f=ok " "every request ends, good and bad, in order"
hello_pid=$(head -1 "$W/serve" | jq .pid)
pids=$(jq -r 'select(.type == "header") | .pid' "$W/serve" | sort -u | wc -l)
is "$pids" 3 "each trial ran in its own process"
check "none of them in the serving process" test -z "$(jq -r "select(.type == \"header\" and .pid == $hello_pid)" "$W/serve")"
like "$(jq -r 'select(.type == "error" and .id == "d") | .message' "$W/serve")" "did you mean 'work'" \
	"a misspelt parameter in a request gets a suggestion"
check "a non-JSON request gets an error line" jq -e -s 'any(.[]; .type == "error" and (.message | test("not JSON")))' "$W/serve"
is "$(jq -r 'select(.type == "env") | .id' "$W/serve")" "e" "env request answered with its id"

# --- serve: closing stdin mid-trial stops everything within a second -----------
fifo=$W/ctl
mkfifo "$fifo"
"$AGENT" serve <"$fifo" >"$W/serve2" 2>/dev/null &
apid=$!
exec 7>"$fifo"
echo '{"type":"trial","id":"long","bench":"exec","params":{"command":"sleep 30","copies":2},"samples":1,"deadline":60}' >&7
for _ in $(seq 50); do
	grep -q '"header"' "$W/serve2" && break
	sleep 0.1
done
sleep 0.3
start=$(date +%s%N)
exec 7>&-
wait "$apid"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
is "$rc" 0 "serve exits 0 when its control stream closes"
check "within a second of the close (took ${ms} ms)" test "$ms" -lt 1000
is "$(jq -r 'select(.type == "end") | .status' "$W/serve2")" "cancelled" "the running trial ends cancelled"
is "$(procs_with_mark "$MARK")" "" "no process left after serve stopped"
is "$(ls -A "$TMPDIR")" "" "no scratch file left after serve stopped"

# --- scratch directories of a killed agent are swept by the next one -----------
mkdir -p "$TMPDIR/fleetmark-trial.999999999.abcdef/sub"
"$AGENT" run lat_syscall --samples 1 >/dev/null </dev/null
is "$(ls -A "$TMPDIR")" "" "a dead agent's scratch directory is removed at the next start"

# --- a host without loopback networking: those members say so, the rest run ---
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
	unshare -n "$AGENT" run lmbench --samples 1 >"$W/nonet" </dev/null
	is "$?" 0 "lmbench in a namespace without loopback still succeeds"
	is "$(jq -r 'select(.type == "error") | .class' "$W/nonet" | sort -u)" "unsupported" \
		"the loopback members fail as unsupported, with a reason"
	is "$(jq -s '[.[] | select(.type == "error")] | length' "$W/nonet")" 5 \
		"exactly the five that need 127.0.0.1 (select tcp, udp, tcp, connect, bw_tcp)"
	check "every other member reports its metrics" lines_ok "$W/nonet" metric '.count == 1'
	is "$(jq -s '[.[] | select(.type == "header")] | length' "$W/nonet")" 38 "all 38 members ran"
else
	skip "lmbench without loopback networking" "needs root for unshare -n"
fi

done_testing
