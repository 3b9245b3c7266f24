#!/usr/bin/env bash
# t407-run-agent-faults: an agent that misbehaves on one host, in the
# middle of a variant, while two other hosts run the same plan.  The
# faults go through what the controller really deploys: for the output
# faults the "agent" of x86_64 (FLEETMARK_AGENTS) is a small wrapper that
# runs the real static agent and, on lab-07 only, replaces its 15th
# metric line with garbage, with a 100 MB line, or stops passing anything
# on (silence, heartbeats included); the signal faults kill the real
# agent's trial process (SIGSEGV) or the agent itself (SIGKILL) on the host.
# For each: exit 3; the other hosts run every trial; trials.jsonl is
# valid JSON line by line; the failure has the right status and kind (the
# agent's own output is the benchmark's fault: bad-output, agent-crash;
# an agent gone or silent is the infrastructure's: agent-lost); the write
# variant's file is back on every host; nothing is left running on lab-07;
# the controller's memory stays bounded on the 100 MB line; and --resume
# completes the run with exactly one ok line per trial.
# cost: 74 s, waiting; lab: lab-06 lab-07 lab-08
# shellcheck disable=SC2317 # functions called through trap
TNAME=t407
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run
REAL=$TOP/build/agents/x86_64/fleetmark-agent
[ -x "$REAL" ] || skip_all "no $REAL (make agents)"

use_lab "$TNAME"
L=$LABDIR
# The wrapper runs on the hosts, which mount their own /tmp, /root and
# homes: the real agent goes where they all see it, the lab's state
# directory (removed with the lab; and at the end here).
# Its name stays fleetmark-agent: agent_pid finds processes by it.
mkdir -p "$L/t407.$$"
cp "$REAL" "$L/t407.$$/fleetmark-agent"
REAL=$L/t407.$$/fleetmark-agent
FH=lab-07
RH=(lab-06 lab-07 lab-08)
TUNABLE=/tmp/fm-t407
TUNABLE_HOSTS=("${RH[@]}")
NT=$((3 * 2 * 6))

trap 'tunable_remove; _lab_cleanup' EXIT

cat >"$WORK/plan.yaml" <<'P'
name: agentfaults
repeat: 6
samples: 3
timeout: 30s
variants:
  base: {}
  tuned:
    write: { /tmp/fm-t407: "new" }
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.1"
      copies: 1
P

# wrapper MODE: a directory for FLEETMARK_AGENTS whose x86_64 agent runs
# the real one and, on $FH in serve mode, spoils the 15th metric line (the
# tuned variant's second trial: exec gives 2 metrics per trial).
wrapper() {
	mkdir -p "$WORK/ag-$1/x86_64"
	cat >"$WORK/ag-$1/x86_64/fleetmark-agent" <<W
#!/bin/bash
[ "\$1" = serve ] && [ "\$(hostname)" = $FH ] && [ $1 != none ] || exec $REAL "\$@"
$REAL "\$@" | {
	n=0
	while IFS= read -r line; do
		case \$line in *'"type":"metric"'*) n=\$((n + 1)) ;; esac
		if [ \$n -eq 15 ]; then
			case $1 in
			garbage) printf '%s\n' 'Segmentation fault (core dumped) <not JSON>' ;;
			long) head -c 100000000 /dev/zero | tr '\0' x; echo ;;
			silent) exec cat >/dev/null ;;
			esac
			n=16
			continue
		fi
		printf '%s\n' "\$line"
	done
}
W
	chmod 755 "$WORK/ag-$1/x86_64/fleetmark-agent"
	echo "$WORK/ag-$1"
}
CLEAN=$(wrapper none)

# agent_pid HOST trial|serve: the agent's serve process, or its trial
# process in the middle of a sample: a fleetmark-agent whose parent is the
# serve process and which has a child (the sample's shell; not a copy of
# the trial between its fork and exec, nor a trial that has written its
# result and is ending).  Three processes a call, whatever the load: the
# host's pids (ip netns) and the machine's process table (ps), read by
# one awk.
agent_pid() {
	local pids
	pids=$(ip netns pids "fmlab-$1" 2>/dev/null | tr '\n' ' ')
	ps -e -o pid=,ppid=,comm= | awk -v want="$2" -v pids="$pids" '
		{ pp[$1] = $2; c[$1] = $3; kids[$2]++ }
		END {
			n = split(pids, a, " ")
			for (i = 1; i <= n; i++) {
				p = a[i]
				if (c[p] != "fleetmark-agent")
					continue
				q = pp[p]
				if (c[q] == "fleetmark-agent") {
					if (want == "trial" && c[pp[q]] != "fleetmark-agent" && kids[p]) {
						print p
						exit
					}
				} else if (want == "serve") {
					print p
					exit
				}
			}
		}'
}

