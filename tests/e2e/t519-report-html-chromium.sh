#!/usr/bin/env bash
# t519-report-html-chromium: the HTML report as headless Chromium lays it
# out at 1400 and 800 px: the compact compare table's verdict columns
# (change, p, mark) lie inside the viewport, the page has no horizontal
# scroll, no chart reaches past the right edge, a noisy matrix cell is
# hatched; measured by Chromium
# itself (a copy of the page without its CSP and with a script that reads
# getBoundingClientRect(), through --dump-dom).  Screenshots of the TX49
# report at both widths go to tests/out/report-1400.png and
# report-800.png, for a person to look at.
# cost: 19 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (tools/deps installs it)"

# field LINE KEY: "L-R" or a number after KEY= in measure's line.
field() { sed -n 's/.* '"$2"'=\([^ ]*\).*/\1/p' <<<" $1"; }

html munmap "$D/munmap-base" "$D/munmap-patch"
html tx49 "$D/tx49-without" "$D/tx49-with" --table all
html sweep "$D/sweep" --table all
for name in munmap tx49 sweep; do
	for w in 1400 800; do
		m=$(measure "$W" "$name" "$w")
		if [ -z "$m" ]; then
			tap_result 1 "$name at $w px: chromium measured the page"
			sed 's/^/#   /' "$W/$name-m$w.log" | head -5
			continue
		fi
		diag "$name at $w px: $m"
		vw=$(field "$m" vw)
		is "$vw" "$w" "$name at $w px: the viewport is $w px wide"
		for col in change p mark; do
			lr=$(field "$m" "$col")
			check "$name at $w px: the $col column ($lr) is inside the viewport" \
				test -n "$lr" -a "${lr%-*}" -ge 0 -a "${lr#*-}" -le "$vw"
		done
		is "$(field "$m" sw)" "$vw" "$name at $w px: no horizontal scroll (the wide tables scroll in their box)"
		check "$name at $w px: no chart past the right edge (the widest ends at $(field "$m" svg))" \
			test "$(field "$m" svg)" -le "$vw"
	done
done

# A noisy matrix cell: its hatching survives its heat colour (an inline
# `background:` would reset the stylesheet's background-image).
mkdir -p noisy
cp -r "$D/sweep" noisy/run
jq -c 'if .variant == "always" and .params.threads == "1" and .params.pages == "1" and .rep == 2 then .value *= 1.6 else . end' \
	"$D/sweep/trials.jsonl" >noisy/run/trials.jsonl
html noisy noisy/run --table matrix
is "$(field "$(measure "$W" noisy 800)" hatch)" yes "a noisy matrix cell is hatched as Chromium draws it"

mkdir -p "$TOP/tests/out"
for w in 1400 800; do
	rm -f "$TOP/tests/out/report-$w.png"
	chrome "$W" tx49.html --window-size="$w,2400" --screenshot="$TOP/tests/out/report-$w.png" >/dev/null
	is "$(png_size "$TOP/tests/out/report-$w.png" 2>/dev/null)" "${w}x2400" \
		"a screenshot of the TX49 report at $w px in tests/out/report-$w.png"
done
done_testing
