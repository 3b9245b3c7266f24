#!/usr/bin/env bash
# t423-run-silent-controller: an agent whose controller goes silent without
# closing its input (here SIGSTOPped; on a network, cut off by a partition)
# ends its trial and itself once its idle limit passes (4 s here,
# FLEETMARK_AGENT_IDLE_MS), and gives the host's lease back.  A run of the
# same user started meanwhile, without --wait-lock, finds the lease held,
# waits for that agent to end and runs every trial ok; nothing of the
# first run's trial is left running.  An agent whose controller keeps
# speaking outlives its idle limit many times over: a trial of 5 s with a
# 1 s limit is ok.  On this machine (the local transport); about 10 s.
# cost: 11 s, timed
# shellcheck disable=SC2317 # functions called through check and wait_for
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
WORK=$(mktemp -d /tmp/t423.XXXXXX)
trap 'kill_noted; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
# this machine's lease is not the one other runs here use
export FLEETMARK_LEASE_FILE=$WORK/lease

fleet_local "$WORK/fleet.yaml" "$WORK/wd"
cat >"$WORK/long.yaml" <<'P'
name: long
repeat: 1
samples: 1
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 40.423"
P
sed 's/sleep 40.423/sleep 2.5/' "$WORK/long.yaml" >"$WORK/six.yaml"
plan_syscall "$WORK/short.yaml" short 2 3

held() { jq -e '.run' "$WORK/lease" >/dev/null 2>&1; }
# the first run's trial, by its command line (a duration no other test uses)
sleepers() { pgrep -f '^sleep 40[.]423$' | xargs; }
sleeping() { [ -n "$(sleepers)" ]; }

FLEETMARK_AGENT_IDLE_MS=4000 "$FLEETMARK" run "$WORK/long.yaml" -f "$WORK/fleet.yaml" -o "$WORK/a" -q \
	>"$WORK/a.out" 2>"$WORK/a.err" &
pid=$!
note_pid "$pid"
check "the first run holds the lease" wait_for 600 held
check "... and its trial runs" wait_for 50 sleeping
kill -STOP "$pid"
t0=$(date +%s%N)
"$FLEETMARK" run "$WORK/short.yaml" -f "$WORK/fleet.yaml" -o "$WORK/b" -q >"$WORK/b.out" 2>"$WORK/b.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 0 "a run of the same user meanwhile, without --wait-lock, exits 0 (${ms} ms)"
B=$(run_dir "$WORK/b")
is "$(jq -r '.key + " " + .status' "$B/trials.jsonl" 2>/dev/null | sort -u | cut -d' ' -f2 | uniq -c | xargs)" \
	"2 ok" "... every trial ok"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/b.err" | head -5
like "$(grep -h 'waiting' "$B/logs/local.log")" "locked by [^ ]+ \\(run $(basename "$(run_dir "$WORK/a")")" \
	"... after waiting for the silent agent's lease"
is "$(sleepers)" "" "the first run's trial was ended with its agent"
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

# A controller that keeps speaking: the limit is never reached.
FLEETMARK_AGENT_IDLE_MS=1000 "$FLEETMARK" run "$WORK/six.yaml" -f "$WORK/fleet.yaml" -o "$WORK/c" -q \
	>"$WORK/c.out" 2>"$WORK/c.err"
rc=$?
C=$(run_dir "$WORK/c")
is "$rc $(jq -r .status "$C/trials.jsonl" 2>/dev/null | sort -u | xargs)" "0 ok" \
	"a trial of twice 2.5 s with a 1 s idle limit and a controller that speaks: ok"

done_testing
