#!/usr/bin/env bash
# t513-report-html-forest: the forest plots of the HTML report: one per
# compared series, a row per compared point with the change (a diamond,
# hollow when it cannot be judged) and its 95% interval against the band
# of the threshold; rows coloured by verdict; an interval past the axis's
# end (+200%) is cut there with an arrow, its tooltip keeping the value.
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

html munmap "$D/munmap-base" "$D/munmap-patch"
html tx49 "$D/tx49-without" "$D/tx49-with"
html sweep "$D/sweep"
is "$(svgs munmap.html forest | wc -l | tr -d ' ')" 1 "munmap: one forest plot (one compared series)"
is "$(svgs tx49.html forest | wc -l | tr -d ' ')" 2 "tx49: two (each board's with-patch)"
html one "$D/pagefault"
is "$rc" 0 "one series: exit 0"
is "$(svgs one.html forest | wc -l | tr -d ' ')" 0 "one series: none"
is "$(grep -c '<section id="forest"' one.html)" 0 "one series: and no heading for them"
F=$(svgs munmap.html forest)
is "$(grep -o '<g class="row [a-z]*">' <<<"$F" | tr '\n' ' ')" \
	'<g class="row worse"> <g class="row better"> <g class="row unjudged"> <g class="row same"> ' \
	"munmap: a row per compared point, in the compare table's order, classed by verdict"
like "$F" '<rect class="band"[^>]*><title>within ±5%' "munmap: the threshold band, ±5%"
like "$F" '<title>munmap threads=4,pages=16 ns_per_munmap: \+10.0% \(95% interval \+9.[0-9]% \.\. \+10.[0-9]%\), p=5.52e-10, worse</title>' \
	"munmap: the worse row's tooltip: change, interval, p, verdict"
like "$F" 'cannot judge: noisy, [0-9.]+% &gt; 5%</title>.*<circle cx="[^"]*" cy="[^"]*" r="4" fill="white"' "munmap: the noisy row's change is hollow"
like "$F" 'data-panel="lab-03/patched"' "munmap: the plot names its series"
is "$(grep -c 'data-chart="forest"' tx49.html)" 2 "tx49: both in the page"
like "$(svgs tx49.html forest | head -1)" 'TX49-16K/with-patch against TX49-16K/without-patch' \
	"tx49: each board against its own baseline"

# A point 4x slower: +340% (the patch is +10% already), past the axis's +200%: cut, with an arrow.
mkdir -p slow
cp -r "$D/munmap-patch" slow/patch
jq -c 'if .metric == "ns_per_munmap" and .params.threads == "4" then .value *= 4 else . end' \
	"$D/munmap-patch/trials.jsonl" >slow/patch/trials.jsonl 2>/dev/null
html slow "$D/munmap-base" slow/patch
F=$(svgs slow.html forest)
like "$F" '<text x="[^"]*" y="[^"]*" text-anchor="middle">\+200%</text>' "4x slower: the axis ends at +200%"
like "$F" 'ns_per_munmap: \+340.0% \(95% interval \+[0-9.]+% \.\. \+[0-9.]+%\)' "... the tooltip keeps +340%"
like "$F" 'l-6 -4v8Z' "... and an arrow says the interval goes on"
is "$(perl -ne 'print "$1\n" while /<path d="M(-?[0-9.]+) [0-9.]+H(-?[0-9.]+)M/g' <<<"$F" | awk '$1 + 0 > 872.5' | wc -l | tr -d ' ')" 0 \
	"... and no interval starts past the plot's right edge"
done_testing
