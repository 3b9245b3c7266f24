#!/usr/bin/env bash
# t406-profile: `profile: perf` on lab hosts.  Logged in as root, each ok
# trial of the profiled benchmark carries a system-wide perf profile that
# makes sense (samples > 0, top functions, percentages summing to at most
# 100, hits to at most the samples); logged in as bench (perf_event_paranoid
# above 0) the trials are still ok and the profile says it is not
# permitted; on the armhf board, which has no perf, it says "perf not
# found".  Two runs side by side in `fleetmark report --table profile`
# (text with readprofile's header and a change column, html with the
# table).  After the runs, and after a profiled trial killed at its
# deadline, no perf process and no scratch directory of the agent is left.
# cost: 19 s, busy; lab: lab-01 board-armhf
# shellcheck disable=SC2317 # functions called through trap
TNAME=t406
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
{ command -v perf && perf version; } >/dev/null 2>&1 || skip_all "needs perf (linux-perf)"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo none)

use_lab "$TNAME"
L=$LABDIR
has_host lab-01 || { echo "Bail out! the lab has no lab-01"; exit 1; }

# perf processes an agent started (their output is in a trial's scratch
# directory), and scratch directories holding a recording: none may stay.
# One pgrep, not a pipeline per process: with the suite's tests side by
# side there are hundreds of processes, and a scan that forks twice for
# each took longer than the 3 s trial it looks for.
agent_perfs() {
	pgrep -f '(^|/)perf[^ ]* record .*fleetmark-trial\.' | xargs
}
left_recordings() { find /tmp -maxdepth 2 -path '/tmp/fleetmark-trial.*/perf.data' 2>/dev/null | wc -l; }

cat >"$WORK/plan.yaml" <<'P'
name: profile-lab
repeat: 2
samples: 3
timeout: 120s
benchmarks:
  - bench: exec
    params:
      command: "ls -lR /etc /usr/bin > /dev/null 2>&1; cat /proc/self/status > /dev/null"
      copies: 2
    profile: perf
  - bench: lat_syscall
    params:
      op: null
P

# The board needs the prebuilt armhf agent (make agents): it has no compiler.
RHOSTS=lab-01
if [ -x "${FLEETMARK_AGENTS:-$(dirname "$FLEETMARK")/agents}/armhf/fleetmark-agent" ] && has_host board-armhf; then
	RHOSTS=lab-01,board-armhf
fi

# --- as root: a profile ------------------------------------------------------
for label in one two; do
	"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "$RHOSTS" --label "$label" \
		-o "$WORK/root-$label" >"$WORK/root-$label.out" 2>"$WORK/root-$label.err"
	rc=$?
	is "$rc" 0 "root, run $label: exits 0"
	[ "$rc" = 0 ] || tail -20 "$WORK/root-$label.err" | sed 's/^/#   /'
done
R1=$(run_dir "$WORK/root-one")
R2=$(run_dir "$WORK/root-two")
T=$R1/trials.jsonl
is "$(jq -r 'select(.host == "lab-01" and .bench == "exec" and .status == "ok" and .part == 1) | .key' "$T" | sort -u | wc -l)" 2 \
	"lab-01: both exec trials ok"
is "$(jq -c 'select(.host == "lab-01" and .bench == "exec" and .part == 1) | .profile |
	(.samples > 0) and (.event | length > 0) and (.top | length > 0) and (.top | length <= 30) and
	(([.top[].pct] | add) <= 100.01) and (([.top[].hits] | add) <= .samples) and
	all(.top[]; (.sym | length > 0) and .hits >= 0)' "$T" | sort -u | xargs)" true \
	"lab-01 as root: every exec trial has a plausible profile (samples, top functions, percentages)"
diag "lab-01 top: $(jq -r 'select(.host == "lab-01" and .profile.top) | .profile | "\(.samples) samples, \(.top[0].sym) \(.top[0].pct)%"' "$T" | head -1)"
is "$(jq -c 'select(.host == "lab-01" and .bench == "exec" and .part > 1) | has("profile")' "$T" | sort -u | xargs)" false \
	"the profile is on a trial's first line only"
is "$(jq -c 'select(.bench == "lat_syscall") | has("profile")' "$T" | sort -u | xargs)" false \
	"a benchmark without profile: perf gets none"
if [ "$RHOSTS" = lab-01 ]; then
	skip "board-armhf (no perf): perf not found" "no armhf agent (make agents) or no board"
