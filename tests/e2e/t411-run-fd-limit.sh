#!/usr/bin/env bash
# t411-run-fd-limit: a fleet bigger than the open-file limit.  Every host
# holds a few descriptors at once; the controller raises its soft limit
# towards the hard one before it connects, so a soft limit far too small
# for the fleet (as 1,024 is for a thousand hosts) still runs every host,
# and a hard limit too small refuses the run, once said, before anything
# is written.
# cost: 3 s, busy; lab: all
TNAME=t411
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
command -v prlimit >/dev/null || skip_all "needs prlimit (util-linux)"

use_lab "$TNAME"
L=$LABDIR

plan_syscall "$WORK/plan.yaml" fd-limit 1 3
NH=$(printf '%s\n' "${HOSTS[@]}" | grep -c '^lab-[0-9]')
hosts='lab-[0-9]*'
# Far too few for NH hosts (the run directory and libraries alone take
# about a dozen), hard limit high enough.
soft=$((NH + 8))

prlimit --nofile="$soft:4096" "$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "$hosts" \
	-o "$WORK/r1" >"$WORK/r1.out" 2>"$WORK/r1.err"
rc=$?
is "$rc" 0 "$NH hosts under a soft limit of $soft open files: exit 0"
[ "$rc" = 0 ] || tail -20 "$WORK/r1.err" | sed 's/^/#   /'
D=$(run_dir "$WORK/r1")
is "$(jq -r '[.hosts[] | .status] | unique | join(",")' "$D/run.json")" "done" "every host done"
check_fail "no warning when the hard limit allows the raise" grep -q 'open files' "$WORK/r1.err"

# A hard limit that cannot be raised: the run is refused before it starts,
# with the figure (t417 tests the same at 300 local hosts).
prlimit --nofile="$soft:$soft" "$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "$hosts" \
	-o "$WORK/r2" >"$WORK/r2.out" 2>"$WORK/r2.err"
is "$?" 1 "a hard limit too small: exit 1"
like "$(cat "$WORK/r2.err")" "$NH hosts need [0-9]+ open files, and the limit is $soft" \
	"a hard limit too small is said"
is "$(grep -c "open files" "$WORK/r2.err")" 1 "once"; grep "open files" "$WORK/r2.err" | sed "s/^/# /"
check_fail "nothing written" test -e "$WORK/r2"

done_testing