# fault_case NAME AGENTS STATUS KIND HOSTSTATUS REASON-RE [signal SIG trial|serve]
fault_case() {
	local name=$1 agents=$2 st=$3 kind=$4 hst=$5 re=$6 sig=${8:-} which=${9:-} pid rc D T hwm=0 p i msg
	tunable_reset
	FLEETMARK_AGENTS=$agents FLEETMARK_SILENCE_MS=4000 "$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" \
		-H lab-06,lab-07,lab-08 -o "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	if [ -n "$sig" ]; then
		# In the tuned variant's second trial or later (7 trials of lab-07
		# done: 14 ok lines, exec gives 2 metrics a trial), while the run
		# goes on.  One loop, and cheap, for a loaded machine: the five
		# trials left take about 2.5 s.
		p=
		for i in $(seq 3000); do
			kill -0 "$pid" 2>/dev/null || break
			T=$(run_dir "$WORK/$name")/trials.jsonl
			if [ -s "$T" ] && [ "$(grep -F "\"host\":\"$FH\"" "$T" | grep -cF '"status":"ok"')" -ge 14 ]; then
				p=$(agent_pid "$FH" "$which")
				[ -n "$p" ] && break
			fi
			sleep 0.02
		done
		if [ -n "$p" ]; then kill "-$sig" "$p"; else diag "no $which agent process found on $FH"; fi
	fi
	while kill -0 "$pid" 2>/dev/null; do
		i=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$i" ] && [ "$i" -gt "$hwm" ] && hwm=$i
		sleep 0.05
	done
	wait "$pid"
	rc=$?
	D=$(run_dir "$WORK/$name")
	T=$D/trials.jsonl
	is "$rc" 3 "$name: exit 3 (peak RSS $((hwm / 1024)) MB)"
	check "$name: trials.jsonl holds valid JSON lines only" jq_all "$T"
	is "$(jq -r 'select(.host != "lab-07" and .status == "ok") | .host + " " + .key' "$T" | sort -u | cut -d' ' -f1 | uniq -c | xargs)" \
		"12 lab-06 12 lab-08" "$name: lab-06 and lab-08 ran all 12 trials"
	is "$(jq -r 'select(.host == "lab-07" and .status != "ok") | .status + " " + .kind' "$T" | sort -u | head -1)" \
		"$st $kind" "$name: lab-07's failed trial: $st, kind $kind"
	msg=$(jq -r 'select(.host == "lab-07" and .status != "ok") | .message' "$T" | head -1)
	like "$msg" "$re" "$name: ... and why"
	diag "$name: $(printf '%s' "$msg" | head -c 200)"
	is "$(jq -r '.hosts["lab-07"].status' "$D/run.json")" "$hst" "$name: lab-07 $hst"
	check "$name: the variant's file is back on every host" tunable_restored
	is "$(host_procs "$FH")" "" "$name: nothing left running on lab-07"
	FLEETMARK_AGENTS=$CLEAN "$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" >"$WORK/$name.r.out" 2>"$WORK/$name.r.err"
	is "$? $(ok_per_trial "$T")" "0 1 $NT" "$name: --resume exits 0 and leaves exactly one ok line per trial"
	check "$name: ... the variant's file still back" tunable_restored
	is "$(host_procs "$FH")" "" "$name: ... and nothing left running"
	HWM=$hwm
}

fault_case garbage "$(wrapper garbage)" bad-output benchmark "done" "not JSON"
fault_case long "$(wrapper long)" bad-output benchmark "done" "longer than 65536 bytes"
if grep -qa __asan_init "$FLEETMARK"; then
	skip "long: the controller's peak RSS for a 100 MB line" "ASan's own memory ($((HWM / 1024)) MB)"
else
	[ "$HWM" -lt 100000 ]
	tap_result $? "long: the controller's peak RSS stayed under 100 MB ($((HWM / 1024)) MB) for a 100 MB line"
fi
fault_case silent "$(wrapper silent)" agent-lost infrastructure failed "nothing from the agent for 4 s"
fault_case segv "$CLEAN" agent-crash benchmark "done" "signal|SEGV|crash" signal SEGV trial
fault_case kill "$CLEAN" agent-lost infrastructure failed "killed by signal|output ended|exited" signal KILL serve

rm -rf "$L/t407.$$"
done_testing
