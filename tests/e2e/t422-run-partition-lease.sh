#!/usr/bin/env bash
# t422-run-partition-lease: a host cut off in the middle of a run does not
# stay locked for the next one.  lab-04 is partitioned (packets dropped)
# while a run's trials go on there; the run gives the host up (exit 3).
# The agent behind the dead connection never sees its input close, but it
# hears nothing from its controller for its idle limit (3 s here,
# FLEETMARK_AGENT_IDLE_MS) and ends its trial and itself, giving the
# host's lease back.  Once the partition is lifted, the next run on lab-04,
# without --wait-lock and as the bench user (for whom a lease held by
# root's run is never waited for), runs every trial ok, and nothing of
# either run is left on the host.  About 15 s (estimated).
# shellcheck disable=SC2317 # functions called through trap and wait_for
TNAME=t422
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_root
"$FLEETMARK" help run >/dev/null 2>&1 || { echo "Bail out! $FLEETMARK has no \`run\` command"; exit 1; }
command -v jq >/dev/null || skip_all "needs jq"

use_lab "$TNAME"
trap 'kill_noted; _lab_cleanup' EXIT
L=$LABDIR
H=lab-04
has_host "$H" || { echo "Bail out! the lab has no $H"; exit 1; }

plan_syscall "$WORK/cut.yaml" cut 40 3
plan_syscall "$WORK/next.yaml" next 2 3

# trials_done N: the first run has recorded N trials (its directory is local).
trials_done() {
	local T
	T=$(run_dir "$WORK/a")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r .key "$T" | sort -u | wc -l)" -ge "$1" ]
}

FLEETMARK_AGENT_IDLE_MS=3000 FLEETMARK_SILENCE_MS=2000 "$FLEETMARK" run "$WORK/cut.yaml" \
	-f "$L/fleet.yaml" -H "$H" -o "$WORK/a" >"$WORK/a.out" 2>"$WORK/a.err" &
pid=$!
note_pid "$pid"
check "the first run's trials go on on $H" wait_for 300 trials_done 3
fault partition "$H"
t0=$(date +%s%N)
wait "$pid"
rc=$?
A=$(run_dir "$WORK/a")
is "$rc" 3 "the run cut off from $H exits 3 ($((($(date +%s%N) - t0) / 1000000)) ms after the cut)"
diag "$(jq -r --arg h "$H" '.hosts[$h].reason // "-"' "$A/run.json" | head -c 200)"
# past the agent's idle limit, with some room, before the partition lifts
while [ $((($(date +%s%N) - t0) / 1000000)) -lt 5000 ]; do sleep 0.2; done
"$LAB" heal "$H" >/dev/null

t0=$(date +%s%N)
"$FLEETMARK" run "$WORK/next.yaml" -f "$L/fleet-bench.yaml" -H "$H" -o "$WORK/b" >"$WORK/b.out" 2>"$WORK/b.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
B=$(run_dir "$WORK/b")
is "$rc" 0 "the next run on $H, without --wait-lock, exits 0 (${ms} ms)"
is "$(jq -r '.key + " " + .status' "$B/trials.jsonl" 2>/dev/null | sort -u | cut -d' ' -f2 | uniq -c | xargs)" \
	"2 ok" "... every trial ok"
[ "$rc" = 0 ] || jq -r --arg h "$H" '.hosts[$h].reason // "-"' "$B/run.json" | sed 's/^/#   /'
is "$(host_procs "$H")" "" "nothing of either run is left on $H"

done_testing
