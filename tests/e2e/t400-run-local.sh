#!/usr/bin/env bash
# t400-run-local: `fleetmark run` on the default fleet (this machine, local
# transport, no -f): the run directory is complete (run.json finished,
# exactly one ok line per trial and metric, hosts/local.json, logs/local.log),
# the summary shows the numbers and the run directory, nothing is left
# running; --dry-run contacts nothing and writes nothing; bad input exits 2
# with the loader's FILE:LINE:COL; SIGINT stops the run cleanly (exit 130,
# run.json interrupted) and --resume finishes it with one ok line per trial;
# a trial past its deadline fails alone (timeout); a full disk under the
# run directory stops the run (exit 1, run.json "failed", the trials not
# run counted) and a resume with room again completes it.
# cost: 22 s, timed
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
WORK=$(mktemp -d /tmp/t400.XXXXXX)
trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
export T400_MARK=1

# --- smoke on the default fleet ------------------------------------------------

t0=$(date +%s%N)
"$FLEETMARK" run plans/smoke.yaml -o "$WORK/r" >"$WORK/out" 2>"$WORK/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 0 "run plans/smoke.yaml on the default fleet exits 0 (${ms} ms)"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/err"
dirs=("$WORK"/r/*)
is "${#dirs[@]}" 1 "one run directory under -o"
D=${dirs[0]}
like "${D##*/}" '^[0-9]{8}-[0-9]{6}-smoke-[0-9a-f]{4}$' "named DATE-TIME-PLAN-HEX"
is "$(jq -r '.status + " " + .hosts.local.status + " " + (.hosts.local.ok|tostring) + " " + (.end != null|tostring)' "$D/run.json")" \
	"finished done 6 true" "run.json: finished, local done with 6 ok trials, an end time"
T=$D/trials.jsonl
check "trials.jsonl: every line is a JSON object" jq_all "$T"
# smoke: 3 points x repeat 2, one metric each.
is "$(wc -l <"$T") $(jq -r 'select(.status == "ok") | .key + " " + .metric' "$T" | sort -u | wc -l)" "6 6" \
	"exactly one ok line per (trial, metric): 6 lines, 6 distinct"
is "$(jq -r '[.host, .kind, (.samples|length|tostring), (.value|type)] | join(" ")' "$T" | sort -u)" \
	"local ok 5 number" "each line: host local, kind ok, the plan's 5 samples, a value"
is "$(jq -r .key "$T" | head -3 | xargs)" "-/lat_syscall/op=null,sampling=lmbench/1 -/lat_syscall/op=read,sampling=lmbench/1 -/lat_pipe/size=1,sampling=lmbench,interval=5000/1" \
	"trials in the plan's interleaved order"
is "$(jq -r '.arch' "$D/hosts/local.json")" "$(jq -r .arch < <("$AGENT" env --json 2>/dev/null || echo '{}'))" \
	"hosts/local.json: the agent's env facts"
like "$(grep "connected as" "$D/logs/local.log")" "connected as [a-z0-9_-]+@localhost" "logs/local.log records the login"
like "$(grep " serving" "$D/logs/local.log")" "agent 0\.[0-9.]+ \([a-z0-9_]+\) serving, pid [0-9]+" "... and the agent serving"
check "report.txt written in the run directory" test -s "$D/report.txt"
like "$(grep -c -F -x -f <(grep -v '^ *$' "$D/report.txt" | head -3) "$WORK/out")" '^([3-9]|[1-9][0-9]+)$' "stdout shows the report's tables"
like "$(grep -E '^local ' "$D/report.txt" | head -1)" '^local +[^ ]+ +[0-9]+ +[0-9.]+' "... with local's numbers"
is "$(tail -1 "$WORK/out")" "run directory: $D" "stdout ends with the run directory"
sleep 0.3
is "$(procs_with_mark T400_MARK)" "" "no agent or child left running"

# --- dry run, bad input ------------------------------------------------------------

"$FLEETMARK" run --dry-run plans/smoke.yaml -o "$WORK/dry" >"$WORK/dry.out" 2>&1
is "$? $(test -e "$WORK/dry" && echo written || echo none)" "0 none" "--dry-run exits 0 and writes nothing"
like "$(cat "$WORK/dry.out")" "host local: 6 trials" "... and shows the trials per host"
printf 'name: bad\nbenchmarks:\n  - bench: lat_sycall\n' >"$WORK/bad.yaml"
"$FLEETMARK" run "$WORK/bad.yaml" -o "$WORK/bad" >"$WORK/bad.out" 2>&1
is "$?" 2 "an invalid plan: exit 2"
like "$(cat "$WORK/bad.out")" "bad\.yaml:3:[0-9]+: .*lat_sycall" "... with the loader's FILE:LINE:COL message"
check_fail "... and no run directory" test -e "$WORK/bad"
"$FLEETMARK" run plans/smoke.yaml -j 0 >/dev/null 2>&1
is "$?" 2 "-j 0: exit 2"
"$FLEETMARK" run plans/smoke.yaml -f "$WORK/nofleet.yaml" >/dev/null 2>&1
is "$?" 2 "a missing fleet file: exit 2"

# --- SIGINT, then --resume --------------------------------------------------------

