#!/usr/bin/env bash
# t518-report-html-env: the HTML report ends with the runs and the hosts'
# facts per side (a run directory's hosts/NAME.json: kernel, CPU, memory,
# mitigations...), checked on two runs of plans/smoke.yaml made here on
# this machine (the local transport, a second each) against what the agent
# says (`fleetmark-agent env --json`), and on the TX49 fixture's four
# sides.  No page has an empty heading: every section heading is followed
# by what it heads, and sections with nothing to show are left out.
# cost: 3 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup
need_agent

# fact FILE KEY: the env table's row KEY, cells joined by "|".
fact() {
	section "$1" env | perl -ne 'if (/^<tr><th>\Q'"$2"'\E<\/th>(.*)<\/tr>/) { my $r = $1;
		my @c; push @c, $1 while $r =~ /<td>([^<]*)<\/td>/g; print join("|", @c), "\n" }' |
		sed 's/&#39;/'"'"'/g; s/&quot;/"/g; s/&amp;/\&/g'
}
# empty_headings FILE: headings with nothing after them in their section.
empty_headings() {
	perl -0777 -ne 'print "$1\n" while /(<h[23][^>]*>[^<]*<\/h[23]>)\s*(?=<\/section>|<h[23][ >])/g;
		print "$1\n" while /(<h[23][^>]*>\s*<\/h[23]>)/g' "$1"
}

for label in a b; do
	# others benchmark this machine too: wait for its lease (docs/reliability.md)
	"$FLEETMARK" run "$TOP/plans/smoke.yaml" -o runs --label "$label" --wait-lock 300s >"run-$label.out" 2>&1
	is "$?" 0 "run plans/smoke.yaml --label $label on this machine"
done
A=$(find runs -mindepth 1 -maxdepth 1 -type d | sort | head -1)
B=$(find runs -mindepth 1 -maxdepth 1 -type d | sort | tail -1)
html local "$A" "$B"
is "$rc" 0 "report A B --format html: exit 0"
"$AGENT" env --json >env.json 2>/dev/null
for k in cpus cpu_model mem_kb page_size arch; do
	v=$(jq -r ".$k" env.json)
	is "$(fact local.html "$k")" "$v|$v" "env: $k is the agent's ($v), for each side"
done
v=$(jq -r .uname.release env.json)
is "$(fact local.html uname.release)" "$v|$v" "env: the kernel release ($v)"
like "$(section local.html env | grep -o '<tr><th>[a-z_.]*</th><td>' | head -3 | tr '\n' ' ')" \
	'<tr><th>uname.release</th><td> <tr><th>uname.version</th><td> <tr><th>arch</th><td>' "env: the kernel first"
n=$(jq '.vulnerabilities | length' env.json)
is "$(section local.html env | grep -c '<tr><th>vulnerabilities\.')" "$n" "env: a row per mitigation the agent reports ($n)"
is "$(fact local.html type)" "" "env: the agent's record type is not a fact"
is "$(fact local.html run)" "$(basename "$A")|$(basename "$B")" "env: each side's run"
like "$(section local.html env)" '<th>local<small>'"$(basename "$A")"'</small></th><th>local<small>' "env: a column per side, host and run"
like "$(tr -d '\n' <"$B/report.html")" '<section id="verdict".*<section id="env">' \
	"the run's own report.html has the verdict and the environment"
is "$(grep -Eio 'https?://|src=|<script|<link|@import' local.html | wc -l | tr -d ' ')" 0 "local: self-contained"

html tx49 "$D/tx49-without" "$D/tx49-with"
is "$(fact tx49.html mhz)" "197|396|197|396" "tx49: four sides (2 runs x 2 boards), each board's MHz"
is "$(fact tx49.html arch)" "mips|mips|mips|mips" "tx49: and arch"

for t in local:"$A $B" tx49:"$D/tx49-without $D/tx49-with" munmap:"$D/munmap-base $D/munmap-patch" \
	sweep:"$D/sweep" pf:"$D/pagefault" one:"$A" profile:"$D/profile-base $D/profile-patch"; do
	name=${t%%:*}
	# shellcheck disable=SC2086 # the run list splits on purpose
	set -- ${t#*:}
	html "$name" "$@"
	# A report that failed has no heading at all, empty or not.
	is "$rc" 0 "$name: report --format html exits 0"
	is "$(empty_headings "$name.html")" "" "$name: no empty heading"
done
is "$(grep -o '<section id="[a-z]*"' one.html | tr '\n' ' ')" \
	'<section id="verdict" <section id="trials" <section id="tables" <section id="env" ' \
	"one run of smoke: verdict (nothing compared), trials, tables, env; no changes, forest or scaling"
done_testing
