#!/usr/bin/env bash
# t522-report-controls: a hostile run whose label, parameter values,
# metric names, units and notes carry ESC ]0;title BEL, ESC [2J, an OSC 52
# clipboard write and a bare CR: `report` and `compare` in text, md and
# csv, and the error of a compare with no points in common, print none of
# the bytes ESC, BEL or CR (they show as \x1b...); md writes '<' as &lt;
# and a csv cell that would be a formula starts with a quote.  Fixture
# run directories only.  About 1 s.
# cost: 1 s, busy
# shellcheck disable=SC2317 # functions called through check
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
WORK=$(mktemp -d /tmp/t522.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
export XDG_CONFIG_HOME=$WORK/cfg XDG_CACHE_HOME=$WORK/cache NO_COLOR=1
unset FLEETMARK_CONFIG
D=$TOP/tests/data/report

TITLE=$'\e]0;PWNED-TITLE\a'
CLEAR=$'\e[2J'
CLIP=$'\e]52;c;cm0gLXJmIH4K\a'
CR=$'\rREGRESSION: forged'
mkdir -p evil/hosts
cp "$D/munmap-base/hosts/"* evil/hosts/
jq --arg l "base$TITLE" '.label = $l' "$D/munmap-base/run.json" >evil/run.json
jq -c --arg t "$TITLE" --arg c "$CLEAR" --arg p "$CLIP" --arg r "$CR" '
	.params.pages = ("16" + $c) | .metric = (.metric + $t) | .unit = ("ns" + $r) |
	.bench = "=HYPERLINK(\"x\")" | .notes = ["note" + $p, "<b>|x</b>"]' "$D/munmap-base/trials.jsonl" >evil/trials.jsonl
# evil2: the same, once more, so that compare has common points
cp -r evil evil2

# raw FILE: whether FILE holds ESC, BEL or CR
raw() { LC_ALL=C grep -q $'[\e\a\r]' "$1"; }

for f in text md csv; do
	run_fm "rep-$f" report evil --format "$f"
	is "$rc" 0 "report --format $f: exit 0"
	check_fail "... prints no ESC, BEL or CR" raw "rep-$f.out"
	check_fail "... nor do its messages" raw "rep-$f.err"
	run_fm "cmp-$f" compare evil evil2 --format "$f"
	is "$rc" 0 "compare --format $f: exit 0"
	check_fail "... prints no ESC, BEL or CR" raw "cmp-$f.out"
done
like "$(cat rep-text.out)" 'x1b\]0;PWNED-TITLE\\x07' "text: the escape shows as \\x1b"
like "$(cat rep-md.out)" '16\\x1b\[2J' "md: the parameter's escape shows as \\x1b"
check "md: a '<' from the run is &lt;, a '|' escaped" grep -qF '&lt;b>\|x&lt;/b>' rep-md.out
like "$(cat rep-csv.out)" ",\"'=HYPERLINK" "csv: a cell that would be a formula starts with a quote"
check "csv: negative numbers stay numbers" grep -Eq ',-[0-9]' cmp-csv.out

run_fm nocommon compare evil "$D/munmap-base"
check "compare with no point in common: an error" test "$rc" -ne 0
like "$(cat nocommon.err)" 'x1b' "... naming the points, escaped"
check_fail "... with no ESC, BEL or CR on stderr" raw nocommon.err

done_testing
