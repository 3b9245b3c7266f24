#!/usr/bin/env bash
# t500-report: `fleetmark report` and `fleetmark compare` on the fixture run
# directories of tests/data/report/ (written by gen-fixtures.py from the
# numbers of linux-kernel mail), offline: every table and format against a
# golden output, the golden lmbench tables against the mail itself, exit
# codes (0, 1 unreadable run, 2 bad usage, 4 regression), the damaged run
# (a failed trial, a line without a metric, a corrupt line and a truncated
# last line), run ids under --results and `latest` (compare: of A's plan),
# runs by label (ambiguity, a series name first for report --baseline),
# runs with no point in common, partial runs flagged in every format,
# --samples (the pagefault batches), and -o FILE.
# cost: 6 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
D=$TOP/tests/data/report
G=$D/golden
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

# golden NAME FILE DESC: NAME.out equals FILE byte for byte.
golden() {
	if cmp -s "$1.out" "$2"; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		diff "$2" "$1.out" | head -20 | sed 's/^/#   /'
	fi
}

# --- lmbench: the TX49 mail (two runs, two boards, three trials each) -------
run_fm tx49 report "$D/tx49-without" "$D/tx49-with" --table lmbench
is "$rc" 0 "lmbench tx49: exit 0"
golden tx49 "$G/lmbench-tx49.txt" "lmbench tx49: equals golden/lmbench-tx49.txt"
# The golden file against the mail: the same lines, except that the mail
# lost the trailing spaces of lmbench's header ("sh  ") and put three blank
# lines between tables where getsummary prints one, and that the notes
# saying why a cell is blank (a mark at the row's end, the note under the
# table) are ours.
nonotes() { sed -e 's/  \[[0-9,]*\]$//' -e '/^\[[0-9]*\] /d'; }
mail=$(grep -v '^#' "$D/example-lmbench-tx49.txt" | sed 's/ *$//' | cat -s | sed '1{/^$/d}')
ours=$(nonotes <"$G/lmbench-tx49.txt" | sed 's/ *$//')
is "$ours" "$mail" "lmbench tx49: the mail's lines, character for character"
is "$(grep -c '^TX49-16K  with-patch ' tx49.out)" 9 "lmbench tx49: three rows per kernel and board in each of the three tables"

run_fm tx49m report "$D/tx49-without" "$D/tx49-with" --table lmbench --aggregate median
like "$(cat tx49m.out)" 'TX49-32K  with-patch     396 0.36 1.19 6.79 10.2 40.9 1.41 8.14 1238 4628 19.K' \
	"lmbench --aggregate median: one row per series, the medians"
is "$(grep -c '^TX49-' tx49m.out)" 12 "lmbench --aggregate median: 4 series x 3 tables"

# --- lmbench: the commando mail (one run, all five tables) -------------------
run_fm commando report "$D/commando"
is "$rc" 0 "lmbench commando: exit 0 (the default table for lmbench runs)"
golden commando "$G/lmbench-commando.txt" "lmbench commando: equals golden/lmbench-commando.txt"
# Against the mail: its archive flattened one space after the OS column;
# the RPC columns are never measured (blank, with our note); the local table's 2p/0K is
# the same measurement as the context switching table's (7.58; the mail
# shows 7.750 there).  Everything else is the mail's text.
mail=$(grep -v '^#' "$D/example-lmbench-commando.txt" | sed '1{/^$/d}' |
	sed 's/^commando- Linux 2\.6\.10 /commando- Linux 2.6.10  /' |
	sed 's/^\(commando- Linux 2.6.10  \)7\.750  19\.4 21\.3  37\.2  45\.5  42\.5  53\.2/\17.580  19.4 21.3  37.2        42.5      /')
is "$(nonotes <"$G/lmbench-commando.txt")" "$mail" "lmbench commando: the mail's lines but for the documented differences"
like "$(cat commando.out)" 'commando- Linux 2\.6\.10  2400 0\.49 0\.57' "lmbench: host cut to 9 characters, Mhz from hosts/NAME.json"

# --- delta ---------------------------------------------------------------------
run_fm delta report "$D/munmap-base" "$D/munmap-patch" --table delta
is "$rc" 0 "delta: exit 0"
golden delta "$G/delta-munmap.txt" "delta munmap: equals golden/delta-munmap.txt"
like "$(cat delta.out)" '^munmap\.ns_per_munmap\[threads=4,pages=16\]: 5026 -> 5529 -10%$' \
	"delta: a latency 10% higher is -10%"
