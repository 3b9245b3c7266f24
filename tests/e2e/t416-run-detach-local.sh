#!/usr/bin/env bash
# t416-run-detach-local: `run --detach` and `collect` on this machine (the
# local transport can detach: the agent's daemon leaves the transport's
# process group).  run --detach returns at once (exit 0, run.json
# "detached", the host's lease marked detached); collect while the agent
# runs gathers what it journaled and exits 5; collect --wait finishes the
# run with every trial exactly once and the host's journal removed (also
# when a collect took the last trial while the agent was ending).  An
# agent SIGKILLed mid-run (a torn journal line after it) has its unfinished
# trials run again by collect, and each trial is still there once; so has
# a host whose journal is gone (a wiped /tmp) all its trials.  A list cut
# short (the controller killed while sending it) starts nothing.  Plans
# that need the controller, and collect of a run that is not detached,
# are refused.
# cost: 65 s, timed
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command collect
need_tools jq
WORK=$(mktemp -d /tmp/t416.XXXXXX)
# a daemon left by a failed check: it is ours, by its pid
trap 'kill_noted; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
# this machine's lease is not the one other runs here use
export FLEETMARK_LEASE_FILE=$WORK/lease
export T416_MARK=1

fleet_local "$WORK/fleet.yaml" "$WORK/wd"
plan_syscall "$WORK/slow.yaml" detached 3 1 "sleep 1"

# --- detach, collect while it runs, collect --wait ---------------------------------

"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" -o "$WORK/r" --detach -q >"$WORK/d.out" 2>"$WORK/d.err"
is "$?" 0 "run --detach exits 0 at once"
D=$(run_dir "$WORK/r")
is "$(jq -r '[.status, (.detached|tostring), .hosts.local.status, .hosts.local.detached.state,
	(.hosts.local.detached.trials|tostring)] | join(" ")' "$D/run.json")" "detached true running running 6" \
	"run.json: detached, the host running its 6 trials detached"
pid=$(detached_pid "$D" local)
like "$pid" '^[0-9]+$' "... with the detached agent's pid"
like "$(cat "$WORK/d.out")" "fleetmark collect $D" "stdout says how to collect"
check "the detached agent runs" kill -0 "$pid"
is "$(jq -r '[.run, (.detached|tostring), (.pid|tostring)] | join(" ")' "$WORK/lease")" \
	"${D##*/} true $pid" "the host's lease: this run, detached, held by that agent"
check "its journal directory is in the host's work directory" test -d "$WORK/wd/runs/${D##*/}"

"$FLEETMARK" collect "$D" -q >"$WORK/c1.out" 2>&1
is "$?" 5 "collect while the agent runs: exit 5"
is "$(jq -r '.status + " " + .hosts.local.status' "$D/run.json")" "detached running" \
	"run.json still detached"
like "$(cat "$WORK/c1.out")" "still run their trials" "and it says so"
n1=$(jq -r 'select(.part == 1) | .key' "$D/trials.jsonl" | wc -l)

"$FLEETMARK" collect "$D" --wait -q >"$WORK/c2.out" 2>&1
is "$?" 0 "collect --wait: exit 0 once the agent is done"
is "$(jq -r '.status + " " + .hosts.local.status + " " + .hosts.local.detached.state' "$D/run.json")" \
	"finished done done" "run.json: finished, the host done"
is "$(trials_once "$D/trials.jsonl")" "6 1" "every trial exactly once (${n1} gathered by the first collect)"
is "$(jq -r .status "$D/trials.jsonl" | sort -u | xargs)" "ok" "all ok"
check "report.txt written" test -s "$D/report.txt"
check_fail "the host's journal directory is removed" test -e "$WORK/wd/runs/${D##*/}"
# It has written its last line before it exits: under load that can be a
# moment after collect saw the run done.
gone() { ! kill -0 "$pid" 2>/dev/null; }
check "the agent is gone (within 10 s)" wait_for 100 gone
is "$(cat "$WORK/lease")" "" "and the lease is given back"
"$FLEETMARK" collect "$D" >"$WORK/c3.out" 2>&1
is "$?" 0 "collect of a finished run: exit 0"
like "$(cat "$WORK/c3.out")" "nothing to collect" "... nothing to collect"
is "$(jq -r 'select(.part == 1) | .key' "$D/trials.jsonl" | wc -l)" 6 "and nothing appended"

# --- the agent done right as collect looks: its directory is removed all the same ---
# collect reads the agent's state (its lock held: running), then its
# journal, which by then has the last trial, and the agent ends a moment
# later.  Made deterministic: the agent has finished, and a holder of the
# directory's lock stands in for it while the first collect looks.

