#!/usr/bin/env bash
# t510-report-html: `fleetmark report --format html` on the fixture runs of
# tests/data/report/ (sweep, the munmap pair, the TX49 pair): one
# self-contained page (no external reference of any kind, no script), the
# same tables as the Markdown report, scaling panels for each numeric
# parameter swept over 3 values or more (counted against the fixtures with
# jq, independently of the C code), a trials chart per (bench, metric), text
# from files escaped (a
# label, host and unit carrying <script> and <img> stay text), then the page
# in headless Chromium: it renders (the DOM holds the tables and charts),
# logs no console message, and a screenshot lands in tests/out/report.png.
# cost: 15 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
need_tools jq
D=$TOP/tests/data/report
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

# ok trial lines of the given runs, as one JSON array (corrupt and
# truncated lines dropped, as the report drops them).
trials() {
	local d
	for d in "$@"; do cat "$d/trials.jsonl"; echo; done |
		jq -R -s '[split("\n")[] | (fromjson? // empty) |
			select(.status == "ok" and .metric != null and .value != null)]'
}
# Swept numeric parameters per (bench, metric): keys with 3 values or more,
# every value a number (a key missing from a point is not numeric); two
# values are two workloads, drawn as groups, not as a line.
n_swept() {
	trials "$@" | jq '[group_by([.bench, .metric])[] | . as $g |
		[$g[].params | keys[]] | unique | map(. as $k |
			[$g[] | .params[$k] | tostring] | unique |
			select(length > 2 and all(.[]; test("^-?[0-9]+(\\.[0-9]+)?$"))))
		| length] | add // 0'
}
n_groups() { trials "$@" | jq '[group_by([.bench, .metric])[]] | length'; }
count() { grep -o -- "$1" "$2" | wc -l | tr -d ' '; }
# charts NAME KIND: the distinct (bench, metric[, param]) of KIND's charts.
charts() {
	grep -o "<svg data-chart=\"$2\" data-bench=\"[^\"]*\" data-metric=\"[^\"]*\"\( data-param=\"[^\"]*\"\)\?" \
		"$1.out" | sort -u | wc -l | tr -d ' '
}

# self_contained NAME DESC: no URL, no src=, no script, no external CSS.
self_contained() {
	local f=$1.out bad
	bad=$(grep -Eio 'https?://|src=|<script|<link|<iframe|<object|<embed|url\((["'"'"' ]*)[^#"'"'"' ]|@import' "$f" | sort -u | tr '\n' ' ')
	is "$bad" "" "$2: no http(s)://, src=, script, link, import or url() but local #ids"
}

# --- the three fixture reports ---------------------------------------------
run_fm sweep report "$D/sweep" --table all --format html
is "$rc" 0 "sweep: exit 0"
run_fm munmap report "$D/munmap-base" "$D/munmap-patch" --table all --format html
is "$rc" 0 "munmap pair: exit 0"
run_fm tx49 report "$D/tx49-without" "$D/tx49-with" --table all --format html
is "$rc" 0 "tx49 pair: exit 0"