run_fm deltax report "$D/tx49-without" "$D/tx49-with" --table delta
golden deltax "$G/delta-tx49.txt" "delta tx49: equals golden/delta-tx49.txt (lmbench names, pairs per board)"
like "$(cat deltax.out)" 'fork: 2499 -> 2496 \+0\.1%' "delta: lmbench points by the mail's names"

# --- compare, every format -------------------------------------------------------
for f in text md csv json; do
	run_fm "cmp-$f" compare "$D/munmap-base" "$D/munmap-patch" --format "$f"
	is "$rc" 4 "compare --format $f: exit 4 (a significant regression)"
	golden "cmp-$f" "$G/compare-munmap.$f" "compare --format $f: equals golden/compare-munmap.$f"
done
like "$(cat cmp-text.err)" 'munmap-patch/trials.jsonl:25: truncated last line skipped' \
	"the truncated last line is skipped with a warning"
like "$(cat cmp-text.err)" '1 line is not a trial line, skipped \(the first is line 24: not JSON: [A-Za-z ]+ at byte [0-9]+\)' \
	"the corrupt line is counted with its line number and what is wrong with it"
like "$(cat cmp-text.err)" 'lab-03/patched: 2 lines not ok \(1 infrastructure\), 1 without a metric, not used' \
	"failed lines are counted per series"
check "compare json: one object per non-empty cell (4 rows and 2 geomean rows; no needed for the noisy one), values numbers or null" \
	jq -e 'type == "array" and length == 63 and all(.[]; (.value | type) == "number" or .value == null)' cmp-json.out
is "$(jq -r '.[] | select(.params == "threads=4,pages=16" and .metric == "ns_per_munmap" and .column == "mark") | .text' cmp-json.out)" \
	worse "compare json: the regression is marked worse"
is "$(jq -r '.[] | select(.params == "threads=8,pages=16" and .metric == "ns_per_munmap" and .column == "noisy") | .text' cmp-json.out)" \
	both "compare json: the noisy point is flagged"
run_fm rep report "$D/munmap-base" "$D/munmap-patch" --table compare
is "$rc" 0 "report without --baseline: exit 0 even with a regression"
run_fm repb report "$D/munmap-patch" --baseline "$D/munmap-base" --table compare --threshold 20%
is "$rc" 0 "--threshold 20%: a 10% change is not significant"
like "$(head -1 repb.out)" 'interval reaches 20%' "the threshold is printed"

# --- matrix ----------------------------------------------------------------------------
run_fm mx report "$D/sweep" --table matrix --baseline never
is "$rc" 0 "matrix: exit 0"
golden mx "$G/matrix-sweep.txt" "matrix text: equals golden/matrix-sweep.txt"
run_fm mxj report "$D/sweep" --table matrix --baseline never --format json
golden mxj "$G/matrix-sweep.json" "matrix json: equals golden/matrix-sweep.json"
is "$(jq -r '[.[] | select(.quantity == "change%" and .threads == "4") | .text] | join("|")' mxj.out)" \
	'+20.0% *|+20.0% *|+20.0% *' "matrix json: the 4-thread row of the change grid, significant"
run_fm mx2 report "$D/munmap-base" --table matrix
is "$rc" 2 "matrix without a sweep: exit 2"
run_fm all report "$D/sweep" --table all
is "$rc" 0 "--table all: exit 0"
like "$(cat all.out)" 'Delta against' "--table all: has the delta lines"
like "$(cat all.out)" 'Compare against' "--table all: has the compare table"
like "$(cat all.out)" '% change of the mean' "--table all: has the matrix"

# --- the default for one series: a summary ------------------------------------------
run_fm sum report "$D/munmap-base"
is "$rc" 0 "one series, no lmbench: exit 0"
golden sum "$G/summary-munmap.txt" "one series: the summary, equals golden/summary-munmap.txt"
run_fm sum2 report "$D/munmap-base" --table summary --format csv
like "$(cat sum2.out)" 'summary,munmap,"threads=8,pages=16",ns_per_munmap,ns,lab-03/base,5330\.2,6\.8794445027[0-9]*,5,noisy' \
	"--table summary --format csv: the noisy point flagged"