else
	is "$(jq -r 'select(.host == "board-armhf" and .bench == "exec" and .part == 1) | "\(.status) \(.profile.absent)"' "$T" | sort -u)" \
		"ok perf not found" "board-armhf (no perf): trials ok, profile absent: perf not found"
fi

# --- as bench: not permitted -------------------------------------------------
if [ "$paranoid" -gt 0 ] 2>/dev/null; then
	"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet-bench.yaml" -H lab-01 -o "$WORK/bench" \
		>"$WORK/bench.out" 2>"$WORK/bench.err"
	is "$?" 0 "bench: run exits 0"
	B=$(run_dir "$WORK/bench")/trials.jsonl
	is "$(jq -r 'select(.bench == "exec" and .part == 1) | "\(.status) \(.profile.absent)"' "$B" | sort -u)" \
		"ok perf_event_paranoid=$paranoid: system-wide profiling needs root (or perf_event_paranoid <= 0)" \
		"bench: trials ok, profile absent with the permission reason"
else
	skip "bench: not permitted" "perf_event_paranoid is $paranoid here: bench may profile"
	skip "bench: reason" "perf_event_paranoid is $paranoid"
fi

# --- report: side by side ----------------------------------------------------
"$FLEETMARK" report "$R1" "$R2" --table profile >"$WORK/report.txt" 2>"$WORK/report.err"
is "$?" 0 "report RUN1 RUN2 --table profile exits 0"
like "$(cat "$WORK/report.txt")" "lab-01/one \(2 trials\) +lab-01/two \(2 trials\)" "the two runs side by side"
like "$(grep -c '^Hits Percentage Function' "$WORK/report.txt")" "^1$" "one readprofile header line for the side-by-side blocks"
like "$(grep -E '^ *[0-9]+ 100\.00 total' "$WORK/report.txt")" "total +[0-9]+ 100\.00 total" "a total line per series"
like "$(grep -A1 '^profile change:' "$WORK/report.txt" | tail -1)" "lab-01/two change +lab-01/two ratio" "a change column against the baseline"
if [ "$RHOSTS" = lab-01 ]; then
	skip "the board's absent profiles counted" "no board run"
else
	like "$(cat "$WORK/report.txt")" "board-armhf/one: 2 trials without profile: perf not found" \
		"the board's absent profiles counted, with why"
fi
"$FLEETMARK" report "$R1" "$R2" --table profile -F html -o "$WORK/report.html" 2>>"$WORK/report.err"
is "$?" 0 "report --table profile -F html exits 0"
check "the html page has the profile and change tables" \
	grep -q 'data-table="profile-change"' "$WORK/report.html"
check "run wrote the profile into report.txt (auto)" grep -q '^Hits Percentage Function' "$R1/report.txt"

is "$(agent_perfs)" "" "no perf process left after the runs"
is "$(left_recordings)" 0 "no scratch directory with a recording left"

# --- a profiled trial killed at its deadline ---------------------------------
cat >"$WORK/slow.yaml" <<'P'
name: profile-timeout
repeat: 1
samples: 3
timeout: 3s
benchmarks:
  - bench: exec
    params:
      command: "sleep 20"
      copies: 1
    profile: perf
P
"$FLEETMARK" run "$WORK/slow.yaml" -f "$L/fleet.yaml" -H lab-01 -o "$WORK/slow" >"$WORK/slow.out" 2>"$WORK/slow.err" &
runpid=$!
# While the trial runs, perf records (and agent_perfs sees it: the check
# after the run can fail).  Looked for until the run ends (at most a
# minute): on a loaded machine the login and deploy before the trial can
# take longer than the trial itself.
during=''
for _ in $(seq 1 600); do
	during=$(agent_perfs)
	[ -n "$during" ] && break
	kill -0 "$runpid" 2>/dev/null || break
	sleep 0.1
done
isnt_empty() { [ -n "$1" ]; }
check "perf record runs during the profiled trial (pid ${during:-none})" isnt_empty "$during"
wait "$runpid"
S=$(run_dir "$WORK/slow")/trials.jsonl
is "$(jq -r '"\(.status) \(has("profile"))"' "$S" | sort -u)" "timeout false" \
	"a profiled trial past its deadline: timeout, no profile"
is "$(agent_perfs)" "" "no perf process left after the timeout"
is "$(left_recordings)" 0 "no recording left after the timeout"

done_testing
