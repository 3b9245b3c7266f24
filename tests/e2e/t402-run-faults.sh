#!/usr/bin/env bash
# t402-run-faults: faults during `fleetmark run` stop only the host they
# hit.  A changed host key stops that host before anything runs, with
# OpenSSH's message, while the others finish (exit 3); a host killed in
# the middle of a run, one that hangs (SIGSTOP: no more lines, not even
# heartbeats) and one partitioned (packets dropped) are given up (their
# trials failed, kind infrastructure) while the others finish, and the run
# takes the slowest host's time, not a sum.  Every fault is healed
# afterwards.
# cost: 19 s, waiting; lab: all
# shellcheck disable=SC2317 # functions called through trap
TNAME=t402
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR

# --- a changed host key --------------------------------------------------------

cat >"$WORK/small.yaml" <<'P'
name: small
repeat: 2
samples: 3
timeout: 60s
benchmarks:
  - bench: lat_syscall
P
fault rekey lab-03
"$FLEETMARK" run "$WORK/small.yaml" -f "$L/fleet.yaml" -H lab-01,lab-02,lab-03,lab-db -o "$WORK/rk" \
	>"$WORK/rk.out" 2>"$WORK/rk.err"
rc=$?
D=$(run_dir "$WORK/rk")
is "$rc" 3 "rekeyed lab-03: exit 3"
is "$(jq -r '[.hosts | to_entries[] | .key + ":" + .value.status] | join(" ")' "$D/run.json")" \
	"lab-01:done lab-02:done lab-03:failed lab-db:done" "run.json: lab-03 failed, the others done"
like "$(jq -r '.hosts["lab-03"].reason' "$D/run.json")" \
	'^hostkey: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! host key for lab-03 \(198\.18\.1\.3\) has changed' \
	"... with OpenSSH's message as the reason"
is "$(jq -r 'select(.host == "lab-03") | .status + " " + .kind' "$D/trials.jsonl" | sort | uniq -c | xargs)" \
	"2 hostkey infrastructure" "lab-03's 2 trials: status hostkey, kind infrastructure"
is "$(jq -r 'select(.host != "lab-03" and .status == "ok") | .host' "$D/trials.jsonl" | sort | uniq -c | xargs)" \
	"2 lab-01 2 lab-02 2 lab-db" "the others ran all their trials"
like "$(grep '^lab-03 ' "$WORK/rk.out")" "^lab-03 +failed +0 +2 +0 +hostkey: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED" \
	"the summary shows lab-03 failed and why"
"$LAB" heal lab-03

# --- killed and hung in the middle of a run ---------------------------------------

cat >"$WORK/long.yaml" <<'P'
name: long
repeat: 8
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
      copies: 1
P
_lab_touched+=(lab-05 lab-06 lab-08)
t0=$(date +%s%N)
FLEETMARK_SILENCE_MS=4000 "$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet.yaml" -H lab-04,lab-05,lab-06,lab-07,lab-08 \
	-o "$WORK/k" >"$WORK/k.out" 2>"$WORK/k.err" &
pid=$!
# Wait until lab-05, lab-06 and lab-08 have finished some trials.
for _ in $(seq 300); do
	T=$(run_dir "$WORK/k")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .host' "$T" | grep -cE '^lab-0[568]$')" -ge 6 ] && break
	sleep 0.1
done
"$LAB" kill lab-05
"$LAB" hang lab-06
"$LAB" partition lab-08
wait "$pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
D=$(run_dir "$WORK/k")
T=$D/trials.jsonl
is "$rc" 3 "lab-05 killed, lab-06 hung and lab-08 partitioned mid-run: exit 3 (${ms} ms)"
[ "$ms" -lt 25000 ]
tap_result $? "the run did not wait for the dead hosts (${ms} ms; 8 trials take about 7 s, silence limit 4 s)"
is "$(jq -r '[.hosts | to_entries[] | .key + ":" + .value.status] | join(" ")' "$D/run.json") $(jq -r .status "$D/run.json")" \
	"lab-04:done lab-05:failed lab-06:failed lab-07:done lab-08:failed finished" "run.json: the killed, hung and partitioned hosts failed, the others done"
is "$(jq -r 'select(.host == "lab-04" or .host == "lab-07") | select(.status == "ok") | .host + " " + .key' "$T" | sort -u | wc -l)" \
	16 "lab-04 and lab-07 ran all 8 trials each"
for h in lab-05 lab-06 lab-08; do
	is "$(jq -r --arg h "$h" 'select(.host == $h) | .key' "$T" | sort -u | wc -l)" 8 "$h: each of its 8 trials has a line"
	is "$(jq -r --arg h "$h" 'select(.host == $h and .status != "ok") | .kind' "$T" | sort -u | xargs)" "infrastructure" \
		"$h: its failures are kind infrastructure"
	like "$(jq -r --arg h "$h" 'select(.host == $h and .status != "ok") | .status' "$T" | sort -u | xargs)" \
		"^agent-lost connect$" "$h: the trial in flight agent-lost, the rest connect"
done
like "$(jq -r '.hosts["lab-05"].reason' "$D/run.json")" "^agent-lost: (the agent's output ended|the agent (exited|was killed)|lab-05: connection lost)" \
	"lab-05's reason: the connection ended"
like "$(jq -r '.hosts["lab-06"].reason' "$D/run.json")" "^agent-lost: nothing from the agent for 4 s" \
	"lab-06's reason: silence"
like "$(jq -r '.hosts["lab-08"].reason' "$D/run.json")" "^agent-lost: nothing from the agent for 4 s" \
	"lab-08's reason: silence"
"$LAB" heal lab-05
"$LAB" heal lab-06
"$LAB" heal lab-08

# --- healed: the same fleet runs cleanly again -----------------------------------

"$FLEETMARK" run "$WORK/small.yaml" -f "$L/fleet.yaml" -H lab-03,lab-05,lab-06,lab-08 -o "$WORK/h" >"$WORK/h.out" 2>&1
is "$?" 0 "after heal, lab-03, lab-05, lab-06 and lab-08 run again: exit 0"

done_testing