cat >"$WORK/slow.yaml" <<'P'
name: slow
repeat: 4
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
      copies: 1
P
"$FLEETMARK" run "$WORK/slow.yaml" -o "$WORK/s" >"$WORK/s.out" 2>"$WORK/s.err" &
pid=$!
for _ in $(seq 100); do
	[ -s "$(run_dir "$WORK/s")/trials.jsonl" ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
S=$(run_dir "$WORK/s")
n_ok=$(jq -r 'select(.status == "ok") | .key' "$S/trials.jsonl" | sort -u | wc -l)
is "$rc $(jq -r '.status + " " + .hosts.local.status' "$S/run.json")" "130 interrupted interrupted" \
	"SIGINT: exit 130, run.json and the host interrupted"
like "$(cat "$WORK/s.err")" "--resume $S" "... and says how to resume"
[ "$n_ok" -ge 1 ] && [ "$n_ok" -lt 4 ]
tap_result $? "... after $n_ok of 4 trials"
sleep 0.3
is "$(procs_with_mark T400_MARK)" "" "... nothing left running (the agent cancelled its trial)"
"$FLEETMARK" run "$WORK/slow.yaml" --resume "$S" >"$WORK/s2.out" 2>"$WORK/s2.err"
rc=$?
is "$rc $(jq -r .status "$S/run.json")" "0 finished" "--resume: exit 0, the run finished"
is "$(ok_per_trial "$S/trials.jsonl")" \
	"1 4" "... exactly one ok line per (trial, metric), all 4 trials"
"$FLEETMARK" run plans/smoke.yaml --resume "$S" >/dev/null 2>"$WORK/s3.err"
is "$?" 2 "--resume with another plan: exit 2"
like "$(cat "$WORK/s3.err")" "plan 'slow', not 'smoke'" "... saying whose run it is"
"$FLEETMARK" run plans/smoke.yaml --resume "$WORK/no-such-run" >/dev/null 2>"$WORK/s4.err"
is "$?" 2 "--resume of a directory that is not a run: exit 2"
like "$(cat "$WORK/s4.err")" "not a run directory" "... saying so"

# --- a trial past its deadline fails alone -----------------------------------------

cat >"$WORK/to.yaml" <<'P'
name: to
repeat: 1
samples: 3
timeout: 1s
benchmarks:
  - bench: exec
    params:
      command: "sleep 5"
  - bench: lat_syscall
P
t0=$(date +%s%N)
"$FLEETMARK" run "$WORK/to.yaml" -o "$WORK/to" >"$WORK/to.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc $(jq -r '[.bench, .status, .kind] | join(":")' "$(run_dir "$WORK/to")/trials.jsonl" | xargs)" \
	"3 exec:timeout:benchmark lat_syscall:ok:ok" \
	"a trial past the plan's 1 s timeout: status timeout (a benchmark failure), the next trial runs, exit 3"
[ "$ms" -lt 4000 ]
tap_result $? "... without waiting for the 5 s command (${ms} ms)"

# --- a full disk stops the run -----------------------------------------------------

if [ "$(id -u)" -eq 0 ] && mkdir -p "$WORK/full" && mount -t tmpfs -o size=40k tmpfs "$WORK/full" 2>/dev/null; then
	cat >"$WORK/many.yaml" <<'P'
name: many
repeat: 100
samples: 11
timeout: 60s
benchmarks:
  - bench: lat_syscall
P
	"$FLEETMARK" run "$WORK/many.yaml" -o "$WORK/full" >"$WORK/full.out" 2>"$WORK/full.err"
	rc=$?
	F=$(run_dir "$WORK/full")
	n=$(wc -l <"$F/trials.jsonl")
	is "$rc" 1 "a full disk under the run directory: exit 1"
	like "$(cat "$WORK/full.err")" "cannot write $F/trials\.jsonl: No space left on device" "... saying so"
	[ "$n" -gt 0 ] && [ "$n" -lt 100 ]
	tap_result $? "... after $n trials: the run stopped instead of losing results"
	check "... and trials.jsonl holds whole lines only" jq_all "$F/trials.jsonl"
	like "$(grep '^local ' "$WORK/full.out")" "^local +interrupted +$n " "the summary counts only the $n trials kept"
	is "$(jq -r '.status + " " + (.end != null | tostring)' "$F/run.json")" "failed true" \
		"... run.json says failed, with an end (written into the room kept for it), not running"
	like "$(grep -E '^[0-9TZ:-]+ [0-9]+/100 trials' "$WORK/full.err")" " $n/100 trials, 0 failed, $((100 - n)) not run, in " \
		"... and the last line: $n trials kept, $((100 - n)) not run"
	check "... no spare left behind" test ! -e "$F/.run.json.spare"
	mount -o remount,size=400k "$WORK/full"
	"$FLEETMARK" run --resume "$F" >/dev/null 2>&1
	is "$? $(jq -r .status "$F/run.json") $(ok_per_trial "$F/trials.jsonl")" "0 finished 1 100" \
		"with room again, --resume completes the run"
	umount "$WORK/full"
else
	skip "a full disk stops the run" "needs root to mount a small tmpfs"
fi

done_testing
