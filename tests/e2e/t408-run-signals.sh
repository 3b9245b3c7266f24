#!/usr/bin/env bash
# t408-run-signals: the controller stopped at random moments, and its
# results disk filling up, on a three-host lab run with a write variant.
#
# SIGINT and SIGKILL, each at a random moment of a run (from the plan's
# loading to its last trial), for several seeds: a SIGINT exits 130 with
# the run marked interrupted and the variant undone; after either, the run
# directory (if one was made) holds only whole JSON lines, no agent or
# benchmark is left on any host, and one --resume completes the run with
# exactly one ok line per trial and the variant's file back (after a
# SIGKILL in the middle of a variant, from the old contents the run kept
# in restore/HOST).  The seeds are printed; T408_SEEDS="1 2 3" replays some.
#
# Results disk full: the run directory on a small tmpfs that a file fills
# in the middle of the run: exit 1 with "No space left on device" naming
# trials.jsonl, no partial line, run.json "failed" (its last version is
# written into the room kept for it), the trials not run counted, the
# variant undone, nothing left running; with space again --resume
# completes the run.
# cost: 113 s, waiting; lab: lab-01 lab-02 lab-03
# shellcheck disable=SC2317 # functions called through trap
TNAME=t408
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR
RH=(lab-01 lab-02 lab-03)
TUNABLE=/tmp/fm-t408
TUNABLE_HOSTS=("${RH[@]}")
NT=$((3 * 2 * 4))
MNT=$WORK/full

