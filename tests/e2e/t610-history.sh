#!/usr/bin/env bash
# t610-history: `fleetmark history` offline, on a results directory of 30
# nights written by tests/bench/history-gen (the format of
# docs/results.md, dates in 2001): a +10% step on night 20 found on that
# night with its size, direction and the labels around it, a better-going
# step found as better, nothing in the A/A series; every format (json
# through jq, csv, md, html and -o); --nights, -H, --metric, --since and
# --threshold; only finished runs of one plan (another plan is refused
# without --plan); the cache (a second call reads no trials.jsonl, new and
# changed runs alone are read again, the output is the same); a file://
# archive as SOURCE (runs pushed with `fleetmark push`); bad input (no
# runs, an unknown plan or host, a bad --since or format) with a clear
# message and exit 2.  Needs no lab.
# cost: 7 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
need_tools jq
GEN=$TOP/tests/bench/history-gen
W=$(mktemp -d /tmp/t610.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export XDG_CACHE_HOME=$W/cache XDG_CONFIG_HOME=$W/cfg NO_COLOR=1
unset FLEETMARK_CONFIG

# 30 nights of plan "nightly" on lab-01 and lab-02, 5 points, 3 trials:
# lab-01's spin work=1 (lower is better) +10% from night 20, lab-02's pipe
# size=5 (higher is better) +8% from night 12; the other 8 series A/A.
"$GEN" results nightly 30 2 5 3 step:1:1:20:10 step:2:5:12:8 ||
	{ echo "Bail out! history-gen failed"; exit 1; }
STEP_RUN=20010120-023000-nightly-0014

# --- text, and the cache's first and second call ----------------------------

run_fm t1 -v history results
is "$rc" 0 "history RESULTS: exit 0"
like "$(cat t1.err)" "30 nights \(30 read, 0 from the cache" "first call: -v says the 30 nights were read"
run_fm t2 -v history results
like "$(cat t2.err)" "30 nights \(0 read, 30 from the cache" "second call: all 30 from the cache, no trials.jsonl read"
check "... the same output" cmp t1.out t2.out
run_fm text history results
like "$(head -1 text.out)" "^History of plan 'nightly' in results: 30 nights from 2001-01-01 to 2001-01-30, 10 series on 2 hosts" \
	"text: the plan, the nights and their dates, the series"
like "$(sed -n 2p text.out)" ": 2, 1 worse, 1 better\.$" "text: two change points, one worse, one better"
like "$(grep '^lab-01  spin' text.out | grep 'work=1')" \
	"2001-01-20  2001-01-30 +11  [0-9.]+  ±[0-9.]+%  +\+(9|10|11)\.[0-9]%  [0-9.]+  worse +6\.1\.0-n19 -> 6\.1\.0-n20  $STEP_RUN" \
	"text: the step's segment from night 20: 11 nights, +~10%, worse, the labels around it, its first run"
like "$(grep '^lab-02  pipe' text.out | tail -1)" "2001-01-12  2001-01-30 +19 .* \+[0-9.]+%  [0-9.]+  better  6\.1\.0-n11 -> 6\.1\.0-n12" \
	"text: the higher-is-better step: better"
is "$(grep -c '^lab-0' text.out)" 12 "text: a row per segment (8 A/A series with one, 2 with two)"

# --- json --------------------------------------------------------------------

run_fm json history results --format json
is "$rc $(jq length json.out)" "0 300" "json: an array of one object per (series, night)"
is "$(jq -c '[.[] | select(.change != null)] | length' json.out)" 2 "json: change set on two nights only"
is "$(jq -r '.[] | select(.change.direction == "worse") | [.host, .bench, .params.work, .run, .start, .label, .n] | join(" ")' json.out)" \
	"lab-01 spin 1 $STEP_RUN 2001-01-20T02:30:00Z 6.1.0-n20 3" \
	"json: the worse change on night 20 of lab-01 spin work=1 (host, params, run, start, label, n)"
check "json: its size about +10% and p <= 0.05" \
	jq -e '.[] | select(.change.direction == "worse") | .change | .pct > 8 and .pct < 12 and .p <= 0.05 and .labels == ["6.1.0-n19", "6.1.0-n20"]' json.out
check "json: the better change on lab-02 pipe size=5, night 12" \
	jq -e '[.[] | select(.change.direction == "better")] | length == 1 and .[0].host == "lab-02" and .[0].bench == "pipe" and .[0].direction == "higher" and (.[0].start | startswith("2001-01-12"))' json.out
check "json: no change point in the A/A series" \
	jq -e '[.[] | select((.host == "lab-02" and .bench == "spin") or (.host == "lab-01" and .params.work != "1")) | .change] | all(. == null)' json.out
check "json: every object has host, bench, metric, params, run, start, label, value, n" \
	jq -e 'all(.[]; has("host") and has("bench") and has("metric") and (.params | type == "object") and has("run") and has("start") and has("label") and (.value | type == "number") and (.n | type == "number") and has("change"))' json.out

# --- csv, md, --nights --------------------------------------------------------

run_fm csv history results --format csv
is "$(head -1 csv.out)" "host,variant,bench,params,metric,unit,direction,start,run,label,value,sd,n,segment,segment_mean,change,change_lo,change_hi,p,mark,label_before,label_after" \
	"csv: the header"
is "$(($(wc -l <csv.out) - 1))" 300 "csv: a row per (series, night)"
like "$(grep ",$STEP_RUN," csv.out | grep '^lab-01,,spin,work=1,')" ",worse,6\.1\.0-n19,6\.1\.0-n20$" "csv: the step's night, with its mark and labels"
run_fm md history results --format md
like "$(head -1 md.out)" "^### History of plan nightly$" "md: a heading"
like "$(grep -c '^| lab-0' md.out)" "^12$" "md: a table row per segment"
run_fm nights history results --nights
is "$(grep -c '^lab-0' nights.out)" 300 "--nights: a row per night"
like "$(grep "$STEP_RUN" nights.out | grep 'work=1' | grep '^lab-01')" "6\.1\.0-n20 .* worse +6\.1\.0-n19 -> 6\.1\.0-n20$" \
	"--nights: the change on its night"

# --- html --------------------------------------------------------------------

run_fm html history results --format html -o page.html
is "$rc $(wc -c <html.out)" "0 0" "html -o FILE: exit 0, nothing on stdout"
is "$(grep -o '<svg data-chart="history"' page.html | wc -l)" 10 "html: a chart per series"
is "$(grep -o 'data-changes="1"' page.html | wc -l)" 2 "html: two charts with a change point"
check "html: no script, no external resource" sh -c "! grep -Eqi '<script|src=|href=\"?https?:|url\\(' page.html"
like "$(grep -o '<title>2001-01-20 6\.1\.0-n20: [^<]* ns ±[^<]*' page.html | head -1)" "<title>2001-01-20 6\.1\.0-n20: [0-9.]+ ns ±" \
	"html: each night's date, label and value on hover"
like "$(grep -o 'ns (ns), lower is better' page.html | head -1)" "ns \(ns\), lower is better" "html: the y axis says the metric and its unit"
like "$(grep -o 'class="change worse"><title>[^<]*' page.html)" "\+[0-9.]+% worse \(p=[0-9.]+\) from 2001-01-20: 6\.1\.0-n19 -&gt; 6\.1\.0-n20" \
	"html: the change point marked, with the labels around it"

# --- filters -----------------------------------------------------------------

run_fm f1 history results -H lab-02 --metric spin.ns --format json
is "$rc $(jq length f1.out) $(jq -r '[.[].host] | unique | join(",")' f1.out)" "0 120 lab-02" "-H lab-02 --metric spin.ns: 4 series of lab-02"
run_fm f2 history results --since 2001-01-15 --format json
is "$rc $(jq '[.[].run] | unique | length' f2.out)" "0 16" "--since 2001-01-15: 16 nights"
is "$(jq -r '.[] | select(.change.direction == "worse") | .start' f2.out)" "2001-01-20T02:30:00Z" "... the step still found on night 20"
run_fm f3 history results --threshold 20 --format json
is "$rc $(jq '[.[] | select(.change != null)] | length' f3.out)" "0 0" "--threshold 20: steps of 8 and 10% are not change points"

# --- only finished runs of one plan ----------------------------------------------

STATUS=running "$GEN" more nightly 31 2 5 3 && mv more/*-001f results/
"$GEN" results other 3 1 1 2
run_fm p1 history results
is "$rc" 2 "two plans and no --plan: exit 2"
like "$(cat p1.err)" "holds finished runs of 2 plans: nightly \(30 runs\), other \(3 runs\); choose one with --plan" \
	"... naming the plans and their runs"
run_fm p2 -v history results --plan nightly
is "$rc" 0 "--plan nightly: exit 0"
like "$(cat p2.err)" "30 nights \(0 read, 30 from the cache [^)]*\), 4 other runs" "... 30 nights (the running run and the other plan are not)"

# --- the cache: new and changed runs -----------------------------------------------

"$GEN" later nightly 33 2 5 3 step:1:1:20:10 step:2:5:12:8
mv later/*-0020 later/*-0021 results/
run_fm c1 -v history results --plan nightly
like "$(cat c1.err)" "32 nights \(2 read, 30 from the cache" "two new nights: those two alone read"
line=$(grep -F '"host":"lab-01","variant":null,"bench":"spin","params":{"work":"1"}' "results/$STEP_RUN/trials.jsonl" | tail -1)
printf '%s\n' "$line" >>"results/$STEP_RUN/trials.jsonl"
run_fm c2 -v history results --plan nightly
like "$(cat c2.err)" "32 nights \(1 read, 31 from the cache" "a trial appended to one run: that run alone read again"
is "$(jq '.[] | select(.run == "'"$STEP_RUN"'" and .host == "lab-01" and .params.work == "1") | .n' <("$FLEETMARK" history results --plan nightly --format json 2>/dev/null))" 4 \
	"... its night now has 4 trials"
CACHED=$(find "$W/cache/fleetmark/history" -name '*.jsonl' | wc -l)
is "$CACHED" 36 "a cache file per run under XDG_CACHE_HOME/fleetmark/history (of every plan and status)"

# --- a file:// archive -------------------------------------------------------------

for d in results/2001010[1-9]-*-nightly-* results/20010110-*-nightly-*; do
	"$FLEETMARK" -q push "$d" "file://$W/arch" || echo "# push $d failed"
done
run_fm a1 -v history "file://$W/arch" --format json
is "$rc $(jq '[.[].run] | unique | length' a1.out)" "0 10" "file:// archive: the 10 nights pushed"
like "$(cat a1.err)" "10 runs fetched" "... fetched into the archive cache"
run_fm a2 -v history "file://$W/arch"
like "$(cat a2.err)" "10 nights \(0 read, 10 from the cache" "... a second call: from the cache"
jq -c '[.[] | select(.run <= "20010110-023000-nightly-000a")]' json.out >local10.json
run_fm a3 history "file://$W/arch" --format json
check "... the same nights and values as the results directory's" sh -c \
	"jq -c '[.[] | {host, bench, params, run, value, n}]' a3.out >x.json && jq -c '[.[] | {host, bench, params, run, value, n}]' local10.json >y.json && cmp x.json y.json"

# --- bad input ---------------------------------------------------------------------

mkdir empty
run_fm b1 history empty
is "$rc" 2 "an empty directory: exit 2"
like "$(cat b1.err)" "no runs in empty" "... no runs"
run_fm b2 history results --plan nope
is "$rc" 2 "an unknown plan: exit 2"
like "$(cat b2.err)" "no finished run of plan 'nope' in results \(plans: nightly \(32 runs\), other \(3 runs\)\)" "... naming the plans"
run_fm b3 history results --plan nightly --since 2001-13-01
is "$rc" 2 "a bad --since: exit 2"
like "$(cat b3.err)" "bad --since '2001-13-01' \(a date, YYYY-MM-DD" "... saying what it wants"
run_fm b4 history results --plan nightly -H lab-09
is "$rc" 2 "an unknown host: exit 2"
like "$(cat b4.err)" "no host 'lab-09' in the nights of plan 'nightly' \(hosts: lab-01, lab-02\)" "... naming the hosts"
run_fm b5 history results --plan nightly --metric spin.us
is "$rc" 2 "an unknown metric: exit 2"
like "$(cat b5.err)" "no metric 'spin.us' .*pipe\.mb_per_s, spin\.ns" "... naming the metrics"
run_fm b6 history no-such-dir
is "$rc" 2 "a directory that is not there: exit 2"
like "$(cat b6.err)" "cannot open no-such-dir: No such file or directory" "... saying so"
run_fm b7 history "results/$STEP_RUN"
is "$rc" 2 "a run directory: exit 2"
like "$(cat b7.err)" "is a run directory: history reads the directory that holds the runs" "... pointing at its parent"
run_fm b8 history results --format xml
is "$rc" 2 "an unknown format: exit 2"
run_fm b9 history
is "$rc" 2 "no SOURCE: exit 2"
like "$(cat b9.err)" "usage: fleetmark history SOURCE" "... with the usage"
run_fm b10 history "file://$W/no-archive"
is "$rc" 2 "an archive with no runs: exit 2"
like "$(cat b10.err)" "no runs in file://$W/no-archive" "... no runs"

done_testing
