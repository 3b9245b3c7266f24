#!/usr/bin/env bash
# t516-report-html-matrix: the matrix grids of the HTML report are heat
# coloured: a value grid from light (its smallest value) to deep (its
# largest); a change grid red where worse and blue where better for the
# metric, deepest at twice the threshold; a noisy change cell (a side's
# rsd above the threshold, or fewer than 3 trials) is hatched and says so
# in its tooltip, and no other cell is.
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup

# grid FILE N: the N-th matrix table's body rows, cells as "STYLE|TEXT".
grid() {
	perl -0777 -ne 'my @t = /<table data-table="matrix".*?<\/table>/sg; $_ = $t['"$2"' - 1];
		while (/<tr>(.*?)<\/tr>/sg) { my $r = $1; next if $r =~ /<th/;
			my @c; while ($r =~ /<td([^>]*)>([^<]*)<\/td>/g) { my ($a, $x) = ($1, $2);
				my ($s) = $a =~ /background-color:([^)"]*\))/; my $n = $a =~ /data-noisy/ ? " noisy" : "";
				push @c, ($s // "") . "$n|$x" } print join("  ", @c), "\n" }' "$1"
}

html sweep "$D/sweep" --table matrix
is "$rc" 0 "sweep --table matrix: exit 0"
is "$(grep -c '<table data-table="matrix" class="grid-matrix">' sweep.html)" 3 "sweep: three grids (never, always, the change)"
# the value grid of never: 1010 the lightest, 6560 the deepest
like "$(grid sweep.html 1 | head -1)" '^\|1  rgba\(230,159,0,0.06\)\|1010[ ±0-9.%]*  ' "never: the smallest value is the lightest (alpha 0.06)"
like "$(grid sweep.html 1 | tail -1)" 'rgba\(230,159,0,0.56\)\|6560[ ±0-9.%]*$' "never: the largest the deepest (0.56)"
# the change grid: +20% at 4 threads is worse for ns: red, deepest (0.08 + 0.55 x min(1, 20/10))
is "$(grid sweep.html 3 | tail -1)" '|4  rgba(213,94,0,0.63)|+20.0% *  rgba(213,94,0,0.63)|+20.0% *  rgba(213,94,0,0.63)|+20.0% *' \
	"change: +20% (worse for ns) red, at full depth"
like "$(grid sweep.html 3 | head -1)" 'rgba\(0,114,178,0.08\)\|\+0.0%' "change: no change barely tinted"
is "$(grep -c 'data-noisy="1"' sweep.html)" 0 "sweep: no noisy cell"
like "$(cat sweep.html)" 'Matrix grids are heat-coloured: .*hatched: noisy' "sweep: the page says what the colours mean"

# One noisy cell: always at threads=1, pages=1 with one trial 1.6 times the others.
mkdir -p noisy
cp -r "$D/sweep" noisy/run
jq -c 'if .variant == "always" and .params.threads == "1" and .params.pages == "1" and .rep == 2 then .value *= 1.6 else . end' \
	"$D/sweep/trials.jsonl" >noisy/run/trials.jsonl
html noisy noisy/run --table matrix
is "$(grep -o '<td[^>]*data-noisy="1"[^>]*>[^<]*' noisy.html | wc -l | tr -d ' ')" 1 "one noisy cell: one hatched cell"
like "$(grid noisy.html 3 | head -1)" '^\|1  rgba\([0-9,]+0\.[0-9]+\) noisy\|\+[0-9.]+%[^ ]*( [?!]+)*  ' "... the change at threads=1, pages=1"
like "$(grep -o '<td[^>]*data-noisy="1"[^>]*>' noisy.html)" 'title="worse; noisy: a side.s rsd is above the threshold' \
	"... and its tooltip says it is noisy"
like "$(cat noisy.html)" 'table.grid-matrix td\[data-noisy\]\{background-image:repeating-linear-gradient' "the hatching is CSS, inline"
done_testing
