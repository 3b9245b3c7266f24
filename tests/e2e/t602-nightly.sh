#!/usr/bin/env bash
# t602-nightly: `fleetmark run PLAN --push URL --baseline latest`, as cron
# runs it (docs/nightly.md), on a lab host against a file:// archive.  The
# first night has no baseline: a note, exit 0.  A second night at the same
# speed: compared with the first (fetched from the archive), exit 0.  A
# third night whose exec workload takes five times as long: exit 4, and
# stdout and report.txt (also the pushed copy) name the regressed metric on
# a REGRESSION: line; only the plan's regression.metrics count.  Reports
# read archive URLs; a failed push exits 1, keeps the run and says how to
# push it again, and never shows a password of the URL; a baseline that is
# not a run is bad input.
# cost: 60 s, waiting; lab: lab-05
# shellcheck disable=SC2317 # functions called through trap
TNAME=t602
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
H=lab-05
SSHC=(ssh -F "$LABDIR/ssh_config" -o BatchMode=yes)
export XDG_CACHE_HOME=$WORK/cache
A=file://$WORK/archive
mkdir -p "$WORK/archive"
cd "$WORK" || exit 1

cat >plan.yaml <<'P'
name: nightly-exec
repeat: 5
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sh /tmp/fm-t602/work.sh"
      copies: 1
regression:
  threshold: 50%
  metrics: [exec.seconds]
P
# work SECONDS: what the host's workload does tonight (the "system under
# test"): a sleep, whose length a loaded machine does not change (a shell
# loop's did, by half, from one night to the next).
work() {
	local body="sleep $1"
	for _ in 1 2 3; do
		printf '%s\n' "$body" |
			"${SSHC[@]}" "$H" 'mkdir -p /tmp/fm-t602 && cat >/tmp/fm-t602/work.sh' &&
			[ "$("${SSHC[@]}" "$H" cat /tmp/fm-t602/work.sh)" = "$body" ] && return 0
		sleep 1
	done
	return 1
}
# night NAME: one nightly run; its exit status in $rc.
night() {
	"$FLEETMARK" run plan.yaml -f "$LABDIR/fleet.yaml" -H "$H" -o results --push "$A" \
		--baseline latest -q >"$1.out" 2>"$1.err"
	rc=$?
	sed 's/^/# /' "$1.err"
}
rundir_of() { sed -n 's/^run directory: //p' "$1.out"; }

# --- night 1: nothing to compare with -----------------------------------------
check "night 1: the workload is on $H" work 0.2
night n1
is "$rc" 0 "night 1: exit 0"
like "$(cat n1.out)" "^baseline: none: no earlier finished run of plan 'nightly-exec' on these hosts in $A; nothing to compare with" \
	"night 1: a note that there is no baseline yet"
R1=$(rundir_of n1)
is "$("$FLEETMARK" ls "$A" 2>&1)" "${R1##*/}" "night 1 was pushed"

# --- night 2: the same speed -------------------------------------------------------
night n2
is "$rc" 0 "night 2 at the same speed: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' n2.out
like "$(head -1 n2.out)" "^baseline: $A/${R1##*/} \($WORK/cache/fleetmark/archive/.*/${R1##*/}\)\$" \
	"night 2: the baseline is night 1, fetched from the archive into the cache"
like "$(cat n2.out)" "Compare against $H/" "night 2: the report is the compare table"
check "night 2: no REGRESSION line" bash -c '! grep -q "^REGRESSION:" n2.out'
R2=$(rundir_of n2)

# --- night 3: five times as long ----------------------------------------------------
check "night 3: five times as long on $H" work 1.0
night n3
is "$rc" 4 "night 3 with a slowdown: exit 4"
[ "$rc" = 4 ] || grep -E '^exec ' n1.out n2.out n3.out | sed 's/^/#   /'
like "$(head -1 n3.out)" "^baseline: $A/${R2##*/} " "night 3: the baseline is night 2 (the newest earlier one)"
like "$(cat n3.out)" "^REGRESSION: exec\.seconds\[command=sh /tmp/fm-t602/work\.sh,copies=1\] \+[0-9.]+% \(p=[0-9.e-]+, q=[0-9.e-]+\) $H/[^ ]+: [0-9.]+ -> [0-9.]+ s \(baseline $H/" \
	"stdout names the regressed metric with its change and p"