# --- runs by id, latest, label, -o -------------------------------------------------
# copy DIR ID JQ: a fixture run as results/ID, run.json changed by JQ.
copy() {
	cp -r "$1" "res/$2" &&
		jq --arg id "$2" ".run = \$id | $3" "$1/run.json" >"res/$2/run.json"
}
mkdir -p res
cp -r "$D/munmap-base" res/20011130-041500-tlb-flush-range-3f2a
cp -r "$D/munmap-patch" res/20011130-051500-tlb-flush-range-9c1d
# the newest run is of another plan: compare's latest is A's plan's
cp -r "$D/commando" res/20011201-000000-lmbench-aaaa
run_fm ids compare 20011130-041500-tlb-flush-range-3f2a latest --results res --format csv
is "$rc" 4 "compare by run id and latest: exit 4"
golden ids "$G/compare-munmap.csv" "compare A latest: the newest other run of A's plan, not the newest run"
run_fm ids2 compare latest 20011130-041500-tlb-flush-range-3f2a --results res
is "$rc" 2 "compare with no point in common: exit 2"
like "$(cat ids2.err)" 'no points in common: commando-2400/Linux 2\.6\.10 \(run 20050110-000000-lmbench-0001, plan lmbench\) has lat_syscall \(5 points\), lat_select \(2 points\), lat_sig \(3 points\) and 16 more benchmarks \(38 points in all\); lab-03/base \(run 20011130-041500-tlb-flush-range-3f2a, plan tlb-flush-range\) has munmap \(2 points\)' \
	"no points in common: what each side has"
is "$(wc -c <ids2.out)" 0 "no points in common: no table of dashes"
run_fm ids5 report res/20011130-041500-tlb-flush-range-3f2a "$D/pagefault"
is "$rc" 0 "report of two runs with no point in common: exit 0"
like "$(head -1 ids5.out)" '^Summary: ' "... the summary, not an empty compare"

# labels: compare base patched, and report --baseline LABEL
run_fm lbl compare base patched --results res --format csv
is "$rc" 4 "compare by label: exit 4"
golden lbl "$G/compare-munmap.csv" "compare by label: the newest run of each label"
run_fm lbl2 report patched --baseline base --results res --table compare --format csv
is "$rc" 4 "report --baseline LABEL, RUN by label: exit 4"
golden lbl2 "$G/compare-munmap.csv" "report --baseline LABEL: the run with that label"
copy "$D/munmap-base" 20011129-041500-other-bbbb '.plan.name = "other"'
copy "$D/munmap-base" 20011128-000000-sweep-cccc '.plan.name = "tlb-sweep" | .label = "never"'
run_fm lbl3 compare base patched --results res
is "$rc" 2 "a label on runs of two plans: exit 2"
like "$(cat lbl3.err)" "label 'base' is on runs of 2 plans \(the newest of each: 20011130-041500-tlb-flush-range-3f2a \(plan tlb-flush-range\), 20011129-041500-other-bbbb \(plan other\)\); give a run id or directory" \
	"an ambiguous label: the candidates named"
run_fm lbl4 compare 20011130-041500-tlb-flush-range-3f2a patched --results res --format csv
is "$rc" 4 "B by label with A a run id: exit 4"
run_fm lbl5 report "$D/sweep" --table matrix --baseline never --results res
golden lbl5 "$G/matrix-sweep.txt" "report --baseline: a series of the runs given before a run's label"
run_fm lbl6 report nosuch --results res
is "$rc" 1 "neither a run nor a label: exit 1"
like "$(cat lbl6.err)" "nosuch: not a run \(no run.json there, nor a run id or a run's label under res/\)" \
	"neither a run nor a label: says what was tried"
run_fm outf compare "$D/munmap-base" "$D/munmap-patch" -o out.md --format md
is "$(wc -c <outf.out)" 0 "-o FILE: nothing on stdout"
check "-o FILE: the table is in the file" cmp -s out.md "$G/compare-munmap.md"

# --- partial runs: flagged in every format ------------------------------------------
mkdir -p part
cp -r "$D/munmap-patch" part/ && jq '.status = "interrupted"' "$D/munmap-patch/run.json" >part/munmap-patch/run.json
pline='PARTIAL RUN: 20011130-051500-tlb-flush-range-9c1d \(part/munmap-patch\) was interrupted: not every trial ran'
run_fm pt compare "$D/munmap-base" part/munmap-patch
is "$rc" 4 "a partial run compared: exit 4 all the same"
like "$(head -1 pt.out)" "^$pline" "text: a PARTIAL RUN line at the top"
is "$(sed -n 3,\$p pt.out)" "$(cat "$G/compare-munmap.text")" "text: then the same tables"
is "$(grep -c 'PARTIAL RUN' pt.out)" 1 "text: once"
run_fm ptc compare "$D/munmap-base" part/munmap-patch --format csv
is "$(head -2 ptc.out)" "table,run,dir,status
partial,20011130-051500-tlb-flush-range-9c1d,part/munmap-patch,interrupted" "csv: a partial table first"
run_fm ptj compare "$D/munmap-base" part/munmap-patch --format json
is "$(jq -r '.[0] | "\(.table) \(.run) \(.column) \(.text)"' ptj.out)" \
	"partial 20011130-051500-tlb-flush-range-9c1d status interrupted" "json: the first object says so"
