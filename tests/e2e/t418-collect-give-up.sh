#!/usr/bin/env bash
# t418-collect-give-up: `collect --give-up HOST` ends the wait for a host
# that never comes back.  A detached run of two hosts, one this machine
# (its agent runs the list) and one that refuses every connection (a board
# that is gone): collect --give-up records the gone host's unfinished
# trials as agent-lost without reaching it, leaves the run detached while
# the other host's agent still runs, and no later collect reaches the
# given-up host again; the run finishes when the other host is done.  Bad
# --give-up arguments are refused with exit 2 and change nothing.  Once
# the host is back, `run --resume` of the finished run runs its trials.
# cost: 15 s, timed
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_tools jq
WORK=$(mktemp -d /tmp/t418.XXXXXX)
trap 'kill_noted; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
export FLEETMARK_LEASE_FILE=$WORK/lease

fleet() { fleet_local "$WORK/fleet.yaml" "$WORK/wd" "  gone:
$1"; }
fleet "    address: 127.0.0.1
    port: 1
    connect_timeout: 2s"
cat >"$WORK/plan.yaml" <<'P'
name: giveup
repeat: 3
samples: 1
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 1"
P
# failed trial lines of HOST in FILE, by class
classes() { jq -r --arg h "$2" 'select(.host == $h and .part == 1 and .status != "ok") | .status' "$1" | sort | uniq -c | awk '{print $2 ":" $1}' | xargs; }

"$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/fleet.yaml" -o "$WORK/r" --detach -q >"$WORK/d.out" 2>"$WORK/d.err"
is "$?" 3 "run --detach with a host that refuses connections: exit 3"
D=$(run_dir "$WORK/r")
pid=$(detached_pid "$D" local)
is "$(jq -r '.status + " " + .hosts.local.status + " " + .hosts.gone.status' "$D/run.json")" \
	"detached running failed" "the run is detached, this machine runs its list, the gone host failed"

# --- refusals change nothing ----------------------------------------------------------
sum0=$(cat "$D/run.json" "$D/trials.jsonl" | md5sum)
"$FLEETMARK" collect "$D" --give-up nosuch -q >"$WORK/bad1.out" 2>"$WORK/bad1.err"
is "$?" 2 "--give-up of a host not in the inventory: exit 2"
like "$(cat "$WORK/bad1.err")" "nosuch" "... naming it"
fleet "    address: 127.0.0.1
    port: 1
    connect_timeout: 2s
  other:
    transport: local"
"$FLEETMARK" collect "$D" -f "$WORK/fleet.yaml" --give-up other -q >"$WORK/bad2.out" 2>"$WORK/bad2.err"
is "$?" 2 "--give-up of a host that is not the run's: exit 2"
like "$(cat "$WORK/bad2.err")" "host 'other' is not one of the run's" "... saying so"
"$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/fleet.yaml" -o "$WORK/r2" --give-up gone -q \
	>"$WORK/bad3.out" 2>"$WORK/bad3.err"
is "$?" 2 "run --give-up without --resume: exit 2"
check "... and no run directory is made" test ! -e "$WORK/r2"
is "$(cat "$D/run.json" "$D/trials.jsonl" | md5sum)" "$sum0" "the refusals left the run as it was"

# --- give the gone host up while the other still runs -----------------------------------
"$FLEETMARK" collect "$D" --give-up gone -q >"$WORK/g.out" 2>"$WORK/g.err"
rc=$?
if kill -0 "$pid" 2>/dev/null; then
	is "$rc" 5 "collect --give-up gone while this machine's agent runs: exit 5 (not finished)"
	is "$(jq -r '.status + " " + .hosts.gone.detached.state' "$D/run.json")" "detached given-up" \
		"run.json: still detached, the gone host given-up"
else
	is "$rc" 3 "collect --give-up gone after this machine's agent finished: exit 3"
	skip "run.json: still detached, the gone host given-up" "the agent finished before the give-up (a slow machine)"
fi
is "$(classes "$D/trials.jsonl" gone)" "agent-lost:3" \
	"the gone host's 3 trials failed agent-lost (run --detach recorded nothing for it)"
like "$(jq -r .hosts.gone.reason "$D/run.json")" "^agent-lost: given up \(collect --give-up\)" \
	"its reason in run.json"
like "$(cat "$D/logs/gone.log")" "given up: 3 trials no agent finished are recorded as lost" \
	"its log says it was given up"

# the agent's list takes about 3 s; then one collect finishes the run
# shellcheck disable=SC2317 # called through wait_for
agent_gone() { ! kill -0 "$pid" 2>/dev/null; }
wait_for 300 agent_gone
"$FLEETMARK" collect "$D" -q >"$WORK/w.out" 2>"$WORK/w.err"
is "$?" 3 "collect once this machine's agent is done: the run finishes (exit 3: the gone host's trials failed)"
is "$(jq -r '.status + " " + .hosts.local.status + " " + .hosts.gone.status + " " + .hosts.gone.detached.state' "$D/run.json")" \
	"finished done failed given-up" "run.json: finished, the given-up host stays given-up"
is "$(classes "$D/trials.jsonl" gone)" "agent-lost:3" "the later collect recorded nothing for it"
is "$(grep -c 'Connection refused' "$D/logs/gone.log")" 1 \
	"... and did not try it: one refused connection in its log, run --detach's"
is "$(jq -r 'select(.host == "local" and .part == 1 and .status == "ok") | .key' "$D/trials.jsonl" | sort -u | wc -l)" 3 \
	"this machine's 3 trials are in, once each"

# --- the host is back: run --resume of the finished run runs its trials ------------------
fleet "    transport: local
    workdir: $WORK/wd2"
"$FLEETMARK" run --resume "$D" -f "$WORK/fleet.yaml" -H gone -q >"$WORK/back.out" 2>"$WORK/back.err"
is "$?" 0 "run --resume -H gone once it is back: exit 0"
is "$(jq -r 'select(.host == "gone" and .part == 1 and .status == "ok") | .key' "$D/trials.jsonl" | sort -u | wc -l)" 3 \
	"... its 3 trials ran"

done_testing
