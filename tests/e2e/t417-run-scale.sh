#!/usr/bin/env bash
# t417-run-scale: what a big fleet needs, at a size any machine can run,
# without the lab (local hosts, one at a time, since they share this
# machine's host lease): a fleet the open-file limit cannot hold is refused
# before anything is written (exit 1, the figure and the way out said,
# with -j too), while a part of it that fits runs, its hosts' "not tuned"
# warning said by five and the rest counted; a fleet above the
# summary threshold (FLEETMARK_PROGRESS_SUMMARY) is summed up off a
# terminal (no line per host state or trial, lines of the hosts by state)
# and on one (a pseudo-terminal: the hosts by state, the slowest, the bar).
# cost: 7 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_tools jq
WORK=$(mktemp -d /tmp/t417.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
# The hosts' lease (agent/lease.c) of this test's own: other tests' local
# agents on this machine do not hold these hosts.
export FLEETMARK_LEASE_FILE=$WORK/lease

plan_syscall plan.yaml scale 1 3
{
	echo "hosts:"
	for i in $(seq 1 300); do printf '  loc%03d:\n    transport: local\n    labels: [local]\n' "$i"; done
} >fleet.yaml

# --- the open-file limit ---------------------------------------------------------

# `ulimit -n` lowers the hard limit too: nothing can raise it back.
(ulimit -n 200 && exec "$FLEETMARK" run plan.yaml -f fleet.yaml -o r1 >r1.out 2>r1.err)
is "$?" 1 "300 hosts under a hard limit of 200 open files: exit 1"
like "$(cat r1.err)" "^fleetmark: error: 300 hosts need [0-9]+ open files, and the limit is 200: raise the hard limit \(ulimit -Hn, or LimitNOFILE=\), run fewer at once \(-j\), or split the fleet between runs \(-H\)$" \
	"the figure and the ways out, on one line"
check_fail "nothing written: no results directory" test -e r1
(ulimit -n 200 && exec "$FLEETMARK" run plan.yaml -f fleet.yaml -j 10 -o r2 >r2.out 2>r2.err)
is "$?" 1 "... and at -j 10 (each host's log stays open)"
like "$(cat r2.err)" "300 hosts, 10 at once, need [0-9]+ open files" "-j said"
check_fail "nothing written" test -e r2

# A part of the fleet that fits runs under the same limit.
(ulimit -n 200 && exec "$FLEETMARK" run plan.yaml -f fleet.yaml -H 'loc00*' -j 1 -o r3 >r3.out 2>r3.err)
rc=$?
is "$rc" 0 "9 of the hosts (-H) under the same limit: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' r3.err | tail -5
D=$(run_dir r3)
is "$(jq -r '[.hosts[] | .status] | unique | join(",")' "$D/run.json" 2>/dev/null)" "done" "every host done"
# The warning every untuned host gives: said by the first five, the rest counted.
if grep -q 'not tuned for benchmarking' r3.err; then
	is "$(grep -c ': not tuned for benchmarking: ' r3.err)" 5 "nine untuned hosts: five say so"
	like "$(cat r3.err)" 'and 4 more hosts not tuned for benchmarking \(each one.s log says how\)' \
		"... and the other four are counted"
else
	skip "the untuned warning of a big fleet" "this machine is tuned"
	skip "the untuned warning counted" "this machine is tuned"
fi

# --- progress of a big fleet -----------------------------------------------------

# Off a terminal, 6 hosts over a threshold of 3: no line per host state or trial.
FLEETMARK_PROGRESS_SUMMARY=3 "$FLEETMARK" run plan.yaml -f fleet.yaml -H 'loc00[1-6]' -j 1 \
	-o r4 >r4.out 2>r4.err
rc=$?
is "$rc" 0 "6 hosts, summed up: exit 0"
[ "$rc" = 0 ] || sed 's/^/#   /' r4.err | tail -5
P=$(grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' r4.err)
printf '%s\n' "$P" | head -12 | sed 's/^/#   /'
is "$(grep -cE 'Z loc00[1-6] ' <<<"$P")" 0 "no line of any one host"
like "$(head -1 <<<"$P")" '^[0-9TZ:-]+ 6 hosts: (5 waiting, 1 connecting|6 waiting); 0/6 trials, 0 failed$' \
	"the first line: the hosts by state, the trials"
like "$(tail -2 <<<"$P" | head -1)" ' 6 hosts: 6 done; 6/6 trials, 0 failed$' "the last state: all done"
like "$(tail -1 <<<"$P")" ' 6/6 trials, 0 failed, in [0-9a-z]+$' "and the counts at the end"
n=$(wc -l <<<"$P")
check "at most one summary line a second, and a few more ($n lines)" test "$n" -le $(($(jq -r '(.end | fromdateiso8601) - (.start | fromdateiso8601)' "$(run_dir r4)/run.json" 2>/dev/null || echo 60) + 4))

# The same threshold without it: a line per host state again.
FLEETMARK_PROGRESS_SUMMARY=0 "$FLEETMARK" run plan.yaml -f fleet.yaml -H 'loc00[1-2]' -j 1 \
	-o r5 >r5.out 2>r5.err
like "$(cat r5.err)" 'Z loc001 trial 1/1 lat_syscall op=null rep 1' "FLEETMARK_PROGRESS_SUMMARY=0: a line per host and trial"

# On a terminal (script(1) gives the run a pseudo-terminal).
if command -v script >/dev/null; then
	FLEETMARK_PROGRESS_SUMMARY=3 COLUMNS=100 LINES=30 script -qfec \
		"$FLEETMARK run plan.yaml -f fleet.yaml -H 'loc00[1-6]' -j 1 -o r6" /dev/null >r6.tty 2>&1
	rc=$?
	is "$rc" 0 "on a terminal: exit 0"
	T=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' r6.tty | tr '\r' '\n')
	like "$T" '6 hosts: [0-9]+ waiting, 1 (connecting|deploying|running)' "the hosts by state"
	like "$T" 'slowest of 1 busy:' "the slowest busy host"
	like "$T" '6 hosts: 6 done' "all done in the last frame"
	like "$T" '\] 6/6 trials .* in [0-9a-z]+' "the bar"
else
	skip "on a terminal" "no script(1)"
fi

done_testing