"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" -o "$WORK/e" --detach -q >/dev/null 2>&1
E=$(run_dir "$WORK/e")
pid=$(detached_pid "$E" local)
ED=$WORK/wd/runs/${E##*/}
agent_done() { [ -e "$ED/done" ] && ! kill -0 "$pid" 2>/dev/null; }
check "the agent finished its list" wait_for 600 agent_done
(flock -x 9 && exec sleep 600) 9<"$ED/lock" &
holder=$!
note_pid "$holder"
locked() { ! flock -n -s "$ED/lock" true; }
wait_for 100 locked
"$FLEETMARK" collect "$E" -q >"$WORK/e1.out" 2>&1
is "$?" 5 "collect while the lock is held: exit 5"
is "$(jq -r '.hosts.local.status + " " + .hosts.local.detached.state' "$E/run.json") $(trials_once "$E/trials.jsonl")" \
	"running running 6 1" "... every trial taken, the agent seen running"
kill "$holder"
wait "$holder" 2>/dev/null
"$FLEETMARK" collect "$E" -q >"$WORK/e2.out" 2>&1
is "$?" 0 "the next collect, with nothing left to gather: exit 0"
is "$(jq -r '.status + " " + .hosts.local.status + " " + .hosts.local.detached.state' "$E/run.json")" \
	"finished done done" "... the run finished, the agent recorded done"
check_fail "... and the host's journal directory removed" test -e "$ED"
is "$(jq -r 'select(.part == 1) | .key' "$E/trials.jsonl" | wc -l)" 6 "... nothing appended twice"

# --- an agent killed mid-run (a reboot): the rest runs on collect -------------------

"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" -o "$WORK/k" --detach -q >/dev/null 2>&1
is "$?" 0 "a second detached run"
K=$(run_dir "$WORK/k")
pid=$(detached_pid "$K" local)
J=$WORK/wd/runs/${K##*/}/journal.jsonl
two_ended() { [ "$(grep -c '"type":"end"' "$J" 2>/dev/null)" -ge 2 ]; }
wait_for 200 two_ended
kill -KILL "$pid"
sleep 0.3
ends=$(grep -c '"type":"end"' "$J")
# a crash in the middle of a write: a torn last line
printf '{"type":"header","id":"t6","bench":"lat_sys' >>"$J"
"$FLEETMARK" collect "$K" -q >"$WORK/k.out" 2>&1
is "$?" 0 "collect after the agent was killed: exit 0"
is "$(jq -r '.status + " " + .hosts.local.status + " " + .hosts.local.detached.state' "$K/run.json")" \
	"finished done gone" "the run finished, the agent recorded gone"
is "$(trials_once "$K/trials.jsonl")" "6 1" "every trial exactly once: $ends journaled, the rest run by collect"
like "$(grep -c 'collected' "$K/logs/local.log")" '^[1-9]' "the host log says what was collected"
like "$(grep 'no agent finished' "$K/logs/local.log")" "[1-9] trials? no agent finished" \
	"and what was run again"
sleep 0.3
is "$(procs_with_mark T416_MARK)" "" "no agent or child left running"

# --- a host that lost its whole journal (a wiped /tmp), and a list cut short ------

"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" -o "$WORK/m" --detach -q >/dev/null 2>&1
M=$(run_dir "$WORK/m")
pid=$(detached_pid "$M" local)
kill -KILL "$pid"
sleep 0.3
rm -rf "$WORK/wd/runs/${M##*/}"
"$FLEETMARK" collect "$M" -q >"$WORK/m.out" 2>&1
is "$?" 0 "collect of a host whose journal is gone: exit 0"
is "$(jq -r '.hosts.local.detached.state' "$M/run.json") $(trials_once "$M/trials.jsonl")" "missing 6 1" \
	"its agent's journal is missing: every trial run by collect, once"
D2=$WORK/wd/runs/cut
{
	printf '{"type":"detach","id":"d","run":"cut","dir":"%s","trials":3}\n' "$D2"
	printf '{"type":"trial","id":"t1","bench":"lat_syscall","params":{"op":"null"},"samples":1}\n'
} | "$AGENT" serve >"$WORK/cut.out" 2>&1
like "$(grep '"id":"d"' "$WORK/cut.out")" '"type":"end".*"status":"bad-request"' \
	"a list cut short (the controller killed while sending it) is refused"
check_fail "... and leaves no journal directory, nor an agent" test -e "$D2"

# --- refusals ------------------------------------------------------------------------

"$FLEETMARK" run plans/tlb-flush.yaml -f "$WORK/fleet.yaml" -o "$WORK/v" --detach >"$WORK/v.out" 2>&1
is "$?" 2 "--detach of a plan with variants: exit 2"
like "$(cat "$WORK/v.out")" "variant flushall: a detached run cannot apply variants" "... saying why"
check_fail "... and nothing written" test -e "$WORK/v"
"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" --detach --resume "$D" >"$WORK/rr.out" 2>&1
is "$?" 2 "--detach --resume: exit 2"
"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/fleet.yaml" -o "$WORK/a" -q >/dev/null 2>&1
"$FLEETMARK" collect "$(run_dir "$WORK/a")" >"$WORK/na.out" 2>&1
is "$?" 2 "collect of a run that is not detached: exit 2"
like "$(cat "$WORK/na.out")" "is not a detached run" "... saying so"

done_testing
