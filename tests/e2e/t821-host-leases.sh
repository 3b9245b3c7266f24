#!/usr/bin/env bash
# t821-host-leases: a run holds a lease on each of its hosts.  While one run
# is on lab-04, a second run there fails that host at once with class
# locked and the holder's name (its other host runs), or with --wait-lock
# waits and then runs (a holder of the same user@controller is given 15 s
# first, made 2 s here by FLEETMARK_LEASE_SELF_MS, so that the holder's 8 s
# are longer); hosts --check shows the lease; when the holder's
# controller is SIGKILLed, the next run takes the lease without waiting.
# Root and the bench user see each other's leases.  bisect-run on a held
# host skips (125), and with --wait-lock waits and measures.
# cost: 20 s, timed; lab: lab-04 lab-05
# shellcheck disable=SC2317 # functions called through check
TNAME=t821
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq

use_lab "$TNAME"
L=$LABDIR
export FLEETMARK_LEASE_SELF_MS=2000
if ! has_host lab-04 || ! has_host lab-05; then echo "Bail out! the lab has no lab-04, lab-05"; exit 1; fi

cat >"$WORK/long.yaml" <<'P'
name: holder
repeat: 1
samples: 1
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 8"
P
cat >"$WORK/short.yaml" <<'P'
name: second
repeat: 1
samples: 3
timeout: 60s
benchmarks:
  - bench: lat_syscall
    params:
      op: null
P

sed 's/^repeat: 1$/repeat: 3/; s/^name: second$/name: step/' "$WORK/short.yaml" >"$WORK/step.yaml"

# wait_lease HOST: until the host's lease file names the holder (10 s at most).
wait_lease() {
	local i
	for i in $(seq 1 100); do
		on_host "$1" cat /tmp/.fleetmark-lease | grep -q '"run"' && return 0
		sleep 0.1
	done
	return 1
}

# A lease file another test's runs as bench left on these hosts (t413 runs
# as bench on lab-04) belongs to bench, and root's runs rightly keep no
# lease in it: start from none.
on_host lab-04 rm -f /tmp/.fleetmark-lease
on_host lab-05 rm -f /tmp/.fleetmark-lease
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet.yaml" -H lab-04 -o "$WORK/h" -q >"$WORK/h.out" 2>&1 &
holder=$!
check "the first run holds lab-04's lease" wait_lease lab-04
HR=$(basename "$(run_dir "$WORK/h")")

"$FLEETMARK" hosts -f "$L/fleet.yaml" -H lab-04,lab-05 --check >"$WORK/check.out" 2>&1
like "$(cat "$WORK/check.out")" "lab-04: held by [^ ]+@[^ ]+ \\(run $HR, since 20[0-9-]+T" \
	"hosts --check shows the lease and its holder"
check_fail "and no lease on lab-05" grep -q 'lab-05: held' "$WORK/check.out"

"$FLEETMARK" run "$WORK/short.yaml" -f "$L/fleet-bench.yaml" -H lab-04,lab-05 -o "$WORK/s" \
	>"$WORK/s.out" 2>&1
is "$?" 3 "a second run (as bench) on the held host exits 3"
S=$(run_dir "$WORK/s")
is "$(jq -r '.hosts["lab-04"].status' "$S/run.json")" failed "lab-04 failed"
like "$(jq -r '.hosts["lab-04"].reason' "$S/run.json")" \
	"^locked: locked by [^ ]+ \\(run $HR, since " "with the holder's name, run and time"
is "$(jq -r '.hosts["lab-05"].status' "$S/run.json")" "done" "lab-05 ran"
is "$(jq -rs '[.[] | select(.host == "lab-04") | .status] | unique | join(",")' "$S/trials.jsonl")" \
	locked "lab-04's trials are recorded locked (infrastructure)"

# bisect-run on a held host: skip (125), never bad; with --wait-lock it
# waits its turn (beside the run below) and measures.
"$FLEETMARK" bisect-run "$WORK/step.yaml" -f "$L/fleet-bench.yaml" -H lab-04 \
	--metric lat_syscall.latency --good 1e9 --tries 1 -o "$WORK/b1" >"$WORK/b1.out" 2>&1
is "$?" 125 "bisect-run on the held host exits 125 (skip)"
like "$(cat "$WORK/b1.out")" "locked" "... and says the host is locked"
"$FLEETMARK" bisect-run "$WORK/step.yaml" -f "$L/fleet.yaml" -H lab-04 --wait-lock 60s \
	--metric lat_syscall.latency --good 1e9 --threshold 50% -o "$WORK/b2" >"$WORK/b2.out" 2>&1 &
bisect=$!

t0=$(date +%s)
"$FLEETMARK" run "$WORK/short.yaml" -f "$L/fleet.yaml" -H lab-04 -o "$WORK/w" --wait-lock 60s \
	>"$WORK/w.out" 2>&1
rc=$?
t1=$(date +%s)
is "$rc" 0 "--wait-lock: the second run waits for the holder and runs"
wait "$holder"
is "$?" 0 "the holder finished well"
wait "$bisect"
is "$?" 0 "bisect-run --wait-lock waited for the lease and measured: good (0)"
grep '^bisect-run ' "$WORK/b2.out" | sed 's/^/# /'
W=$(run_dir "$WORK/w")
h_end=$(date -d "$(jq -r '.end' "$(run_dir "$WORK/h")/run.json")" +%s)
w_start=$(jq -r '[.[] | .start] | min' <(jq -s . "$W/trials.jsonl"))
check "its trials started after the holder ended ($w_start >= $h_end - 1, waited $((t1 - t0)) s)" \
	awk -v a="$w_start" -v b="$h_end" 'BEGIN { exit !(a >= b - 1) }'

# A holder killed with SIGKILL: its agent sees its input end and goes; the
# next run takes the lease without --wait-lock.
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet.yaml" -H lab-04 -o "$WORK/k" -q >"$WORK/k.out" 2>&1 &
holder=$!
check "a new holder" wait_lease lab-04
kill -KILL "$holder"
wait "$holder" 2>/dev/null
ok_after=''
for i in 1 2 3 4 5; do
	"$FLEETMARK" run "$WORK/short.yaml" -f "$L/fleet.yaml" -H lab-04 -o "$WORK/t$i" >"$WORK/t.out" 2>&1 &&
		{ ok_after=$i; break; }
	sleep 1
done
check "after a SIGKILLed holder the lease is taken (attempt ${ok_after:-none})" test -n "$ok_after"
"$FLEETMARK" hosts -f "$L/fleet.yaml" -H lab-04 --check >"$WORK/check2.out" 2>&1
# A check that failed says nothing of leases either.
is "$?" 0 "hosts --check after the runs: exit 0, lab-04 reached"
check_fail "and no lease is held after the runs" grep -q 'lab-04: held' "$WORK/check2.out"

done_testing
