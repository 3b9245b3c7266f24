#!/usr/bin/env bash
# t514-report-html-scaling: the scaling charts of the HTML report are small
# multiples: per (bench, metric, P), P a numeric parameter swept over 3
# values or more, a panel per value of the other swept parameters with a
# line per series (one series: one panel, a line per value); the panels of
# one P share their y axis, which starts at 0 and ends where the means
# and their ± sd whiskers do, a whisker counting at most twice its mean
# (an outlier's sd would squash the lines).  Two values (lat_fs's 0 and
# 10240 byte files) are two workloads: no line joins them, they are groups
# of the trials chart; nor are categorical parameters (lat_syscall op).
# cost: 2 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

# ticks SVG-LINE: the y axis's tick labels, in order.
ticks() { perl -ne 'print "$1 " while /<text x="[0-9.]+" y="[0-9.]+" text-anchor="end">([^<]*)<\/text>/g'; }

html sweep "$D/sweep" --table all
is "$rc" 0 "sweep: exit 0"
is "$(svgs sweep.html scaling | wc -l | tr -d ' ')" 6 "sweep: 6 panels (over threads x 3 pages values, over pages x 3 threads values)"
is "$(svgs sweep.html scaling | grep -o 'data-param="[a-z]*" data-panel="[^"]*"' | tr '\n' ' ')" \
	'data-param="threads" data-panel="pages=1" data-param="threads" data-panel="pages=16" data-param="threads" data-panel="pages=256" data-param="pages" data-panel="threads=1" data-param="pages" data-panel="threads=2" data-param="pages" data-panel="threads=4" ' \
	"sweep: a panel per value of the other parameter, in numeric order"
is "$(svgs sweep.html scaling | awk '{ print gsub(/<g class="line">/, "") }' | sort -u | tr '\n' ' ')" "2 " \
	"sweep: each panel has a line per series (never, always)"
is "$(svgs sweep.html scaling | grep 'data-param="threads"' | ticks | sort -u | wc -l | tr -d ' ')" 1 \
	"sweep: the panels over threads share their y axis"
like "$(svgs sweep.html scaling | grep 'data-param="threads"' | head -1 | ticks)" '^0 ' "sweep: the y axis starts at 0"
is "$(svgs sweep.html scaling | grep -c '(log scale)')" 3 "sweep: pages (1..256) on a log axis in its 3 panels"
like "$(svgs sweep.html scaling | grep 'data-panel="threads=4"')" '<title>lab-03/6.1.0-13-amd64/always pages=256: 7872 ± [0-9.]+ \(n=3\)</title>' \
	"sweep: a point's tooltip: series, value, mean ± sd, n"
is "$(outside_frame sweep.html scaling)" "" "sweep: every whisker inside its panel's frame"

# One series: one panel per parameter, a line per value of the other.
mkdir -p never
cp -r "$D/sweep" never/run
jq -c 'select(.variant == "never")' "$D/sweep/trials.jsonl" >never/run/trials.jsonl
html never never/run
is "$(svgs never.html scaling | wc -l | tr -d ' ')" 2 "one series: one panel over threads, one over pages"
is "$(svgs never.html scaling | awk '{ print gsub(/<g class="line">/, "") }' | tr '\n' ' ')" "3 3 " \
	"one series: a line per value of the other parameter"
like "$(svgs never.html scaling | head -1)" '<text class="leg"[^>]*>pages=256</text>' "one series: the legend names the values"

# One trial 100 times the others: the mean moves, its sd (58315) would
# take the axis past mean + sd = 92988; a whisker is cut at twice the mean.
mkdir -p out1
cp -r "$D/sweep" out1/run
jq -c 'if .variant == "never" and .params.threads == "1" and .params.pages == "1" and .rep == 2 then .value *= 100 else . end' \
	"$D/sweep/trials.jsonl" >out1/run/trials.jsonl
html out1 out1/run
like "$(cat out1.html)" 'never threads=1: 34673 ± 58315 \(n=3\)' "an outlier trial: the point's mean and sd in the tooltip"
is "$(svgs out1.html scaling | head -1 | ticks)" "0 20000 40000 60000 80000 " \
	"an outlier trial: the axis ends at 80000 (twice the mean), not 100000 (mean + sd)"
is "$(outside_frame out1.html scaling)" "" "an outlier trial: its whisker stays in the frame"

html tx49 "$D/tx49-without" "$D/tx49-with"
is "$(svgs tx49.html scaling | grep -o 'data-bench="[a-z_]*" data-metric="[a-z]*" data-param="[a-z]*"' | sort -u | tr '\n' ' ')" \
	'data-bench="lat_ctx" data-metric="latency" data-param="procs" data-bench="lat_ctx" data-metric="latency" data-param="size" ' \
	"tx49: lat_ctx over procs (2, 8, 16) and over size (0, 16, 64), nothing else"
is "$(grep -c 'data-chart="scaling" data-bench="lat_fs"' tx49.html)" 0 "tx49: lat_fs's two sizes are not joined by a line"
like "$(svgs tx49.html trials | grep 'data-bench="lat_fs" data-metric="create"')" '>size=0<.*>size=10240<' \
	"tx49: they are two groups of lat_fs's trials chart"
is "$(grep -c 'data-chart="scaling" data-bench="lat_syscall"' tx49.html)" 0 "tx49: nor is lat_syscall's op a line"
html pf "$D/pagefault"
is "$rc" 0 "pagefault: exit 0"
is "$(grep -c '<section id="scaling"' pf.html)" 0 \
	"pagefault (no sweep): no Scaling heading at all"
done_testing
