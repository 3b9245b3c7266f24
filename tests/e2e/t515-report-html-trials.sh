#!/usr/bin/env bash
# t515-report-html-trials: the trials charts of the HTML report: per (bench,
# metric) a group per point and, per series, a box (quartiles, median),
# whiskers and the trial values as dots.  The y axis starts at 0 and never
# goes below it for positive values (a bar chart of mean ± sd once ran to
# -500000 ns); an outlier trial 100 times the others does not squash the
# rest: it is drawn as a triangle at the top edge, named in the tooltip
# and counted in a note; every whisker, box and dot stays in the frame;
# past 60 trials a box draws only its outliers as dots.
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

ticks() { perl -ne 'print "$1 " while /<text x="[0-9.]+" y="[0-9.]+" text-anchor="end">([^<]*)<\/text>/g'; }

# One trial of munmap threads=8 ns_per_munmap 100 times the others.
mkdir -p outlier
cp -r "$D/munmap-base" outlier/base
jq -c 'if .metric == "ns_per_munmap" and .params.threads == "8" and .rep == 3 then .value = 490000 else . end' \
	"$D/munmap-base/trials.jsonl" >outlier/base/trials.jsonl
html outlier outlier/base "$D/munmap-patch"
is "$rc" 0 "an outlier trial: exit 0"
C=$(svgs outlier.html trials | grep 'data-metric="ns_per_munmap"')
is "$(ticks <<<"$C" | awk '{ print $1 }')" 0 "outlier: the axis starts at 0"
is "$(ticks <<<"$C" | tr ' ' '\n' | grep -c -- '^-')" 0 "outlier: no tick below 0 (mean - sd would be -190000)"
top=$(ticks <<<"$C" | awk '{ print $NF }')
check "outlier: the axis ends near the other trials (top tick $top < 10000), not at 490000" test "$top" -lt 10000
is "$(grep -o '<path class="above"' <<<"$C" | wc -l | tr -d ' ')" 1 "outlier: one triangle at the top edge"
like "$C" '<title>lab-03/base threads=8: median 5600, mean 102350 ± 216703 \(n=5\); above the axis: 490000</title>' \
	"outlier: the tooltip gives median, mean ± sd, n and the value off the axis"
like "$C" '1 outlier above the axis \(triangles\)' "outlier: a note counts it"
like "$C" '<circle class="dot" [^>]*fill="#0072B2"' "outlier: the other trials are dots"

# 200 trials a point: the boxes, and only the outliers as dots (at most 60).
mkdir -p many
cp -r "$D/munmap-base" many/base
jq -c 'select(.status == "ok" and .metric == "ns_per_munmap") | . as $l |
	range(40) | . as $i | $l | .rep = ($l.rep - 1) * 40 + $i + 1 |
	.value = ($l.value + (($i * 37) % 11) - 5 + (if $i == 7 and $l.rep == 1 then 3000 else 0 end))' \
	"$D/munmap-base/trials.jsonl" >many/base/trials.jsonl 2>/dev/null
html many many/base
is "$rc" 0 "200 trials a point: exit 0"
C=$(svgs many.html trials)
is "$(grep -o '<g class="slot"><title>[^<]*(n=200)' <<<"$C" | wc -l | tr -d ' ')" 2 "200 trials: a box per point, each of n=200"
n=$(grep -Eo '<circle class="dot"|<path class="above"' <<<"$C" | wc -l | tr -d ' ')
check "200 trials: only the outliers are marks ($n, at most 2 x 60, not 400)" test "$n" -ge 1 -a "$n" -le 120
is "$(grep -o '<path class="above"' <<<"$C" | wc -l | tr -d ' ')" 2 "200 trials: the far outlier of each point a triangle at the top"
like "$(section many.html trials)" 'past 60 trials, only the outliers' "200 trials: the page says so"

for t in munmap:"$D/munmap-base $D/munmap-patch" sweep:"$D/sweep" tx49:"$D/tx49-without $D/tx49-with" \
	pf:"$D/pagefault" outlier:"outlier/base $D/munmap-patch"; do
	name=${t%%:*}
	# shellcheck disable=SC2086 # the run list splits on purpose
	set -- ${t#*:}
	html "$name" "$@"
	# What follows finds nothing wrong in a page without charts.
	check "$name: exit 0, with trials charts" test "$rc" = 0 -a "$(svgs "$name.html" trials | wc -l)" -gt 0
	is "$(outside_frame "$name.html" trials)" "" "$name: every whisker, box and dot of the trials charts inside the frame"
	is "$(svgs "$name.html" trials | ticks | tr ' ' '\n' | grep -c -- '^-')" 0 "$name: no axis below 0"
	is "$(svgs "$name.html" trials | grep -vc '<g class="slot"><title>')" 0 "$name: every box has a tooltip"
done
is "$(svgs munmap.html trials | head -1 | grep -o '<g class="slot">' | wc -l | tr -d ' ')" 4 \
	"munmap ns_per_munmap: a box per series and point (2 x 2)"
is "$(svgs tx49.html trials | grep 'data-bench="lat_syscall"' | grep -o 'class="glabel"><tspan[^>]*>[^<]*' | sed 's/.*>//' | tr '\n' ' ')" \
	"op=null op=read op=write op=stat op=open " "tx49: lat_syscall's points in lmbench's order"
like "$(svgs tx49.html trials | grep 'data-bench="lat_syscall"' | grep -o '<g class="slot"><title>[^ ]*' | head -2 | tr '\n' ' ')" \
	'TX49-16K/without-patch .*TX49-16K/with-patch ' "tx49: a board's two series side by side"
done_testing
