#!/usr/bin/env bash
# t512-report-html-changes: the compact compare table of the HTML report:
# the columns point | [series |] base | new | change with its 95% interval
# | p | q | mark, a row per row of the compare table, the means and p as
# the compare table's (JSON), the change inside its interval, and q the
# compare table's: the Benjamini-Hochberg adjustment of the judged rows' p
# values, recomputed here with awk from the JSON p values (R's
# p.adjust(p, "BH")).
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

# rows NAME: the compact table's rows as tab-separated text cells
# (small lines after a tab).
rows() {
	section "$1.html" changes | perl -ne '
		next unless /^<tr class=/;
		s/<small>/\t/g; s/<wbr>//g; s/<\/td><td[^>]*>/|/g; s/<[^>]*>//g;
		print' | sed 's/&#39;/'"'"'/g'
}
# bh: Benjamini-Hochberg q of the p values on stdin (one a line), in order.
bh() {
	awk '{ p[NR] = $1 } END {
		m = NR
		for (i = 1; i <= m; i++) o[i] = i
		for (i = 2; i <= m; i++) for (j = i; j > 1 && p[o[j-1]] > p[o[j]]; j--) { t = o[j]; o[j] = o[j-1]; o[j-1] = t }
		q = 1
		for (k = m; k >= 1; k--) { v = p[o[k]] * m / k; if (v < q) q = v; r[o[k]] = q }
		for (i = 1; i <= m; i++) printf "%.3g\n", r[i]
	}'
}

html munmap "$D/munmap-patch" --baseline "$D/munmap-base"
is "$rc" 4 "munmap --baseline: exit 4 (a regression), as the text report"
html tx49 "$D/tx49-without" "$D/tx49-with" --table compare
"$FLEETMARK" compare "$D/munmap-base" "$D/munmap-patch" --format json >munmap.json 2>/dev/null
"$FLEETMARK" compare "$D/tx49-without" "$D/tx49-with" --format json >tx49.json 2>/dev/null

cols() { section "$1.html" changes | grep -o 'data-col="[a-z]*"' | sed 's/data-col=//; s/"//g' | tr '\n' ' '; }
is "$(cols munmap)" "point base new change p q mark " "munmap: the columns (one compared series: no series column)"
is "$(cols tx49)" "point series base new change p q mark " "tx49: a series column, two boards compared"

for name in munmap tx49; do
	n=$(jq '[.[] | select(.table == "compare" and .params != "geomean" and .column == "base mean")] | length' "$name.json")
	is "$(rows "$name" | wc -l | tr -d ' ')" "$n" "$name: a row per row of the compare table ($n)"
	# base and new: the compare table's means (its text, 4 figures)
	want=$(jq -r '.[] | select(.table == "compare" and .params != "geomean" and (.column == "base mean" or .column == "mean")) | .text' "$name.json" | paste - - | tr '\t' ' ')
	got=$(rows "$name" | awk -F'|' '{ split($(NF-5), b, "\t"); split($(NF-4), m, "\t"); print b[1], m[1] }')
	is "$got" "$want" "$name: base and new are the compare table's means"
	# p: the compare table's, at 3 figures (numfmt_p) ("-" for a row without)
	want=$(jq -r '[.[] | select(.table == "compare" and .params != "geomean")] as $a | $a[] | select(.column == "base mean") | . as $r |
		[$a[] | select(.bench == $r.bench and .params == $r.params and .metric == $r.metric and
			.series == $r.series and .column == "p")] | if length > 0 then .[0].value else "-" end' "$name.json" |
		awk '$1 == "-" { print; next } { printf "%.3g\n", $1 }')
	got=$(rows "$name" | awk -F'|' '{ print $(NF-2) }')
	is "$got" "$want" "$name: p is the compare table's Welch p"
	# q: Benjamini-Hochberg over the rows with a p, from the exact p values
	got=$(rows "$name" | awk -F'|' '$(NF-1) != "-" { print $(NF-1) }')
	# (the rows judged: those with a q in the compare table; noisy rows
	# and rows of too few trials are not in the step)
	pexact=$(jq -r '[.[] | select(.table == "compare" and .params != "geomean")] as $a | $a[] | select(.column == "q") | . as $r |
		[$a[] | select(.bench == $r.bench and .params == $r.params and .metric == $r.metric and
			.series == $r.series and .column == "p")][0].value' "$name.json" | bh)
	is "$got" "$pexact" "$name: q is Benjamini-Hochberg over the judged rows' p values"
	want=$(jq -r '.[] | select(.table == "compare" and .params != "geomean" and .column == "q") | .value' "$name.json" |
		awk '{ printf "%.3g\n", $1 }')
	is "$got" "$want" "$name: ... the compare table's q"
	# the change lies in its interval
	bad=$(rows "$name" | awk -F'|' '{ split($(NF-3), c, "\t"); if (c[2] == "") next
		ch = c[1]; sub(/%/, "", ch); split(c[2], iv, " .. "); lo = iv[1]; hi = iv[2]; sub(/%/, "", lo); sub(/%/, "", hi)
		if (ch + 0 < lo - 0.05 || ch + 0 > hi + 0.05) print }')
	is "$bad" "" "$name: each change lies inside its 95% interval"
done
like "$(rows munmap | head -1)" '^munmap threads=4,pages=16 ns_per_munmap \(ns\)\|5026	n=5 ±0.4%\|5529	n=5 ±0.4%\|\+10.0%	\+9.[0-9]% \.\. \+10.[0-9]%\|5.52e-10\|8.28e-10\|worse$' \
	"munmap: the worse row, whole"
like "$(rows munmap | sed -n 3p)" '\|cannot judge	noisy, [0-9.]+% &gt; 5%$' "munmap: the noisy row says why, as the compact table"
like "$(rows munmap | sed -n 4p)" '\|same$' "munmap: a row shown unchanged within the threshold says same"
done_testing
