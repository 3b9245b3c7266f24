#!/usr/bin/env bash
# t634-archive-push-identity: push refuses a run whose run.json says it is
# still running (exit 2, saying so and how to push it anyway; nothing
# listed), and pushes it with --force.  A different run that has the same
# id as one in the archive (another start time, or another controller
# host) is refused (exit 1, "another run with the same id") and the
# archive keeps the first; --force replaces it.  The same run pushed
# again with one trial more (a resumed run) still replaces itself.  On a
# file:// archive with the report fixture: no agent, no lab.  Costs
# about 1 s.
# cost: 1 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
W=$(mktemp -d /tmp/t634.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset FLEETMARK_CONFIG
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1
URL=file://$W/arch
ID=20011130-041500-tlb-flush-range-3f2a
FIX=$TOP/tests/data/report/munmap-base

# a run still running
mkdir a b c
cp -r "$FIX" "a/$ID"
jq '.status = "running" | del(.end)' "$FIX/run.json" >"a/$ID/run.json"
run_fm run1 push "a/$ID" "$URL"
is "$rc" 2 "push of a run whose run.json says running: exit 2"
like "$(cat run1.err)" "still running.*push --force" "... saying it is still running and how to push it anyway"
run_fm ls1 ls "$URL"
is "$rc $(cat ls1.out)" "0 " "... and nothing is listed"
run_fm run2 push --force "a/$ID" "$URL"
is "$rc" 0 "push --force pushes it"

# another run with the same id: another start
rm -rf arch
cp -r "$FIX" "b/$ID"
run_fm first push "b/$ID" "$URL"
is "$rc" 0 "push a run"
cp -r "$FIX" "c/$ID"
jq '.start = "2001-11-30T04:15:00.5Z"' "$FIX/run.json" >"c/$ID/run.json"
head -3 "$FIX/trials.jsonl" >"c/$ID/trials.jsonl"
run_fm other push "c/$ID" "$URL"
is "$rc" 1 "push of another run (another start) with the same id: exit 1"
like "$(cat other.err)" "another run with the same id \(it started at 2001-11-30T04:15:00Z.*not replaced" \
	"... saying it is another run, and why"
check "... and the archive still holds the first run" cmp -s "b/$ID/trials.jsonl" "arch/$ID/trials.jsonl"
jq '.controller.host = "elsewhere"' "$FIX/run.json" >"c/$ID/run.json"
run_fm other2 push "c/$ID" "$URL"
is "$rc" 1 "... another controller host: refused too"
like "$(cat other2.err)" "ran on controller" "... saying so"
run_fm other3 push --force "c/$ID" "$URL"
is "$rc" 0 "push --force replaces it"
check "... the archive holds the second run" cmp -s "c/$ID/trials.jsonl" "arch/$ID/trials.jsonl"

# the same run, resumed: one trial more replaces itself
rm -rf arch
head -10 "$FIX/trials.jsonl" >"b/$ID/trials.jsonl"
"$FLEETMARK" -q push "b/$ID" "$URL"
cp "$FIX/trials.jsonl" "b/$ID/trials.jsonl"
run_fm again push "b/$ID" "$URL"
is "$rc" 0 "the same run pushed again with more trials: exit 0"
check "... replacing itself" cmp -s "b/$ID/trials.jsonl" "arch/$ID/trials.jsonl"

done_testing
