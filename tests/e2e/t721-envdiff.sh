#!/usr/bin/env bash
# t721-envdiff: two runs that differ only in one env fact (THP) compared:
# the difference is the first thing compare shows, in text, Markdown,
# CSV, JSON and HTML (a table at the top of the page, in the verdict
# box); a nightly run
# (run --baseline) begins its report with it; history says on which
# night it changed.  Facts that change by themselves (loadavg, mhz) are
# not differences, and two runs with the same facts show none.
#
# One run on this machine (the default fleet, no lab); the other sides
# are copies of it under new run ids with hosts/local.json edited, so
# nothing on this machine is changed.  The runs wait for the local host's
# lease (--wait-lock): other runs on this machine may hold it.
# cost: 3 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
WORK=$(mktemp -d /tmp/t721.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/plan.yaml" <<'P'
name: envdiff
repeat: 3
samples: 3
benchmarks:
  - bench: lat_syscall
P
"$FLEETMARK" run "$WORK/plan.yaml" --wait-lock 10m -o "$WORK/all" >"$WORK/a.out" 2>"$WORK/a.err"
is "$?" 0 "a run on this machine"
A=$(run_dir "$WORK/all")
check "... with its env facts" test -s "$A/hosts/local.json"

# copy RUNID START DIR: a copy of A under another run id and start time
copy() {
	local d=$WORK/all/$1
	cp -a "$A" "$d"
	jq --arg id "$1" --arg st "$2" '.run = $id | .start = $st' "$A/run.json" >"$d/run.json.new" &&
		mv "$d/run.json.new" "$d/run.json"
	echo "$d"
}
# setfact DIR JQ: edit DIR's hosts/local.json
setfact() { jq "$2" "$1/hosts/local.json" >"$1/h.new" && mv "$1/h.new" "$1/hosts/local.json"; }

setfact "$A" '.thp = "madvise"'
B=$(copy 20010102-000000-envdiff-b001 2001-01-02T00:00:00Z)
setfact "$B" '.thp = "never" | .loadavg = [9, 9, 9] | .mhz = 1234'
jq '.start = "2001-01-01T00:00:00Z"' "$A/run.json" >"$A/r.new" && mv "$A/r.new" "$A/run.json"

out=$("$FLEETMARK" compare "$A" "$B" 2>"$WORK/c.err")
is "$(printf '%s\n' "$out" | head -2)" "ENVIRONMENT DIFFERS: 1 fact of the hosts (hosts/NAME.json) differs between the sides
  thp madvise -> never (1 of 1 host pair)" "compare: the THP difference first, nothing else (loadavg and mhz are not facts that differ)"
like "$(printf '%s\n' "$out" | sed -n 3p)" "^  local \(.*\) vs local \(20010102-000000-envdiff-b001\): thp madvise -> never$" \
	"... and per host pair"
like "$(printf '%s\n' "$out" | grep -n '^Compare' | cut -d: -f1)" '^[0-9]+$' "... then the compare table"

is "$("$FLEETMARK" compare "$A" "$B" --format md | sed -n 1p)" "### Environment: facts that differ between the sides" \
	"Markdown: the environment table first"
like "$("$FLEETMARK" compare "$A" "$B" --format md | sed -n 5p)" '^\| [^|]+ \| local \| 20010102-000000-envdiff-b001 \| local \| thp \| madvise \| never \|$' \
	"... a row per fact and pair"
is "$("$FLEETMARK" compare "$A" "$B" --format csv | sed -n 2p | cut -d, -f1,5-)" "environment,local,thp,madvise,never" \
	"CSV: the environment rows first"
is "$("$FLEETMARK" compare "$A" "$B" --format json | jq -r '.[0] | .table + " " + .fact + " " + .column + " " + .text')" \
	"environment thp base value madvise" "JSON: the first object is the environment's"
html=$("$FLEETMARK" compare "$A" "$B" --format html)
like "$(printf '%s' "$html" | grep -o 'data-table="[a-z]*"' | head -2 | tr '\n' ' ')" '^data-table="environment" data-table="changes" $' \
	"HTML: the environment table at the top, in the verdict box, above the changes"
like "$(printf '%s' "$html" | tr -d '\n')" '<section id="verdict"[^>]*>.*data-table="environment".*</section><section id="changes"' \
	"... inside the verdict box"
is "$(printf '%s' "$html" | grep -c 'data-table="environment"')" 1 "... and only there"

# The same facts: nothing said.
C=$(copy 20010103-000000-envdiff-c001 2001-01-03T00:00:00Z)
setfact "$C" '.thp = "never"'
run_ok "compare of two runs with the same facts: exit 0" "$FLEETMARK" compare "$B" "$C"
is "$(printf '%s\n' "$out" | grep -c ENVIRONMENT)" 0 "two runs with the same facts: no environment lines"

# Two hosts of one run differ as they are meant to: not a difference of sides.
M=$WORK/one/20010104-000000-envdiff-m001
mkdir -p "$WORK/one"
cp -a "$A" "$M"
jq -c '.host = "other"' "$A/trials.jsonl" >>"$M/trials.jsonl"
jq '.thp = "always"' "$A/hosts/local.json" >"$M/hosts/other.json"
jq '.run = "20010104-000000-envdiff-m001" | .hosts.other = .hosts.local' "$A/run.json" >"$M/run.json"
run_ok "a report of one run of two hosts: exit 0" "$FLEETMARK" report "$M" --table compare
like "$out" "other" "a report of one run of two hosts compares them"
is "$(printf '%s\n' "$out" | grep -c ENVIRONMENT)" 0 "... without environment lines: the sides are runs"

# history: the night THP changed.
hist=$("$FLEETMARK" history "$WORK/all" 2>"$WORK/h.err")
is "$(printf '%s\n' "$hist" | head -2)" "ENVIRONMENT CHANGES: the hosts' facts (hosts/NAME.json) that changed from one night to the next
  local 2001-01-02 (20010102-000000-envdiff-b001): thp madvise -> never" \
	"history: the change, at the top, on the night it happened (and not again the night after)"
is "$("$FLEETMARK" history "$WORK/all" --format md | head -3 | sed -n 3p)" \
	"* local 2001-01-02 (20010102-000000-envdiff-b001): thp madvise -> never" "history --format md: the same as a list"
like "$("$FLEETMARK" history "$WORK/all" --format html | grep -c 'data-table="environment"')" '^1$' "history --format html: a table of them"

# nightly: run --baseline against a night whose THP was another.
setfact "$C" '.thp = "t721-other"'
"$FLEETMARK" run "$WORK/plan.yaml" --wait-lock 10m -o "$WORK/n" --baseline "$C" >"$WORK/n.out" 2>"$WORK/n.err"
N=$(run_dir "$WORK/n")
like "$(head -2 "$N/report.txt" | xargs)" "^ENVIRONMENT DIFFERS: [0-9]+ facts? .* thp t721-other -> " \
	"run --baseline: the report begins with the environment's difference"
like "$(grep -A2 'ENVIRONMENT DIFFERS' "$WORK/n.out" | xargs)" "thp t721-other -> " "... also on stdout"

done_testing