for t in sweep:"$D/sweep" munmap:"$D/munmap-base $D/munmap-patch" \
	tx49:"$D/tx49-without $D/tx49-with"; do
	name=${t%%:*}
	# shellcheck disable=SC2086 # the run list splits on purpose
	set -- ${t#*:}
	like "$(head -c 200 "$name.out")" '^<!DOCTYPE html>' "$name: an HTML page"
	self_contained "$name" "$name"
	like "$(cat "$name.out")" "Content-Security-Policy\" content=\"default-src 'none'" \
		"$name: a CSP that forbids scripts and requests"
	want=$(n_swept "$@")
	is "$(charts "$name" scaling)" "$want" \
		"$name: scaling panels for each swept numeric parameter ($want)"
	want=$(n_groups "$@")
	is "$(charts "$name" trials)" "$want" \
		"$name: a trials chart for each (bench, metric) ($want)"
	# The same tables as the Markdown report, in the same order.
	"$FLEETMARK" report "$@" --table all --format md 2>/dev/null |
		sed -n 's/^### //p' >"$name.md-titles"
	grep -o '<h3>[^<]*</h3>' "$name.out" | sed 's/<h3>//; s/<\/h3>//; s/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g; s/&#39;/'"'"'/g; s/&quot;/"/g' >"$name.html-titles"
	if [ -s "$name.md-titles" ] && cmp -s "$name.md-titles" "$name.html-titles"; then
		tap_result 0 "$name: the Markdown report's tables, same titles and order ($(wc -l <"$name.md-titles"))"
	else
		tap_result 1 "$name: the Markdown report's tables, same titles and order"
		diff "$name.md-titles" "$name.html-titles" | head -10 | sed 's/^/#   /'
	fi
done

# What the charts and tables say.
is "$(grep -o '<svg data-chart="scaling"[^>]*data-param="[^"]*"' sweep.out | sed 's/.*data-param=//' | uniq | tr '\n' ' ')" \
	'"threads" "pages" ' "sweep: the scaling panels are over threads, then over pages"
like "$(cat sweep.out)" 'pages \(log scale\)' "sweep: pages (1..256) on a log axis, named"
like "$(cat sweep.out)" 'ns_per_munmap \(ns\), mean ± sd' "sweep: the y axis names the metric and unit"
is "$(grep -o 'data-param="threads" data-panel="[^"]*"' sweep.out | sed 's/.*data-panel=//' | tr '\n' ' ')" \
	'"pages=1" "pages=16" "pages=256" ' "sweep: a panel over threads per pages value"
like "$(cat sweep.out)" 'data-panel="pages=256"[^<]*<title[^>]*>munmap ns_per_munmap over threads: pages=256</title>' \
	"sweep: the panel's title names its pages value"
like "$(cat sweep.out)" '<text class="leg"[^>]*>lab-03/6.1.0-13-amd64/always</text>' \
	"sweep: a legend entry per series in each panel"
is "$(count 'stroke-dasharray' sweep.out)" 12 \
	"sweep: the second series is dashed, line and legend sample (6 panels, x2)"
like "$(cat sweep.out)" '<table data-table="matrix"' "sweep: the matrix table"
like "$(cat sweep.out)" '<td class="n sig"[^>]*>\+20.0% \*</td>' "sweep: significant matrix cells marked"
like "$(cat munmap.out)" '<td class="worse">worse</td>' "munmap: the compare table's worse mark"
like "$(cat munmap.out)" '<td class="better">better</td>' "munmap: the compare table's better mark"
like "$(cat munmap.out)" '<td class="noisy">both</td>' "munmap: the noise flag"
like "$(cat munmap.out)" 'Lines read: 44, used 40; not used: 2 failed \(1 of them infrastructure\), 1 without a metric, 1 corrupt, 1 truncated' \
	"munmap: the header counts the lines not used"
like "$(cat munmap.out)" '<g class="slot"><title>lab-03/base threads=4: median [0-9]+, mean 5026 ± 21.78 \(n=5\)</title>' \
	"munmap: a box's tooltip gives the median, mean ± sd and n"
is "$(count '<g class="slot">' munmap.out)" 8 \
	"munmap: a box of trials per series and point (2 series x 2 points x 2 metrics)"
like "$(cat tx49.out)" '<table data-table="lmbench">' "tx49: the lmbench tables"
like "$(cat tx49.out)" '<td class="n" title="lmbench: 39.K">3[89][0-9]{3}</td>' \
	"tx49: lmbench cells as whole numbers, the mail's text in the tooltip"
like "$(cat tx49.out)" '<tr><td>TX49-16K/without-patch</td><td>20061201-000000-lmbench-0001</td>' \
	"tx49: the header names each series and its run"

# --- exit codes are the text report's --------------------------------------
run_fm regr report --baseline "$D/munmap-base" "$D/munmap-patch" --format html
is "$rc" 4 "html with --baseline: exit 4 on a significant regression, as text"
run_fm bad report "$D/munmap-base" --format htm
is "$rc" 2 "an unknown format: exit 2"
like "$(cat bad.err)" 'unknown format .htm. \(text, md, csv, json, html\)' "the error lists html"

# --- injection: text from files is escaped -----------------------------------
mkdir -p evil/hosts
EVIL_METRIC='lab<img src=x onerror=alert(1)>'
jq '.label = "<script>alert(\"label\")</script>"' "$D/munmap-base/run.json" >evil/run.json
# (a host name is never markup: one that breaks the fleet's name rule is
# not read at all, t520)
jq -c --arg m "$EVIL_METRIC" '.metric = $m | .unit = "ns</title><script>alert(2)</script>" |
	.variant = "v\"'"'"'&amp;"' "$D/munmap-base/trials.jsonl" >evil/trials.jsonl
run_fm evil report evil --format html
is "$rc" 0 "injection: exit 0"
is "$(grep -Eic '<script|<img' evil.out)" 0 "injection: no <script or <img element in the page"
like "$(cat evil.out)" '&lt;script&gt;alert\(&quot;label&quot;\)&lt;/script&gt;' "injection: the label is shown escaped"
like "$(cat evil.out)" 'lab&lt;img src=x onerror=alert\(1\)&gt;' "injection: the metric is shown escaped"
like "$(cat evil.out)" 'v&quot;&#39;&amp;amp;' "injection: quotes and & in a variant are escaped"
like "$(cat evil.out)" 'ns&lt;/title&gt;&lt;script&gt;' "injection: the unit is escaped in the chart too"

# --- headless Chromium ---------------------------------------------------------
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	skip "chromium renders the page" "chromium is not installed (tools/deps installs it)"
	done_testing
fi
# chrome FILE.html ARGS...: headless, no network, a fresh profile; stderr
# (the log, with console messages) to FILE.log.
chrome() {
	local f=$1 ud
	shift
	ud=$(mktemp -d "$W/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$ud" --enable-logging=stderr --v=0 \
		"$@" "file://$W/$f" 2>"${f%.html}.log"
}
# The log capture itself: a page that logs a console message must show it.
printf '<!DOCTYPE html><p>x</p><script>console.error("t510-probe")</script>\n' >probe.html
chrome probe.html --dump-dom >probe.dom
probe_ok=0
grep -q ':CONSOLE.*t510-probe' probe.log && probe_ok=1

for name in sweep munmap tx49 evil; do
	cp "$name.out" "$name.html"
	chrome "$name.html" --dump-dom >"$name.dom"
	is "$?" 0 "chromium: $name.html loads"
	like "$(cat "$name.dom")" '<table data-table="(compare|lmbench|summary)"' "chromium: $name's DOM holds the tables"
	is "$(grep -o '<svg data-chart=' "$name.dom" | wc -l | tr -d ' ')" \
		"$(grep -o '<svg data-chart=' "$name.out" | wc -l | tr -d ' ')" "chromium: $name's DOM holds every chart"
	if [ "$probe_ok" = 1 ]; then
		msgs=$(grep -E ':CONSOLE|Refused to|net::ERR' "$name.log" | head -5)
		is "$msgs" "" "chromium: $name logs no console message, CSP refusal or network error"
	else
		skip "chromium: $name logs no console message" "this chromium does not log console messages to stderr (the probe page's message was not seen)"
	fi
done
is "$(grep -Eic '<script|<img' evil.dom)" 0 "chromium: the injected page's DOM has no script or img element"

mkdir -p "$TOP/tests/out"
rm -f "$TOP/tests/out/report.png"
chrome sweep.html --window-size=1100,2900 --hide-scrollbars \
	--screenshot="$TOP/tests/out/report.png" >/dev/null
check "chromium: a screenshot of the sweep report in tests/out/report.png" \
	test -s "$TOP/tests/out/report.png"
done_testing
