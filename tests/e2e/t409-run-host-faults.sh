#!/usr/bin/env bash
# t409-run-host-faults: every host fault of the lab against the whole list
# of promises, on a three-host run with a write variant, the fault on
# lab-07 (t402 checks the messages and the timing of some of these):
#   down    lab-07 killed before the run;
#   dies    killed in the middle of a trial of the variant;
#   hung    SIGSTOPped in the variant (silence limit 4 s);
#   reboot  rebooted in the variant, back after 3 s;
#   blip    partitioned in the variant for 1 s, then healed: the TCP
#           connection recovers and the run finishes as if nothing happened;
#   slow    link at 1 Mbit/s while the agent is uploaded (cache emptied):
#           the run finishes, the upload is slower.
# For each: the other hosts run every trial; exit 3 (0 for blip and slow);
# trials.jsonl valid; lab-07's failures kind infrastructure; once the host
# is healed, nothing of the run is left running on it, --resume completes
# the run with exactly one ok line per trial, and the variant's file is
# back (put back by --resume from restore/ when the host was lost in the
# middle of the variant).
# cost: 117 s, timed; lab: lab-06 lab-07 lab-08
# shellcheck disable=SC2317 # functions called through trap
TNAME=t409
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR
FH=lab-07
RH=(lab-06 lab-07 lab-08)
TUNABLE=/tmp/fm-t409
TUNABLE_HOSTS=("${RH[@]}")
NT=$((3 * 2 * 6))

trap 'tunable_remove; _lab_cleanup' EXIT
_lab_touched+=("$FH")

cat >"$WORK/plan.yaml" <<'P'
name: hostfaults
repeat: 6
samples: 3
timeout: 30s
variants:
  base: {}
  tuned:
    write: { /tmp/fm-t409: "new" }
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
      copies: 1
P

# in_variant DIR: wait until lab-07 has finished 7 trials (the tuned
# variant's first); bounded.
in_variant() {
	local T i
	for i in $(seq 400); do
		T=$(run_dir "$1")/trials.jsonl
		[ -s "$T" ] && [ "$(jq -r "select(.host == \"$FH\" and .status == \"ok\") | .key" "$T" | sort -u | wc -l)" -ge 7 ] && return 0
		sleep 0.05
	done
	diag "lab-07 never reached the variant"
}

# host_case NAME RC STATUSES [HOSTSTATUS]: run with the fault NAME injected
# on lab-07, then check.  STATUSES: lab-07's non-ok statuses (sorted, unique).
host_case() {
	local name=$1 want_rc=$2 want_st=$3 hst=${4:-failed} pid rc D T t0 ms
	tunable_reset
	[ "$name" = down ] && "$LAB" kill "$FH"
	if [ "$name" = slow ]; then
		on_host "$FH" 'rm -rf /tmp/fleetmark'
		"$LAB" slow "$FH" 1mbit
	fi
	t0=$(date +%s%N)
	FLEETMARK_SILENCE_MS=4000 "$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H lab-06,lab-07,lab-08 \
		-o "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	case $name in
	dies) in_variant "$WORK/$name"; "$LAB" kill "$FH" ;;
	hung) in_variant "$WORK/$name"; "$LAB" hang "$FH" ;;
	reboot) in_variant "$WORK/$name"; "$LAB" reboot "$FH" 3 ;;
	blip) in_variant "$WORK/$name"; "$LAB" partition "$FH"; sleep 1; "$LAB" heal "$FH" ;;
	esac
	wait "$pid"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	D=$(run_dir "$WORK/$name")
	T=$D/trials.jsonl
	is "$rc" "$want_rc" "$name: exit $want_rc (${ms} ms)"
	check "$name: trials.jsonl holds valid JSON lines only" jq_all "$T"
	is "$(jq -r 'select(.host != "lab-07" and .status == "ok") | .host + " " + .key' "$T" | sort -u | cut -d' ' -f1 | uniq -c | xargs)" \
		"12 lab-06 12 lab-08" "$name: lab-06 and lab-08 ran all 12 trials"
	is "$(jq -r 'select(.host == "lab-07" and .status != "ok") | .status' "$T" | sort -u | xargs)" \
		"$want_st" "$name: lab-07's failed trials: ${want_st:-none}"
	is "$(jq -r 'select(.host == "lab-07" and .status != "ok") | .kind' "$T" | sort -u | grep -vx infrastructure)" "" \
		"$name: ... all kind infrastructure"
	is "$(jq -r '.hosts["lab-07"].status' "$D/run.json")" "$hst" "$name: lab-07 $hst"
	diag "$name: $(jq -r '.hosts["lab-07"].reason // "-"' "$D/run.json" | head -c 200)"
	[ "$name" = slow ] && like "$(grep -m1 'agent for' "$D/logs/lab-07.log")" "uploaded" "slow: the agent was uploaded over the slow link"
	"$LAB" heal "$FH" >/dev/null
	is "$(host_procs "$FH")" "" "$name: healed, nothing of the run left on lab-07"
	"$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" >"$WORK/$name.r.out" 2>"$WORK/$name.r.err"
	rc=$?
	is "$rc $(ok_per_trial "$T")" "0 1 $NT" "$name: --resume completes: exactly one ok line per trial"
	[ "$rc" = 0 ] || tail -3 "$WORK/$name.r.err" | sed 's/^/#   /'
	check "$name: the variant's file is back on every host" tunable_restored
	check "$name: ... and restore/ is gone" test ! -e "$D/restore"
	is "$(host_procs "$FH")" "" "$name: nothing left running on lab-07"
}

host_case down 3 "connect"
host_case dies 3 "agent-lost connect"
host_case hung 3 "agent-lost connect"
host_case reboot 3 "agent-lost connect"
host_case blip 0 "" "done"
host_case slow 0 "" "done"

done_testing
