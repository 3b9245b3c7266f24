#!/usr/bin/env bash
# t517-report-html-lmbench: the lmbench tables on the HTML page are
# numbers, not getsummary's mail cells: every cell is the JSON report's
# full value at four significant figures or as a whole number (39000
# where the mail says 39.K), with the mail's cell as its tooltip; no cell
# of the page's lmbench tables ends in K or M; a cell the mail leaves
# blank (a value of 0) stays blank, with its note.  The text and Markdown
# tables keep the mail's cells (t500).
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

# cells FILE: each lmbench table cell of the page as "TOOLTIP|TEXT".
cells() {
	perl -0777 -ne 'for my $t (/<table data-table="lmbench".*?<\/table>/sg) {
		print "$1|$2\n" while $t =~ /<td class="n" title="lmbench: ([^"]*)">([^<]*)<\/td>/g }' "$1"
}
# want RUNS...: the same from the JSON report: the mail's text and the
# value as a web page shows it (%.4g from 0.001 to 1000, whole from 1000
# to 10^6, %.3g beyond).
want() {
	"$FLEETMARK" report "$@" --table lmbench --format json 2>/dev/null |
		jq -r '.[] | select(.table == "lmbench" and .value != null) | "\(.text|ltrimstr(" ")|rtrimstr(" "))|\(.value)"' |
		awk -F'|' '{ v = $2 + 0; a = v < 0 ? -v : v
			if (a >= 1e6 || (a < 1e-3 && a > 0)) s = sprintf("%.3g", v)
			else if (a >= 1000) s = sprintf("%.0f", v)
			else s = sprintf("%.4g", v)
			print $1 "|" s }'
}

for t in tx49:"$D/tx49-without $D/tx49-with" commando:"$D/commando"; do
	name=${t%%:*}
	# shellcheck disable=SC2086 # the run list splits on purpose
	set -- ${t#*:}
	html "$name" "$@" --table lmbench
	is "$rc" 0 "$name: exit 0"
	n=$(want "$@" | wc -l | tr -d ' ')
	check "$name: lmbench cells on the page ($n)" test "$n" -gt 20
	got=$(cells "$name.html" | sed 's/^ *//')
	is "$got" "$(want "$@")" "$name: every cell is the full value, the mail's cell its tooltip"
	is "$(cells "$name.html" | cut -d'|' -f2 | grep -c '[KM]$')" 0 "$name: no cell ends in K or M"
done
like "$(cells tx49.html)" '39.K\|39[0-9]{3}' "tx49: sh proc 39.K is a number of 5 digits"
like "$("$FLEETMARK" report "$D/tx49-without" "$D/tx49-with" --table lmbench 2>/dev/null)" ' 39\.K' \
	"tx49: the text table keeps the mail's 39.K"
# A value of 0 is blank in the mail, and stays blank on the page, with the
# note that says why (and a note on a number keeps its mark too).
mkdir -p zero
cp -r "$D/tx49-with" zero/with
jq -c 'if .bench == "lat_proc" and .params.op == "fork" and .rep == 1 and .host == "TX49-16K" then .value = 0 | .samples = [0] else . end' \
	"$D/tx49-with/trials.jsonl" >zero/with/trials.jsonl
html zero "$D/tx49-without" zero/with --table lmbench
like "$(cat zero.html)" '<td class="n"><sup class="note" title="fork: the value is 0, which lmbench prints blank">1</sup></td>' \
	"a fork of 0: a blank cell with the note, as in the text table"
is "$(cells zero.html | grep -c '|0$')" 0 "... not a 0"
done_testing
