#!/usr/bin/env bash
# t403-run-resume: a controller SIGKILLed in the middle of a lab run
# leaves a run directory that says "running" and whose trials.jsonl holds
# only whole trials; the agents it left on the hosts notice (their input
# closes) and exit; `--resume` runs exactly the trials without an ok line
# and appends to the same trials.jsonl, which ends with exactly one ok line
# per (host, trial, metric); --dry-run shows those trials first without
# touching the run, and so does a --resume with another plan (refused).
# The resume names no plan: run.json's is read.  A second --resume finds
# nothing to do.
# cost: 12 s, busy; lab: lab-01 lab-02 lab-db board-armhf
# shellcheck disable=SC2317 # functions called through trap
TNAME=t403
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR

agents_on() { local p n=0; for p in $(ip netns pids "fmlab-$1" 2>/dev/null); do
	grep -q '^fleetmark-agent' "/proc/$p/comm" 2>/dev/null && n=$((n + 1)); done; echo "$n"; }

cat >"$WORK/plan.yaml" <<'P'
name: resumable
repeat: 6
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.1"
      copies: 1
  - bench: lat_syscall
P
H=lab-01,lab-02,lab-db,board-armhf
NT=$((4 * 2 * 6))
"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "$H" -o "$WORK/r" >"$WORK/r1.out" 2>"$WORK/r1.err" &
pid=$!
for _ in $(seq 300); do
	T=$(run_dir "$WORK/r")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .host + .key' "$T" | sort -u | wc -l)" -ge 12 ] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
D=$(run_dir "$WORK/r")
T=$D/trials.jsonl
n1=$(jq -r 'select(.status == "ok") | .host + " " + .key' "$T" | sort -u | wc -l)
is "$(jq -r .status "$D/run.json")" running "killed: run.json still says running"
[ "$n1" -ge 12 ] && [ "$n1" -lt "$NT" ]
tap_result $? "... with $n1 of $NT trials done"
check "... trials.jsonl holds whole JSON lines only" jq_all "$T"
left=''
for _ in $(seq 50); do
	left=''
	for h in lab-01 lab-02 lab-db; do [ "$(agents_on "$h")" = 0 ] || left="$left $h"; done
	[ -z "$left" ] && break
	sleep 0.1
done
is "${left# }" "" "the agents left behind exit once their input closes"

cp "$D/run.json" "$WORK/run.json.before"
cp "$T" "$WORK/trials.before"
"$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" --dry-run >"$WORK/dry.out" 2>&1
is "$? $(grep -c ' rep [0-9]' "$WORK/dry.out") $(tail -1 "$WORK/dry.out")" "0 $((NT - n1)) total: $((NT - n1)) trials to run" \
	"--resume --dry-run lists the $((NT - n1)) trials a resume would run"
check "... and leaves run.json as it was" cmp -s "$D/run.json" "$WORK/run.json.before"
"$FLEETMARK" run "$TOP/plans/smoke.yaml" --resume "$D" >/dev/null 2>"$WORK/other.err"
is "$?" 2 "--resume with another plan: exit 2"
same_as_before() { cmp -s "$D/run.json" "$WORK/run.json.before" && cmp -s "$T" "$WORK/trials.before"; }
check "... and leaves run.json and trials.jsonl as they were" same_as_before

t0=$(date +%s%N)
"$FLEETMARK" run --resume "$D" >"$WORK/r2.out" 2>"$WORK/r2.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 0 "--resume RUN alone exits 0 (${ms} ms; the plan and the fleet file are taken from run.json)"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/r2.err" | tail -20
is "$(jq -r '.status + " " + (.resumed | length | tostring)' "$D/run.json")" "finished 1" "run.json: finished, resumed once"
is "$(ok_per_trial "$T")" "1 $NT" "exactly one ok line per (host, trial, metric), all $NT trials"
n2=$(grep -c 'trial ' "$WORK/r2.err")
is "$n2" "$((NT - n1))" "--resume ran exactly the $((NT - n1)) trials without an ok line"
is "$(jq -r '[.hosts[] | .ok] | add' "$D/run.json")" "$NT" "run.json counts $NT ok trials"
like "$(grep '^lab-01 ' "$WORK/r2.out")" '^lab-01 +done +[0-9]+ +0 +[1-9][0-9]* ' "the summary shows the trials skipped"

"$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" >"$WORK/r3.out" 2>"$WORK/r3.err"
is "$? $(ok_per_trial "$T")" "0 1 $NT" "a second --resume has nothing left to run and adds nothing"

done_testing
