#!/usr/bin/env bash
# t415-run-detach-lab: a detached run on the lab's hosts.  The controller
# is SIGKILLed right after every host took its list; the hosts' leases say
# detached (hosts --check, and a second run fails a held host at once,
# class locked); one host is rebooted mid-run and one partitioned while
# collect runs (it records nothing for it and exits 5), then healed;
# collect again until the run is finished: every trial of every host is
# in trials.jsonl exactly once, the rebooted host's unfinished trials were
# run again, and the hosts' journal directories are gone.
# cost: 40 s, waiting; lab: all
# shellcheck disable=SC2317 # functions called through check
TNAME=t415
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq

use_lab "$TNAME"
L=$LABDIR
SEL=()
for h in "${HOSTS[@]}"; do [[ $h == lab-0[1-8] ]] && SEL+=("$h"); done
if [ "${#SEL[@]}" -lt 5 ]; then echo "Bail out! the lab has fewer than 5 of lab-01..lab-08"; exit 1; fi
HL=$(IFS=,; echo "${SEL[*]}")
PART=lab-03 BOOT=lab-05
NT=8	# trials per host

plan_syscall "$WORK/plan.yaml" detachlab 4 1 "sleep 3"
plan_syscall "$WORK/other.yaml" other 1 1

# --- detach, and the controller SIGKILLed ----------------------------------------------

"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "$HL" -o "$WORK/r" --detach -q \
	>"$WORK/d.out" 2>"$WORK/d.err" &
ctl=$!
R=''
handed=0
for i in $(seq 1 3000); do
	[ -n "$R" ] || R=$(run_dir "$WORK/r")
	if [ -n "$R" ] && [ -s "$R/run.json" ]; then
		handed=$(jq -r '[.hosts[] | select(.detached.state == "running")] | length' "$R/run.json" 2>/dev/null)
		[ "${handed:-0}" -ge "${#SEL[@]}" ] && break
	fi
	kill -0 "$ctl" 2>/dev/null || break
	sleep 0.02
done
if kill -KILL "$ctl" 2>/dev/null; then diag "controller SIGKILLed"; else diag "the controller had returned"; fi
wait "$ctl" 2>/dev/null
is "$handed" "${#SEL[@]}" "every host took its list of $NT trials"
ID=${R##*/}
is "$(jq -r '.detached' "$R/run.json")" true "run.json says detached"

"$FLEETMARK" hosts -f "$L/fleet.yaml" -H lab-01 --check >"$WORK/check.out" 2>&1
like "$(cat "$WORK/check.out")" "lab-01: held by [^ ]+ \\(detached run $ID, since " \
	"hosts --check: the host is held by the detached run"
t0=$(date +%s)
"$FLEETMARK" run "$WORK/other.yaml" -f "$L/fleet.yaml" -H lab-01 -o "$WORK/o" -q >/dev/null 2>&1
rc=$?
t1=$(date +%s)
O=$(run_dir "$WORK/o")
is "$rc $(jq -r '.hosts["lab-01"].status' "$O/run.json")" "3 failed" "a second run fails the held host"
like "$(jq -r '.hosts["lab-01"].reason' "$O/run.json")" "^locked: locked by [^ ]+ \\(detached run $ID" \
	"class locked, naming the detached run"
like "$((t1 - t0))" '^([0-9]|1[0-2])$' "at once, not after the 15 s an agent about to go gets ($((t1 - t0)) s)"

# --- a reboot mid-run --------------------------------------------------------------

J=/tmp/fleetmark/runs/$ID/journal.jsonl
ends() { on_host "$1" "grep -c '\"type\":\"end\"' $J 2>/dev/null || echo 0"; }
one_ended() { [ "$(ends "$BOOT")" -ge 1 ]; }
wait_for 300 one_ended
before=$(ends "$BOOT")
fault reboot "$BOOT" 2 --wait >/dev/null 2>&1
check "$BOOT rebooted mid-run (after $before of $NT trials)" test "$before" -lt "$NT"

# --- a partition while collect runs ------------------------------------------------

fault partition "$PART" >/dev/null 2>&1
"$FLEETMARK" collect "$R" -q >"$WORK/c1.out" 2>&1
is "$?" 5 "collect with $PART partitioned: exit 5, not finished"
is "$(jq -r '.status' "$R/run.json")" detached "run.json still detached"
is "$(jq -r --arg h "$PART" 'select(.host == $h) | .kind' "$R/trials.jsonl" | grep -c infrastructure)" 0 \
	"nothing recorded for the host that was not reached"
like "$(jq -r --arg h "$PART" '.hosts[$h].reason' "$R/run.json")" "connect" "its reason says why"
"$LAB" heal "$PART" >/dev/null 2>&1

# --- collect until it is finished ------------------------------------------------

rc=5
for i in $(seq 1 40); do
	"$FLEETMARK" collect "$R" -q >"$WORK/c2.out" 2>&1
	rc=$?
	[ "$rc" = 5 ] || break
	sleep 2
done
is "$rc" 0 "collect again until the run is finished: exit 0"
is "$(jq -r '.status' "$R/run.json")" finished "run.json: finished"
is "$(jq -r '[.hosts[].status] | unique | join(",")' "$R/run.json")" "done" "every host done"
T=$R/trials.jsonl
is "$(trials_once "$T")" "$((NT * ${#SEL[@]})) 1" \
	"every trial of every host is there, exactly once (counted by host and key)"
is "$(jq -r .status "$T" | sort -u | xargs)" ok "all ok"
is "$(jq -r --arg h "$BOOT" '.hosts[$h].detached.state' "$R/run.json")" gone \
	"$BOOT: its detached agent is gone (the reboot)"
like "$(grep 'no agent finished' "$R/logs/$BOOT.log")" "[1-9] trials? no agent finished" \
	"$BOOT: the trials it did not finish were run again on collect"
left=''
for h in "${SEL[@]}"; do
	on_host "$h" "test -e /tmp/fleetmark/runs/$ID" && left="$left $h"
done
is "$left" "" "no host keeps the run's journal directory"
check "report.txt written" test -s "$R/report.txt"

done_testing
