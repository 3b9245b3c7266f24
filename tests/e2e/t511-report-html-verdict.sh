#!/usr/bin/env bash
# t511-report-html-verdict: the HTML report opens with a verdict box: the
# counts of points worse, better, noisy or cannot judge, and unchanged (the
# worse and better counts checked against the compare table's marks in
# JSON), the regressions by name; a worse point whose metric is not in the
# plan's regression.metrics is counted worse but not listed; a run with
# nothing to compare says so instead of counting; past 12 regressions the
# box names the worst 12 and counts the rest.
# cost: 2 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

# count FILE KIND: the number in the box's <li data-count="KIND">.
count_of() { sed -n 's/.*<li class="[a-z]*" data-count="'"$2"'"><b>\([0-9]*\)<\/b>.*/\1/p' "$1"; }
# marks A B MARK: compare rows with that mark, from the JSON compare table.
marks() {
	"$FLEETMARK" compare "$1" "$2" --format json 2>/dev/null |
		jq --arg m "$3" '[.[] | select(.table == "compare" and .params != "geomean" and .column == "mark" and .text == $m)] | length'
}

for t in munmap:"$D/munmap-base $D/munmap-patch" sweep:"$D/sweep" tx49:"$D/tx49-without $D/tx49-with"; do
	name=${t%%:*}
	# shellcheck disable=SC2086 # the run list splits on purpose
	set -- ${t#*:}
	html "$name" "$@"
	is "$rc" 0 "$name: exit 0"
	is "$(grep -o '<section id="[a-z]*"' "$name.html" | head -1)" '<section id="verdict"' \
		"$name: the verdict is the first section, before the tables and charts"
done
# munmap: +10% ns worse, +10% accesses better, a noisy +5%, +0.1% unchanged
is "$(count_of munmap.html worse) $(count_of munmap.html better) $(count_of munmap.html unjudged) $(count_of munmap.html same)" \
	"1 1 1 1" "munmap: 1 worse, 1 better, 1 noisy or cannot judge, 1 unchanged"
is "$(count_of munmap.html worse) $(count_of munmap.html better)" \
	"$(marks "$D/munmap-base" "$D/munmap-patch" worse) $(marks "$D/munmap-base" "$D/munmap-patch" better)" \
	"munmap: worse and better as the compare table marks them"
V=$(section munmap.html verdict)
like "$V" '<caption>1 regression</caption>' "munmap: one regression listed"
like "$V" '<td class="pt"><b>munmap</b> threads=<wbr>4,<wbr>pages=<wbr>16 <span class="metric">ns_per_munmap \(ns\)</span></td><td>lab-03/patched</td><td class="n worse">\+10.0%</td><td class="n">\+9.[0-9]% \.\. \+10.[0-9]%</td><td class="n">5.52e-10</td>' \
	"munmap: the regression's point, series, change, interval and p"
like "$V" 'against <b>lab-03/base</b>, threshold 5%' "munmap: the baseline and the threshold"
is "$(count_of sweep.html worse) $(count_of sweep.html better) $(count_of sweep.html same)" "3 0 6" \
	"sweep: 3 worse (20% slower at 4 threads), 6 unchanged"
like "$(section sweep.html verdict)" '<caption>3 regressions</caption>' "sweep: the 3 regressions listed"
is "$(count_of tx49.html worse) $(count_of tx49.html better)" \
	"$(marks "$D/tx49-without" "$D/tx49-with" worse) $(marks "$D/tx49-without" "$D/tx49-with" better)" \
	"tx49: worse and better as the compare table marks them"

# A worse metric that the plan does not list: worse, not a regression.
mkdir -p notlisted
cp -r "$D/munmap-patch" notlisted/patch
jq '.plan.regression.metrics = ["munmap.accesses_per_thread_ms"]' "$D/munmap-patch/run.json" >notlisted/patch/run.json
html nl "$D/munmap-base" notlisted/patch
is "$rc" 0 "regression.metrics without ns_per_munmap: exit 0"
is "$(count_of nl.html worse)" 1 "... the point still counts worse"
like "$(section nl.html verdict)" 'No regression \(the worse points.* metrics are not the plan.s regression.metrics\)' \
	"... and the box says there is no regression, and why"
like "$(section nl.html changes)" '<td class="worse">worse<small>not a plan metric</small></td>' \
	"... and the changes table says it is not a plan metric"
html nlb notlisted/patch --baseline "$D/munmap-base"
is "$rc" 0 "... and --baseline exits 0, as the text report"

# 20 regressions: the box names the 12 worst, worst first, and counts the rest.
mkdir -p many/base many/patch
for side in base patch; do
	cp "$D/munmap-$side/run.json" "many/$side/run.json"
	jq -c 'select(.status == "ok" and .metric == "ns_per_munmap" and .params.threads == "4") | . as $l |
		range(20) | . as $i | $l | .params.threads = ($i + 1 | tostring) |
		.key = "munmap/threads=\($i + 1)/\($l.rep)" |
		.value = $l.value * (if "'"$side"'" == "patch" then 1.1 + $i / 100 else 1 end)' \
		"$D/munmap-base/trials.jsonl" >"many/$side/trials.jsonl" 2>/dev/null
done
html many many/base many/patch
V=$(section many.html verdict)
is "$(count_of many.html worse)" 20 "20 points 10% to 29% slower: 20 worse"
like "$V" '<caption>20 regressions, the worst first</caption>' "... the box says it lists the worst first"
is "$(grep -o '<td class="n worse">[^<]*' <<<"$V" | sed 's/.*>//' | tr '\n' ' ')" \
	"+29.0% +28.0% +27.0% +26.0% +25.0% +24.0% +23.0% +22.0% +21.0% +20.0% +19.0% +18.0% " \
	"... the 12 worst, worst first"
like "$V" 'and 8 more, marked worse in the <a href="#changes">changes</a>' "... and counts the other 8"
like "$(grep -o '<section id="verdict" class="[^"]*"' many.html)" 'class="verdict bad"' "... in a box with a red border"
like "$(grep -o '<section id="verdict" class="[^"]*"' munmap.html)" 'class="verdict bad"' "munmap: red too (a regression)"

# Nothing to compare: one series.
html one "$D/pagefault"
is "$rc" 0 "one series: exit 0"
like "$(section one.html verdict)" '<p>Nothing compared: one series; 2 points\.' \
	"one series: the box says nothing was compared"
is "$(grep -c 'data-count=' one.html)" 0 "one series: no counts"
done_testing
