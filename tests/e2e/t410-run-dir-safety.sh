#!/usr/bin/env bash
# t410-run-dir-safety: a run directory that a typo cannot break, and
# counters that say what happened, on this machine (no lab).
#
# Every refused --resume (another plan, a plan changed since, a fleet
# without the run's host, -H of no host of the run, an unknown -H host, a
# run in use, a baseline that is not there, a damaged run directory, a
# plan file that is gone, an archive URL) exits with its status and leaves
# the run directory byte for byte as it was: the checksum, size, mode and
# mtime of every file and directory in it.  So does a --resume of a
# finished run with nothing left to run.  `--resume RUN` alone takes the
# plan run.json records, RUN a directory or a run id under -o.
#
# Counters: after SIGINT the last line counts the trials that ran and
# says how many were not run; an unreachable host's trials are failed;
# "N lines not ok" is said once.  Run directories follow the umask (0775
# under 002, 0700 under 077).  (A full results disk: t400 and t408.)
# cost: 22 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
WORK=$(mktemp -d /tmp/t410.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
export T410_MARK=1

# snap DIR: every entry under DIR with its mode, size and mtime (to the
# nanosecond), and every file's sha256, sorted.
snap() {
	(cd "$1" && find . -printf '%p %m %s %T@\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
# unchanged NAME DIR SNAPFILE: DIR is as SNAPFILE recorded it.
unchanged() {
	local d
	d=$(diff "$3" <(snap "$2"))
	is "$d" "" "$1: the run directory is unchanged (every file's bytes, mode, mtime)"
}

cat >"$WORK/slow.yaml" <<'P'
name: slow
repeat: 6
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
      copies: 1
P

# interrupted_run OUTDIR: a run of slow.yaml stopped by SIGINT after its
# first trial; its output in OUTDIR.out and OUTDIR.err.
interrupted_run() {
	local pid
	"$FLEETMARK" run "$WORK/slow.yaml" -o "$1" >"$1.out" 2>"$1.err" &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$(run_dir "$1")/trials.jsonl" ] && break
		sleep 0.1
	done
	kill -INT "$pid"
	wait "$pid"
}

# --- counters after SIGINT ---------------------------------------------------------

interrupted_run "$WORK/s"
rc=$?
S=$(run_dir "$WORK/s")
ran=$(jq -r .key "$S/trials.jsonl" | sort -u | wc -l)
failed=$(jq -r 'select(.status != "ok") | .key' "$S/trials.jsonl" | sort -u | wc -l)
is "$rc $(jq -r .status "$S/run.json")" "130 interrupted" "SIGINT: exit 130, run.json interrupted"
like "$(grep -E '^[0-9TZ:-]+ [0-9]+/6 trials' "$WORK/s.err")" \
	" $ran/6 trials, $failed failed, $((6 - ran)) not run, in " \
	"the last line counts the $ran trials that ran and the $((6 - ran)) not run (not 6/6)"
like "$(grep ' local interrupted' "$WORK/s.err")" "local interrupted, $ran trials?(, $failed failed)?, $((6 - ran)) not run" \
	"... and the host's line says it was interrupted, not that it failed"
like "$(cat "$WORK/s.err")" "\`fleetmark run --resume $S\` runs them" \
	"... and the resume command needs no plan"
[ "$failed" -eq 0 ] || is "$(grep -c 'lines\? not ok' "$WORK/s.err")" 1 "\"N lines not ok\" is said once"

# --- refusals leave the run directory as it was -------------------------------------

touch -d '2001-11-30 04:15:00' "$S" "$S"/* "$S"/*/*
snap "$S" >"$WORK/s.snap"

"$FLEETMARK" run plans/smoke.yaml --resume "$S" >/dev/null 2>"$WORK/e1"
is "$?" 2 "--resume with another plan: exit 2"
like "$(cat "$WORK/e1")" "the run is of plan 'slow', not 'smoke'" "... saying whose run it is"
unchanged "another plan" "$S" "$WORK/s.snap"

cp "$WORK/slow.yaml" "$WORK/changed.yaml"
printf '  - bench: lat_syscall\n' >>"$WORK/changed.yaml"
"$FLEETMARK" run "$WORK/changed.yaml" --resume "$S" >/dev/null 2>"$WORK/e2"
is "$?" 2 "--resume with the plan changed since (a point more): exit 2"
like "$(cat "$WORK/e2")" "plan 'slow' has changed since the run started" "... saying so"
unchanged "a changed plan" "$S" "$WORK/s.snap"

cat >"$WORK/other.yaml" <<'F'
hosts:
  elsewhere:
    transport: local
F
"$FLEETMARK" run --resume "$S" -f "$WORK/other.yaml" >/dev/null 2>"$WORK/e3"
is "$?" 2 "--resume with a fleet that lacks the run's host: exit 2"
like "$(cat "$WORK/e3")" "host 'local' of the run is not in" "... saying which host"
unchanged "a fleet without the host" "$S" "$WORK/s.snap"

"$FLEETMARK" run --resume "$S" -H nosuch >/dev/null 2>"$WORK/e4"
is "$?" 2 "--resume -H an unknown host: exit 2"
unchanged "an unknown -H host" "$S" "$WORK/s.snap"

cat >"$WORK/two.yaml" <<'F'
hosts:
  local:
    transport: local
  elsewhere:
    transport: local
F
"$FLEETMARK" run --resume "$S" -f "$WORK/two.yaml" -H elsewhere >/dev/null 2>"$WORK/e5"
is "$?" 2 "--resume -H a host of the fleet that is not the run's: exit 2"
like "$(cat "$WORK/e5")" "-H elsewhere: no host of the run .*\(its hosts: local\)" "... naming the run's hosts"
unchanged "-H of no host of the run" "$S" "$WORK/s.snap"

"$FLEETMARK" run --resume "$S" --baseline "$WORK/no-such-run" >/dev/null 2>"$WORK/e6"
is "$?" 2 "--resume with a baseline that is not there: exit 2"
unchanged "a missing baseline" "$S" "$WORK/s.snap"

flock -n "$S/trials.jsonl" sleep 2 &
lockpid=$!
sleep 0.3
"$FLEETMARK" run --resume "$S" >/dev/null 2>"$WORK/e7"
is "$?" 1 "--resume of a run another process holds: exit 1"
like "$(cat "$WORK/e7")" "is in use by another fleetmark" "... saying so"
wait "$lockpid"
lockpid=
unchanged "a run in use" "$S" "$WORK/s.snap"

"$FLEETMARK" run --resume "file://$WORK/archive/$(basename "$S")" >/dev/null 2>"$WORK/e8"
is "$?" 2 "--resume of an archive URL: exit 2"
like "$(cat "$WORK/e8")" "a run in an archive is not resumed" "... saying so"

# Damaged copies of the run: refused, and left as they are.
cp -a "$S" "$WORK/damaged"
rm -r "$WORK/damaged/logs"
echo junk >"$WORK/damaged/logs"
touch -d '2001-11-30 04:15:00' "$WORK/damaged" "$WORK/damaged/logs"
snap "$WORK/damaged" >"$WORK/d.snap"
"$FLEETMARK" run --resume "$WORK/damaged" >/dev/null 2>"$WORK/e9"
is "$?" 1 "--resume of a run whose logs/ is a file: exit 1"
like "$(cat "$WORK/e9")" "logs is not a directory" "... saying what is in the way"
unchanged "a damaged run" "$WORK/damaged" "$WORK/d.snap"

cp -a "$S" "$WORK/moved"
jq '.plan.file = "plans/gone.yaml"' "$S/run.json" >"$WORK/moved/run.json"
touch -d '2001-11-30 04:15:00' "$WORK/moved" "$WORK/moved/run.json"
snap "$WORK/moved" >"$WORK/m.snap"
"$FLEETMARK" run --resume "$WORK/moved" >/dev/null 2>"$WORK/e10"
is "$?" 2 "--resume alone when the plan file run.json records is gone: exit 2"
like "$(cat "$WORK/e10")" "plans/gone.yaml.*give the plan: \`fleetmark run PLAN --resume " "... saying how to give it"
unchanged "a plan file gone" "$WORK/moved" "$WORK/m.snap"

cp -a "$S" "$WORK/future"
jq '.format = 2' "$S/run.json" >"$WORK/future/run.json"
touch -d '2001-11-30 04:15:00' "$WORK/future" "$WORK/future/run.json"
snap "$WORK/future" >"$WORK/u.snap"
for plan in "" "$WORK/slow.yaml"; do
	"$FLEETMARK" run ${plan:+"$plan"} --resume "$WORK/future" >/dev/null 2>"$WORK/e12"
	is "$?" 1 "--resume ${plan:+PLAN }of a run.json of a format to come: exit 1"
	like "$(cat "$WORK/e12")" "unknown format 2" "... saying so"
	unchanged "a format to come${plan:+ (PLAN given)}" "$WORK/future" "$WORK/u.snap"
done

"$FLEETMARK" run --resume "$WORK/nothing-here" >/dev/null 2>"$WORK/e11"
is "$?" 2 "--resume of a path that is no run: exit 2"
like "$(cat "$WORK/e11")" "not a run directory" "... saying so"

# --- --resume RUN alone --------------------------------------------------------------

"$FLEETMARK" run --resume "$S" >"$WORK/r.out" 2>"$WORK/r.err"
rc=$?
is "$rc $(jq -r '.status + " " + (.resumed | length | tostring)' "$S/run.json")" "0 finished 1" \
	"--resume RUN alone: the plan from run.json; exit 0, finished, resumed once"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/r.err" | tail -5
is "$(ok_per_trial "$S/trials.jsonl")" "1 6" "... exactly one ok line per trial, all 6"
like "$(grep -E '^[0-9TZ:-]+ [0-9]+/[0-9]+ trials' "$WORK/r.err")" " $((6 - ran + failed))/$((6 - ran + failed)) trials, 0 failed, in " \
	"... its last line counts the trials it ran"

touch -d '2001-11-30 04:15:00' "$S" "$S"/* "$S"/*/*
snap "$S" >"$WORK/f.snap"
"$FLEETMARK" run --resume "$S" >"$WORK/n.out" 2>&1
is "$?" 0 "--resume of a finished run with nothing left to run: exit 0"
like "$(cat "$WORK/n.out")" "nothing left to run" "... saying so"
unchanged "nothing left to run" "$S" "$WORK/f.snap"

interrupted_run "$WORK/id"
I=$(run_dir "$WORK/id")
"$FLEETMARK" run --resume "$(basename "$I")" -o "$WORK/id" >"$WORK/id2.out" 2>"$WORK/id2.err"
is "$? $(jq -r .status "$I/run.json") $(ok_per_trial "$I/trials.jsonl")" "0 finished 1 6" \
	"--resume RUNID -o DIR: the run id under DIR is resumed and finishes"
"$FLEETMARK" run "$WORK/slow.yaml" --resume "$I" >/dev/null 2>&1
is "$?" 0 "a plan given as well is taken when it is the run's"

# --- an unreachable host's trials failed ------------------------------------------------

cat >"$WORK/dead.yaml" <<'F'
hosts:
  dead:
    address: 127.0.0.1
    port: 1
    connect_timeout: 2s
F
"$FLEETMARK" run "$WORK/slow.yaml" -f "$WORK/dead.yaml" -o "$WORK/dead" >"$WORK/dead.out" 2>"$WORK/dead.err"
is "$?" 3 "an unreachable host: exit 3"
like "$(grep -E '^[0-9TZ:-]+ [0-9]+/6 trials' "$WORK/dead.err")" " 6/6 trials, 6 failed, in " \
	"... its 6 trials end \"6/6 trials, 6 failed\" (they failed), not 0 failed"
is "$(grep -c 'lines\? not ok' "$WORK/dead.err")" 1 "... and \"6 lines not ok\" is said once, not twice"

# --- modes follow the umask ------------------------------------------------------------

(umask 002 && "$FLEETMARK" run plans/smoke.yaml -o "$WORK/shared" >/dev/null 2>&1)
D=$(run_dir "$WORK/shared")
is "$(stat -c %a "$D" "$D/hosts" "$D/logs" | xargs) $(stat -c %a "$D/run.json" "$D/trials.jsonl" | xargs)" \
	"775 775 775 644 644" "umask 002: the run directory and its subdirectories 0775 (the group reads them), files 0644"
(umask 077 && "$FLEETMARK" run plans/smoke.yaml -o "$WORK/private" >/dev/null 2>&1)
D=$(run_dir "$WORK/private")
is "$(stat -c %a "$D" "$D/hosts" "$D/logs" "$D/run.json" | xargs)" "700 700 700 600" \
	"umask 077: 0700 and 0600"

sleep 0.3
is "$(procs_with_mark T410_MARK)" "" "nothing left running"

done_testing
