#!/usr/bin/env bash
# t523-report-ab: `fleetmark report DIR` of an ab directory, in every
# format: the lmbench tables with one row per boot (the side's label in
# the OS column, as the TX49 mail's with-patch/without-patch rows), then
# the paired verdict and what the boots can see; the HTML page is self-
# contained and escapes a hostile label; `--samples` adds each trial's
# samples; `report` of a copy that is not the user's is fine (nothing in
# it is run).  The ab directory is built
# here from the TX49 runs of tests/data/report: side A the run without the
# patch, side B the run with it, each of its three repetitions one boot,
# in the order ABBAAB.  No lab, no board.
# cost: 2 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../lib-html.sh
. "$TOP/tests/lib-html.sh"
html_setup	# D the report fixtures, W a scratch directory, and the current one
AB=$W/ab

# boot HOST NN SIDE SRC REP: boots/HOST-NN-SIDE, a run of SRC's trials of
# HOST and repetition REP, each line with its side and boot.
boot() {
	local run=boots/$1-$2-$3 id=20061201-0100$2-lmbench-$3$1
	mkdir -p "$AB/$run/hosts"
	cp "$D/$4/hosts/$1.json" "$AB/$run/hosts/"
	jq --arg id "$id" --arg h "$1" '.run = $id | .hosts = {($h): .hosts[$h]}' \
		"$D/$4/run.json" >"$AB/$run/run.json"
	jq -c --arg id "$id" --arg h "$1" --argjson rep "$5" --arg side "$3" \
		--argjson boot "$((10#$2))" \
		'select(.host == $h and .rep == $rep) | .run = $id | .side = $side |
		 .boot = $boot' "$D/$4/trials.jsonl" >"$AB/$run/trials.jsonl"
	printf '{"boot": %d, "side": "%s", "block": %d, "state": "done", "run": "%s"}' \
		"$((10#$2))" "$3" "$(((10#$2 - 1) / 2))" "$run"
}
# seq HOST: the host's sequence, ABBAAB, reps 1 2 3 of each side.
seq_of() {
	local a=0 b=0 n=0 s sep=""
	for s in A B B A A B; do
		n=$((n + 1))
		if [ "$s" = A ]; then
			a=$((a + 1))
			printf '%s' "$sep$(boot "$1" "0$n" A tx49-without "$a")"
		else
			b=$((b + 1))
			printf '%s' "$sep$(boot "$1" "0$n" B tx49-with "$b")"
		fi
		sep=,
	done
}
mkdir -m 755 "$AB"
s16=$(seq_of TX49-16K)
s32=$(seq_of TX49-32K)
cat >"$AB/ab.json" <<EOT
{"format": 1, "start": "2006-12-01T00:00:00Z", "plan": "plans/lmbench.yaml",
 "plan_name": "lmbench", "plan_seed": 1, "fleet": null,
 "hosts": ["TX49-16K", "TX49-32K"],
 "sides": {"A": {"command": "./boot-a", "label": "without-patch", "expect": null},
           "B": {"command": "./boot-b", "label": "with-patch", "expect": null}},
 "order": "abba", "seed": 1, "boots_per_side": 3, "threshold": 5.0,
 "sequences": {"TX49-16K": [$s16], "TX49-32K": [$s32]}}
EOT
chmod 644 "$AB/ab.json"

# text: the mail's processor table, a row per boot, the side in the OS column
"$FLEETMARK" report "$AB" >"$W/out" 2>"$W/err"
is "$?" 0 "report of an ab directory: exit 0"
is "$(grep -cE '^TX49-16K +without-patch ' "$W/out")" 9 \
	"text: three without-patch rows of TX49-16K in each of the three tables"
check_fail "text: no legend of rows that print alike" grep -q "print alike" "$W/out"
like "$(cat "$W/out")" "TX49-16K  without-patch  197 0.72 2.40 17.7 34.3 82.9 2.84 26.2 2500 9364 39.K" \
	"text: boot 1's processor row is the mail's first row"
like "$(cat "$W/out")" "TX49-32K  with-patch     396 0.36 1.19 6.79 10.2 40.9 1.41 8.14 1238 4627 19.K" \
	"text: TX49-32K's last B boot is the mail's last row"
like "$(cat "$W/out")" "B \\(with-patch\\) against A \\(without-patch\\), the boot as the unit; threshold 5%" \
	"text: the verdict's title"
like "$(cat "$W/out")" "TX49-16K +lat_proc.latency +op=fork " "text: a verdict row per host and point"
like "$(cat "$W/out")" "What the boots can see" "text: the variance components"
like "$(grep -E 'TX49-16K +lat_syscall.latency +op=stat' "$W/out" | tail -1)" " 3 " \
	"text: three pairs"