leftovers() { local h out=''; for h in "${RH[@]}"; do out="$out$(host_procs "$h")"; done; echo "$out"; }
# most_left FILE: the most trials any host still had to run (no ok line in
# the trials.jsonl FILE, which may not exist yet).  Each trial takes 0.6 s,
# so with 2 or more left the run cannot end by itself within a moment.
most_left() {
	jq -r 'select(.status == "ok") | .host + " " + .key' "$1" 2>/dev/null | sort -u |
		awk -v per=$((NT / ${#RH[@]})) -v hosts="${RH[*]}" '{ n[$1]++ }
			END { k = split(hosts, h, " "); m = 0
				for (i = 1; i <= k; i++) if (per - n[h[i]] > m) m = per - n[h[i]]
				print m }'
}
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	tunable_remove
	_lab_cleanup
}
trap cleanup EXIT

cat >"$WORK/plan.yaml" <<'P'
name: signals
repeat: 4
samples: 3
timeout: 30s
variants:
  base: {}
  tuned:
    write: { /tmp/fm-t408: "new" }
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
      copies: 1
P
RUN=("$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "lab-01,lab-02,lab-03")

# --- SIGINT and SIGKILL at random moments -----------------------------------------

# A whole run takes about 7 s here; the signal comes within the first 8 s.
# "mid" is no seed: the signal comes once lab-02 is in the tuned variant.
SEEDS=${T408_SEEDS:-"mid $(date +%s) 101 202"}
n=0
for seed in $SEEDS; do
	[ "$seed" = mid ] || RANDOM=$seed
	for sig in INT KILL; do
		n=$((n + 1))
		ms=$((RANDOM % 8000))
		name="seed $seed SIG$sig at ${ms} ms"
		[ "$seed" = mid ] && name="SIG$sig in the variant"
		tunable_reset
		out=$WORK/s$n
		"${RUN[@]}" -o "$out" >"$out.out" 2>"$out.err" &
		pid=$!
		if [ "$seed" = mid ]; then
			for _ in $(seq 300); do
				T=$(run_dir "$out")/trials.jsonl
				[ -s "$T" ] && [ "$(jq -r 'select(.host == "lab-02" and .status == "ok") | .key' "$T" | sort -u | wc -l)" -ge 5 ] && break
				sleep 0.05
			done
		else
			sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		fi
		left=$(most_left "$(run_dir "$out")/trials.jsonl")
		kill "-$sig" "$pid" 2>/dev/null
		wait "$pid"
		rc=$?
		D=$(run_dir "$out")
		T=$D/trials.jsonl
		st=$(jq -r .status "$D/run.json" 2>/dev/null)
		diag "$name: exit $rc, run.json says ${st:-nothing}, $(jq -r 'select(.status == "ok") | .key' "$T" 2>/dev/null | wc -l) ok lines, $left trials left on a host at the signal"
		# A run that had trials to go when the signal came must not finish
		# them; only a signal at the very end may find it finished.  A
		# signal before the run directory was made (the controller still
		# loading, which under ASan takes a while) leaves no run.json.
		if [ -z "$D" ]; then
			want_int='^130/$' want_kill='^137/$' when="before the run directory"
		elif [ "$left" -ge 2 ]; then
			want_int='^130/interrupted$' want_kill='^137/(running|)$' when="with $left trials to go"
		else
			want_int='^(130/interrupted|0/finished|3/finished)$' want_kill='^(137/(running|)|0/finished|3/finished)$'
			when="at the end (or it had finished)"
		fi
		if [ "$sig" = INT ]; then
			like "$rc/$st" "$want_int" "$name: exit 130 and run.json interrupted, $when"
		else
			like "$rc/$st" "$want_kill" "$name: killed: exit 137, run.json running, $when"
		fi
		[ "$seed" = mid ] && check "$name: ... came in the middle of the run (lab-02 in the variant)" test "$left" -ge 2
		if [ -z "$D" ]; then
			is "$(find "$out" -type f 2>/dev/null | wc -l)" 0 "$name: before the run directory: nothing written"
			"${RUN[@]}" -o "$out" >"$out.r.out" 2>"$out.r.err"
			D=$(run_dir "$out")
			T=$D/trials.jsonl
		else
			if [ -s "$T" ]; then
				check "$name: trials.jsonl holds whole JSON lines only" jq_all "$T"
			else
				check "$name: trials.jsonl exists (empty)" test -f "$T"
			fi
			[ "$sig" = INT ] && check "$name: the interrupted run undid its variant" tunable_restored
			[ "$seed$sig" = midKILL ] && check "$name: restore/ keeps the old contents for --resume" \
				test -s "$D/restore/lab-02"
			is "$(leftovers)" "" "$name: no agent or benchmark left on the hosts"
			"$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" >"$out.r.out" 2>"$out.r.err"
		fi
		rc=$?
		is "$rc $(ok_per_trial "$T")" "0 1 $NT" "$name: --resume completes: exactly one ok line per trial"
		[ "$rc" = 0 ] || tail -5 "$out.r.err" | sed 's/^/#   /'
		check "$name: ... the variant's file is back" tunable_restored
		check "$name: ... and restore/ is gone" test ! -e "$D/restore"
		is "$(leftovers)" "" "$name: ... and nothing left running"
	done
done

# --- results disk full --------------------------------------------------------------

mkdir -p "$MNT"
mount -t tmpfs -o size=2m fm-t408 "$MNT" || { echo "Bail out! cannot mount a tmpfs"; exit 1; }
tunable_reset
"${RUN[@]}" -o "$MNT/r" >"$WORK/full.out" 2>"$WORK/full.err" &
pid=$!
for _ in $(seq 300); do
	T=$(run_dir "$MNT/r")/trials.jsonl
	[ -s "$T" ] && [ "$(wc -l <"$T")" -ge 6 ] && break
	sleep 0.05
done
dd if=/dev/zero of="$MNT/fill" bs=64k >/dev/null 2>&1
wait "$pid"
rc=$?
D=$(run_dir "$MNT/r")
T=$D/trials.jsonl
is "$rc" 1 "disk full mid-run: exit 1"
like "$(cat "$WORK/full.err")" "trials\.jsonl: No space left on device" "... saying trials.jsonl cannot be written: no space"
grep -m3 -i 'space' "$WORK/full.err" | sed 's/^/# /'
check "... trials.jsonl holds whole JSON lines only" jq_all "$T"
check "... run.json is whole JSON" jq -e .status "$D/run.json"
is "$(jq -r '.status + " " + (.end != null | tostring)' "$D/run.json")" "failed true" \
	"... and says failed, with an end (written into the room kept for it), not running"
ran=$(jq -r '.host + " " + .key' "$T" | sort -u | wc -l)
like "$(grep -E '^[0-9TZ:-]+ [0-9]+/'"$NT"' trials' "$WORK/full.err")" " $ran/$NT trials, [0-9]+ failed, $((NT - ran)) not run, in " \
	"... the last line counts the $ran trials kept and the $((NT - ran)) not run"
check "... no spare left behind" test ! -e "$D/.run.json.spare"
check "... the variant's file is back" tunable_restored
is "$(leftovers)" "" "... nothing left running on the hosts"
rm -f "$MNT/fill"
"$FLEETMARK" run "$WORK/plan.yaml" --resume "$D" >"$WORK/full.r.out" 2>"$WORK/full.r.err"
is "$? $(ok_per_trial "$T")" "0 1 $NT" "with space again, --resume completes: exactly one ok line per trial"
check "... the variant's file is back" tunable_restored
umount "$MNT"

done_testing
