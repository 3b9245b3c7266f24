#!/usr/bin/env bash
# tests/bench/detach-lmbench.sh: the detached run of docs/detached.md at
# full size: plans/lmbench.yaml on 8 lab hosts with `run --detach`, the
# controller SIGKILLed right after every host took its list, one host
# (lab-03) partitioned for a while, one (lab-05) rebooted mid-run, then
# `collect` again and again until the run is finished.  Prints the times
# (hand-over, the hosts' run, each collect), the trials gathered from the
# hosts' journals and run again on collect, and whether every trial is in
# trials.jsonl exactly once.
#
#   tests/bench/detach-lmbench.sh       (root; brings up its own lab and
#                                        takes it down: run it under
#                                        flock /run/lock/fleetmark-labrun.lock)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
PLAN=${PLAN:-$TOP/plans/lmbench.yaml}
[ "$(id -u)" -eq 0 ] || { echo "detach-lmbench.sh: needs root (the lab)" >&2; exit 2; }
command -v jq >/dev/null || { echo "detach-lmbench.sh: needs jq" >&2; exit 2; }
LAB=$TOP/tests/lab/lab
export FLEETMARK_LAB_DIR=/run/fleetmark-lab
L=$FLEETMARK_LAB_DIR
W=$(mktemp -d /tmp/detach-lmbench.XXXXXX)
trap '"$LAB" down >/dev/null 2>&1; rm -rf "$W"' EXIT
"$LAB" up -n 8 --boards none >"$W/up.log" 2>&1 || { cat "$W/up.log"; exit 1; }
HL=lab-01,lab-02,lab-03,lab-04,lab-05,lab-06,lab-07,lab-08
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(now)
"$FLEETMARK" run "$PLAN" -f "$L/fleet.yaml" -H "$HL" -o "$W/r" --detach -q >"$W/d.out" 2>&1 &
ctl=$!
R=''
for _ in $(seq 1 6000); do
	[ -n "$R" ] || R=$(find "$W/r" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | head -1)
	[ -n "$R" ] && [ "$(jq -r '[.hosts[] | select(.detached.state == "running")] | length' \
		"$R/run.json" 2>/dev/null)" = 8 ] && break
	kill -0 "$ctl" 2>/dev/null || break
	sleep 0.02
done
t1=$(now)
if kill -KILL "$ctl" 2>/dev/null; then killed="SIGKILLed"; else killed="had returned"; fi
wait "$ctl" 2>/dev/null
ID=${R##*/}
echo "hand-over of $(jq -r '[.hosts[].detached.trials] | add' "$R/run.json") trials to 8 hosts: $(secs "$t0" "$t1") s; the controller $killed"
J=/tmp/fleetmark/runs/$ID/journal.jsonl
ends() { "$LAB" ssh "$1" "grep -c '\"type\":\"end\"' $J 2>/dev/null || echo 0" </dev/null 2>/dev/null; }
until [ "$(ends lab-05)" -ge 10 ]; do sleep 1; done
echo "lab-05 rebooted after $(ends lab-05) of 114 trials"
"$LAB" reboot lab-05 3 --wait >/dev/null 2>&1
"$LAB" partition lab-03 >/dev/null 2>&1
tc=$(now)
"$FLEETMARK" collect "$R" -q >"$W/c0.out" 2>&1
echo "collect with lab-03 partitioned: exit $?, $(secs "$tc" "$(now)") s, $(jq -r 'select(.part == 1) | .key' "$R/trials.jsonl" | wc -l) trials gathered"
"$LAB" heal lab-03 >/dev/null 2>&1
n=1
while :; do
	tc=$(now)
	"$FLEETMARK" collect "$R" -q >"$W/c$n.out" 2>&1
	rc=$?
	echo "collect $n: exit $rc, $(secs "$tc" "$(now)") s, $(jq -r 'select(.part == 1) | .key' "$R/trials.jsonl" | wc -l) trials in trials.jsonl"
	[ "$rc" = 5 ] || break
	n=$((n + 1))
	sleep 20
done
t2=$(now)
echo "run finished $(secs "$t0" "$t2") s after run --detach: status $(jq -r .status "$R/run.json")"
jq -r '.hosts | to_entries[] | "  \(.key): \(.value.status), agent \(.value.detached.state), \(.value.ok) ok, \(.value.failed) failed"' "$R/run.json"
echo "trials (host, key): $(jq -r 'select(.part == 1) | .host + " " + .key' "$R/trials.jsonl" | sort -u | wc -l) distinct, $(jq -r 'select(.part == 1) | .host + " " + .key' "$R/trials.jsonl" | sort | uniq -d | wc -l) more than once"
echo "lab-05: $(grep -o '[0-9]* trials* no agent finished' "$R/logs/lab-05.log")"
for h in lab-01 lab-02 lab-03 lab-04 lab-05 lab-06 lab-07 lab-08; do
	"$LAB" ssh "$h" "test -e /tmp/fleetmark/runs/$ID" </dev/null 2>/dev/null && echo "$h keeps its journal directory"
done
head -30 "$R/report.txt"