# md, csv, json: the same tables
"$FLEETMARK" report "$AB" --format md >"$W/md" 2>"$W/err"
is "$?" 0 "md: exit 0"
like "$(cat "$W/md")" "\\| TX49-16K \\| with-patch \\|" "md: a boot row"
like "$(cat "$W/md")" "\\| host \\| metric \\| point \\| A mean \\| B mean \\|" "md: the verdict table"
"$FLEETMARK" report "$AB" --format csv >"$W/csv" 2>"$W/err"
is "$?" 0 "csv: exit 0"
like "$(cat "$W/csv")" "TX49-32K,with-patch,TX49-32K/with-patch#3," "csv: the third B boot, a series of its own"
like "$(cat "$W/csv")" "host,metric,point,pairs,between boots,within a boot,detectable,boots a side" \
	"csv: what the boots can see"
"$FLEETMARK" report "$AB" --format json >"$W/json" 2>"$W/err"
is "$?" 0 "json: exit 0"
is "$(jq '[.[] | select(.table == "ab")] | length > 0' "$W/json")" true "json: the verdict's cells"
is "$(jq '[.[] | select(.table == "ab-design")] | length > 0' "$W/json")" true \
	"json: the variance components' cells"
is "$(jq -r '[.[] | select(.os == "with-patch") | .series] | unique | length' "$W/json")" 6 \
	"json: six with-patch boots as rows (3 a host)"

# html: one page, self-contained, the verdict in it, a hostile label escaped
cp -a "$AB" "$W/ab2"
sed -i 's|"label": "with-patch"|"label": "<script>x</script>"|' "$W/ab2/ab.json"
chmod 666 "$W/ab2/ab.json"	# not the user's to trust: a report runs nothing
html page "$W/ab2"
is "$rc" 0 "html: exit 0 (an ab.json others can write is read)"
like "$(cat page.html)" "B \\(&lt;script&gt;x&lt;/script&gt;\\) against A" \
	"html: the label escaped in the verdict's title"
is "$(grep -Eio 'https?://|src=|<script|<link|<iframe|<object|<embed|@import' page.html |
	wc -l | tr -d ' ')" 0 "html: self-contained, no script (the label's neither)"
like "$(cat page.html)" "without-patch" "html: the boots' rows"

# ab --format html: the same page, from a resume of the finished directory
# (nothing is booted: every boot is done), and exit 4 as the verdict says.
cat >"$W/fleet.yaml" <<EOT
hosts:
  TX49-16K:
    address: 198.18.0.16
  TX49-32K:
    address: 198.18.0.32
EOT
sed -i "s|\"plan\": \"plans/lmbench.yaml\"|\"plan\": \"$TOP/plans/lmbench.yaml\"|
	s|\"fleet\": null|\"fleet\": \"$W/fleet.yaml\"|" "$AB/ab.json"
"$FLEETMARK" ab --resume "$AB" -A ./boot-a -B ./boot-b --format html >"$W/ab.html" \
	2>"$W/err"
is "$?" 4 "ab --format html: exit 4, B worse on a counted row"
like "$(cat "$W/ab.html")" "B \(with-patch\) against A \(without-patch\)" \
	"ab --format html: the verdict"
like "$(cat "$W/ab.html")" "TX49-16K.*without-patch" "ab --format html: the boots' rows"
like "$(head -c 100 "$W/ab.html")" "<!DOCTYPE html>" "ab --format html: a page alone on stdout"
like "$(cat "$W/err")" "TX49-16K: 6 of 6 boots done" "ab --format html: the hosts on stderr"

# --samples: each boot's trials' samples, as report's of a run
"$FLEETMARK" report "$AB" --samples --format json >"$W/smp" 2>"$W/err"
is "$?" 0 "--samples of an ab directory: exit 0"
is "$(jq '[.[] | select(.table == "samples")] | length > 0' "$W/smp")" true \
	"... its samples table is there"
"$FLEETMARK" report "$AB" --format json >"$W/nosmp" 2>"$W/err"
is "$(jq '[.[] | select(.table == "samples")] | length' "$W/nosmp")" 0 "... and not without --samples"

# not an ab directory, or a broken one: refused
"$FLEETMARK" report "$W/ab2" --format text >/dev/null 2>"$W/err"
is "$?" 0 "text of the same directory: exit 0"
sed -i 's|"plan": "plans/lmbench.yaml",||' "$W/ab2/ab.json"
"$FLEETMARK" report "$W/ab2" >"$W/out" 2>"$W/err"
is "$?" 1 "report of an ab.json without its plan: exit 1"
like "$(cat "$W/err")" "ab2/ab.json: not an ab.json of format 1: \"plan\"" "... says so"
done_testing
