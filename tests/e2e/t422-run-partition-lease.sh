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
# either run is left on the host.
#
# The partition is lifted as a stateful firewall or a NAT box lifts one
# that lost its state: new connections pass, the old one's packets stay
# dropped (a table of this test's own in the host's namespace).  Without
# that, the old connection's packets queued in the partition (the agent's
# heartbeats, the controller's FIN) arrive after it and end the agent
# anyway, sooner or later as TCP's backoff has it, and the test would
# show nothing; with it, an agent without an idle limit holds the lease
# for as long as it lives.  About 15 s.
# cost: 8 s, timed; lab: lab-04
# shellcheck disable=SC2317 # functions called through trap and wait_for
TNAME=t422
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR
H=lab-04
has_host "$H" || { echo "Bail out! the lab has no $H"; exit 1; }
NS=fmlab-$H
ADDR=$(awk -v h="  $H:" '$0 == h { f = 1; next } f && $1 == "address:" { print $2; exit }' "$L/fleet.yaml")
[ -n "$ADDR" ] || { echo "Bail out! no address for $H in $L/fleet.yaml"; exit 1; }
forget_drop() { ip netns exec "$NS" nft delete table inet t422_forgot 2>/dev/null; }
trap 'kill_noted; forget_drop; _lab_cleanup' EXIT

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
# The controller's ends of its connections to the host, as the cut found them.
mapfile -t ports < <(ss -Htn state established dst "$ADDR" dport = :22 |
	awk '{ n = split($3, a, ":"); print a[n] }')
diag "connections to $H cut: ${#ports[@]} (ports ${ports[*]})"
t0=$(date +%s%N)
wait "$pid"
rc=$?
A=$(run_dir "$WORK/a")
is "$rc" 3 "the run cut off from $H exits 3 ($((($(date +%s%N) - t0) / 1000000)) ms after the cut)"
diag "$(jq -r --arg h "$H" '.hosts[$h].reason // "-"' "$A/run.json" | head -c 200)"
# past the agent's idle limit, with some room, before the partition lifts
while [ $((($(date +%s%N) - t0) / 1000000)) -lt 5000 ]; do sleep 0.2; done
# The firewall forgets the old connections: their packets stay dropped.
{
	echo "table inet t422_forgot {"
	echo " chain input { type filter hook input priority -301; policy accept;"
	for p in "${ports[@]}"; do echo "  tcp dport 22 tcp sport $p drop"; done
	echo " }"
	echo " chain output { type filter hook output priority -301; policy accept;"
	for p in "${ports[@]}"; do echo "  tcp sport 22 tcp dport $p drop"; done
	echo " }"
	echo "}"
} | ip netns exec "$NS" nft -f - || echo "Bail out! nft in $NS failed"
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
left=$(host_procs "$H")
is "$left" "" "nothing of either run is left on $H"
# What a failing build left there is this test's to end (pid:name pairs).
for p in $left; do kill "${p%%:*}" 2>/dev/null; done

done_testing