run_fm ptm compare "$D/munmap-base" part/munmap-patch --format md
like "$(head -1 ptm.out)" '^### Partial runs: not every trial ran' "md: a partial table first"
run_fm pth compare "$D/munmap-base" part/munmap-patch --format html
like "$(grep -o '<p class="partial">[^<]*' pth.out)" "$pline" "html: a line in the header"
like "$(cat pth.out)" '<table data-table="partial">' "html: and the table"
jq '.status = "running"' "$D/munmap-patch/run.json" >part/munmap-patch/run.json
run_fm ptr report part/munmap-patch
like "$(head -1 ptr.out)" 'PARTIAL RUN: .* is running, or its controller died' "a running run: flagged"
# compare A latest takes a partial run of A's plan, and flags it
copy "$D/munmap-patch" 20011130-061500-tlb-flush-range-dddd '.status = "interrupted"'
run_fm ptl compare 20011130-041500-tlb-flush-range-3f2a latest --results res
is "$rc" 4 "compare A latest, the newest of A's plan interrupted: exit 4"
like "$(head -1 ptl.out)" '^PARTIAL RUN: 20011130-061500-tlb-flush-range-dddd ' "... and it is flagged"

# --- --samples: each trial's samples (the pagefault batches) ------------------------
run_fm smp report "$D/pagefault" --samples
is "$rc" 0 "--samples: exit 0"
golden smp "$G/samples-pagefault.txt" "--samples text: equals golden/samples-pagefault.txt"
for f in md csv json; do
	run_fm "smp-$f" report "$D/pagefault" --samples --table summary --format "$f"
	golden "smp-$f" "$G/samples-pagefault.$f" "--samples --format $f: equals golden/samples-pagefault.$f"
done
is "$(jq -r '[.[] | select(.table == "samples" and .metric == "file_fault" and .rep == "1" and (.column | test("^s[0-9]+$"))) | .value] | length' smp-json.out)" \
	10 "--samples json: the ten batches of a trial, one object each"
is "$(jq -r '.[] | select(.table == "samples" and .metric == "file_fault" and .rep == "1" and .column == "s3") | .value' smp-json.out)" \
	163155.52 "--samples json: a batch's value as trials.jsonl has it"
run_fm smpc compare "$D/munmap-base" "$D/munmap-patch" --samples --format csv
is "$rc" 4 "compare --samples: exit 4"
is "$(grep -c '^samples,munmap,' smpc.out)" 40 "compare --samples: a row per trial of either run (2 x 2 points x 2 metrics x 5)"
like "$(cat smpc.out)" 'samples,munmap,"threads=4,pages=16",ns_per_munmap,ns,lab-03/base,1,1,5032,5032,5032,0,5032' \
	"compare --samples: n, min, median, max, spread, s1"
is "$(sed '/^$/,$d' smpc.out)" "$(cat "$G/compare-munmap.csv")" "compare --samples: the compare table as without"
run_fm smph compare --help
like "$(tr -s ' \n' ' ' <smph.out)" '\[--aggregate median\|mean\] \[--samples\]' "compare's usage names --aggregate and --samples"

# --- errors ------------------------------------------------------------------------
run_fm e1 report "$D/commando" --table nosuch
is "$rc" 2 "unknown table: exit 2"
like "$(cat e1.err)" "unknown table 'nosuch'" "unknown table: says so"
run_fm e2 report "$D/commando" --format xml
is "$rc" 2 "unknown format: exit 2"
run_fm e3 report "$W/nowhere"
is "$rc" 1 "a missing run: exit 1"
like "$(cat e3.err)" 'nowhere: not a run' "a missing run: says so"
mkdir -p bad && echo '{"format": 1,' >bad/run.json
run_fm e4 report bad
is "$rc" 1 "an unreadable run.json: exit 1"
like "$(cat e4.err)" 'bad/run.json:' "an unreadable run.json: file named"
mkdir -p fut && echo '{"format": 2, "run": "x"}' >fut/run.json && : >fut/trials.jsonl
run_fm e5 report fut
is "$rc" 1 "an unknown format version: exit 1"
like "$(cat e5.err)" 'unknown format 2' "an unknown format version: says so"
run_fm e6 report "$D/munmap-base" --table delta
is "$rc" 2 "delta with one series: exit 2"
run_fm e7 report
is "$rc" 2 "no run: usage, exit 2"
run_fm e8 report "$D/munmap-base" --table lmbench
is "$rc" 2 "lmbench tables of a run without lmbench points: exit 2"
done_testing
