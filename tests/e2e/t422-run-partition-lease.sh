#!/usr/bin/env bash
# t422-run-partition-lease: a host cut off in the middle of a run does not
# stay locked for the next one.  lab-04 is partitioned (packets dropped)
# while a run's agent waits for its next request; the run gives the host
# up (exit 3).  The agent behind the dead connection never sees its input
# close, but it hears nothing from its controller for its idle limit (3 s
# here, FLEETMARK_AGENT_IDLE_MS) and ends, giving the host's lease back.
# Once the partition is lifted, the next run on lab-04, without
# --wait-lock, runs every trial ok, and nothing of the first run is left
# on the host.  About 15 s.
# shellcheck disable=SC2317 # functions called through trap
TNAME=t422
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_root
"$FLEETMARK" help run >/dev/null 2>&1 || { echo "Bail out! $FLEETMARK has no \`run\` command"; exit 1; }
command -v jq >/dev/null || skip_all "needs jq"

use_lab "$TNAME"
L=$LABDIR
H=lab-04
has_host "$H" || { echo "Bail out! the lab has no $H"; exit 1; }

# A variant whose file is written between trials: while the controller
# writes it (an exec channel of its own), the agent waits for a request.
cat >"$WORK/cut.yaml" <<'P'
name: cut
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: lat_syscall
    params:
      op: null
P
cat >"$WORK/next.yaml" <<'P'
name: next
repeat: 2
samples: 3
timeout: 30s
benchmarks:
  - bench: lat_syscall
    params:
      op: null
P

# agent_idle HOST: the run's agent on HOST has sent its lease and waits.
lease_held() { on_host "$H" cat /tmp/.fleetmark-lease | grep -q '"run"'; }

export FLEETMARK_AGENT_IDLE_MS=3000 FLEETMARK_SILENCE_MS=2000
"$FLEETMARK" run "$WORK/cut.yaml" -f "$L/fleet.yaml" -H "$H" -o "$WORK/a" >"$WORK/a.out" 2>"$WORK/a.err" &
pid=$!
note_pid "$pid"
check "the first run holds $H's lease" wait_for 100 lease_held
fault partition "$H"
t0=$(date +%s%N)
wait "$pid"
is "$?" 3 "the run cut off from $H exits 3 ($((($(date +%s%N) - t0) / 1000000)) ms after the cut)"
A=$(run_dir "$WORK/a")
diag "$(jq -r --arg h "$H" '.hosts[$h].reason // "-"' "$A/run.json" | head -c 200)"
sleep 1
"$LAB" heal "$H" >/dev/null

t0=$(date +%s%N)
"$FLEETMARK" run "$WORK/next.yaml" -f "$L/fleet.yaml" -H "$H" -o "$WORK/b" >"$WORK/b.out" 2>"$WORK/b.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
B=$(run_dir "$WORK/b")
is "$rc" 0 "the next run on $H, without --wait-lock, exits 0 (${ms} ms)"
is "$(jq -r .status "$B/trials.jsonl" 2>/dev/null | sort | uniq -c | xargs)" "2 ok" "... every trial ok"
[ "$rc" = 0 ] || { grep -m3 -i 'lock' "$WORK/b.err" | sed 's/^/#   /'; }
is "$(host_procs "$H")" "" "nothing of either run is left on $H"

done_testing
