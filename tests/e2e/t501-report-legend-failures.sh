#!/usr/bin/env bash
# t501-report-legend-failures: two report features through the command
# line, no lab (docs/reports.md):
#  - the lmbench tables of two kernels whose releases differ after the OS
#    column's 13 characters keep getsummary's layout and get a legend under
#    each table naming the series of each run of rows; labels that print
#    apart get none;
#  - the failures table in every format: text, Markdown, CSV, JSON (one
#    object per cell with the key columns), HTML; added by default and by
#    --table all when lines failed, refused (exit 2) by --table failures
#    when none did.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
WORK=$(mktemp -d /tmp/t501.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
DATA=$TOP/tests/data/report

# --- the legend ----------------------------------------------------------------------
for v in 1045 1046; do
	cp -r "$DATA/tx49-without" "$WORK/v$v"
	jq --arg l "6.18.44-fc-v$v" '.label = $l' "$DATA/tx49-without/run.json" >"$WORK/v$v/run.json"
done
"$FLEETMARK" report "$WORK/v1045" "$WORK/v1046" --table lmbench >"$WORK/out" 2>"$WORK/err"
is "$?" 0 "report of the two kernels exits 0"
is "$(grep -c '^TX49-16K  6.18.44-fc-v1  197 ' "$WORK/out")" 6 \
	"rows keep getsummary's layout: the OS cut to 13, both kernels alike"
is "$(grep -c '^Rows that print alike' "$WORK/out")" 3 "a legend under each of the three tables"
is "$(sed -n '/^Rows that print alike/,/^$/p' "$WORK/out" | head -6)" \
	"Rows that print alike (Host and OS cut to 9 and 13 characters; \`--label NAME\` names a run in the OS column):
  rows 1-3: TX49-16K/6.18.44-fc-v1045
  rows 4-6: TX49-16K/6.18.44-fc-v1046
  rows 7-9: TX49-32K/6.18.44-fc-v1045
  rows 10-12: TX49-32K/6.18.44-fc-v1046" "the legend names the series of each run of rows"
run_ok "report of the TX49 mail's runs exits 0" "$FLEETMARK" report "$DATA/tx49-without" "$DATA/tx49-with" --table lmbench
is "$(grep -c 'Rows that print alike' <<<"$out")" 0 "labels that print apart (the TX49 mail's): no legend"
run_ok "report of the two kernels as CSV exits 0" "$FLEETMARK" report "$WORK/v1045" "$WORK/v1046" --table lmbench --format csv
is "$(grep -c 'Rows that print alike' <<<"$out")" 0 "CSV has the whole names, no legend"

# --- the failures table ---------------------------------------------------------------
F=$DATA/munmap-patch	# two lines not ok: a timeout and a connect
"$FLEETMARK" report "$F" >"$WORK/f.txt" 2>/dev/null
like "$(cat "$WORK/f.txt")" "Failures: 2 trials not ok" "the default report adds the failures table"
like "$(grep -E '^lab-03 +- +munmap +threads=4,pages=16 +timeout' "$WORK/f.txt")" ' 1$' \
	"text: host, variant, bench, point, class, first message, count"
like "$("$FLEETMARK" report "$F" --table all 2>/dev/null)" "Failures: 2 trials not ok" "--table all adds it too"
# (F alone has nothing to compare: against its base run.)
run_ok "--table compare of the base and F exits 0" "$FLEETMARK" report "$DATA/munmap-base" "$F" --table compare
is "$(grep -c Failures <<<"$out")" 0 "--table compare alone does not add the failures table"
md=$("$FLEETMARK" report "$F" --table failures --format md 2>/dev/null)
like "$md" '^### Failures: 2 trials not ok' "Markdown: a titled table"
like "$md" '\| host +\| variant +\| bench +\| point +\| class +\| first message +\| +count \|' "... with its columns"
is "$("$FLEETMARK" report "$F" --table failures --format json 2>/dev/null |
	jq -r '.[] | [.table, .host, .variant, .bench, .point, .class, .column, .value] | map(tostring) | join(" ")')" \
	"failures lab-03 - munmap threads=4,pages=16 timeout count 1
failures lab-03 - munmap threads=8,pages=16 connect count 1" \
	"JSON: one object per count, with the key columns"
"$FLEETMARK" report "$F" --table failures --format html -o "$WORK/f.html" 2>/dev/null
is "$?" 0 "HTML: written"
like "$(cat "$WORK/f.html")" 'data-table="failures"' "HTML: the failures table is on the page"
"$FLEETMARK" report "$DATA/munmap-base" --table failures >"$WORK/none" 2>"$WORK/none.err"
is "$?" 2 "--table failures of a run where nothing failed exits 2"
like "$(cat "$WORK/none.err")" "no trial failed in the runs given" "... saying so"

done_testing