R3=$(rundir_of n3)
like "$(cat "$R3/report.txt")" "REGRESSION: exec\.seconds\[" "report.txt names it too"
like "$(grep -E '^exec .* runs_per_hour ' "$R3/report.txt")" " worse( |\$)" "runs_per_hour is marked worse in the table"
check "but it is not in regression.metrics: no REGRESSION line for it" \
	bash -c "! grep -q '^REGRESSION: exec.runs_per_hour' '$R3/report.txt'"
is "$(cat n3.err)" "" "-q: nothing on stderr, the report on stdout is the mail"
like "$(cat "$R3/report.html")" "Regressions: worse, and a metric of the plan" \
	"report.html has the regressions table"
grep '^REGRESSION' n3.out | while IFS= read -r l; do diag "$l"; done
is "$("$FLEETMARK" ls "$A" 2>&1 | wc -l)" 3 "three nights in the archive"
check "the pushed night 3 has its report" bash -c "grep -q '^REGRESSION: exec.seconds' '$WORK/archive/${R3##*/}/report.txt'"

# --- reports read archive URLs ---------------------------------------------------------
"$FLEETMARK" compare "$A/${R2##*/}" "$A/${R3##*/}" --table compare >cmp.out 2>cmp.err
is "$?" 4 "compare URL/RUN URL/RUN: exit 4"
like "$(cat cmp.out)" "^REGRESSION: exec\.seconds" "and the same REGRESSION line"
"$FLEETMARK" report "$A/latest" >lat.out 2>lat.err
is "$?" 0 "report URL/latest: exit 0"
like "$(cat lat.out)" "series" "a table"
"$FLEETMARK" report "$A/20011130-000000-nosuch-0000" >/dev/null 2>nf.err
is "$?" 1 "report of a run the archive does not have: exit 1"

# --- a failed push keeps the run -------------------------------------------------------------
check "night 4: the old workload again" work 0.2
"$FLEETMARK" run plan.yaml -f "$LABDIR/fleet.yaml" -H "$H" -o results --push "file:///proc/nope" \
	--baseline latest -q >n4.out 2>n4.err
is "$?" 1 "a push that fails: exit 1"
R4=$(rundir_of n4)
check "the run is kept" test -s "$R4/report.txt"
like "$(cat n4.err)" "the run is kept in $R4; \`fleetmark push $R4 file:///proc/nope\` pushes it again" \
	"the message says how to push it again"
like "$(cat n4.out)" "^baseline: none: .* in file:///proc/nope" "latest is looked for in the --push archive"

# A password in the URL never shows (nothing listens on 127.0.0.1:9).
"$FLEETMARK" run plan.yaml -f "$LABDIR/fleet.yaml" -H "$H" -o results \
	--push "http://bench:s3cr3t-pw@127.0.0.1:9/archive" --baseline latest -q >n5.out 2>n5.err
is "$?" 1 "an archive that does not answer: exit 1"
R5=$(rundir_of n5)
like "$(cat n5.err)" "push to http://127\.0\.0\.1:9/archive: " "the push error names the URL"
check "without its password: not in stdout, stderr or the run directory" \
	bash -c "! grep -rq s3cr3t-pw n5.out n5.err '$R5'"

# --- bad input ------------------------------------------------------------------------------------
"$FLEETMARK" run plan.yaml -f "$LABDIR/fleet.yaml" -H "$H" -o results --baseline nosuch-run >/dev/null 2>e1.err
is "$?" 2 "a --baseline that is not a run: exit 2 before anything runs"
like "$(cat e1.err)" "baseline nosuch-run: not a run" "and says so"
"$FLEETMARK" run plan.yaml --push /srv/runs >/dev/null 2>e2.err
is "$?" 2 "--push without a URL scheme: exit 2"
is "$(find results -mindepth 1 -maxdepth 1 -type d | wc -l)" 5 "no run directory was made by those"

done_testing
