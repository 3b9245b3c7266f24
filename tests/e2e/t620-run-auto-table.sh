#!/usr/bin/env bash
# t620-run-auto-table: `repeat: auto` and the table at the end of a run,
# through real `fleetmark run`s of spin on the default fleet (this
# machine, no lab): with a spread within the threshold but too wide to
# decide it, every point gets rounds up to repeat_max, in interleaved
# rounds after the first three; with a spread above the threshold (more
# trials will not help) and with repeat_max 3, the first three rounds
# and no more; a fixed repeat is
# as before; run.json records repeat_auto.  The end-of-run report of two
# variants swept over two parameters is the matrix with each cell's
# spread (no compare table), of one parameter the compact compare.
# cost: 4 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_tools jq
W=$(mktemp -d /tmp/t620.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$TOP" || exit 1

# plan NAME REPEAT THRESHOLD AXIS2: a spin plan, two empty variants, work x extra.
plan() {
	cat >"$W/$1.yaml" <<EOT
name: $1
$2
samples: 3
variants:
  a: {}
  b: {}
benchmarks:
  - bench: spin
    params:
      work: [1, 2]
      extra: $4
regression:
  threshold: $3
EOT
}

# runit NAME: run the plan; the run directory in $D.
runit() {
	rm -rf "$W/r-$1"
	# --wait-lock: another run on this machine holds the local host a while
	"$FLEETMARK" run "$W/$1.yaml" -o "$W/r-$1" --wait-lock 10m >"$W/$1.out" 2>"$W/$1.err"
	rc=$?
	D=$(run_dir "$W/r-$1")
}

# --- fleetmark plan says so ------------------------------------------------------
plan shown "repeat: auto
repeat_max: 5" "5%" "[0, 5]"
"$FLEETMARK" plan "$W/shown.yaml" >"$W/shown.out" 2>&1
like "$(cat "$W/shown.out")" 'repeat auto \(3 to 5\)' "fleetmark plan: repeat auto (3 to 5)"
like "$(cat "$W/shown.out")" 'x repeat 3 = 24, up to 40 with repeat_max 5' "... and the trials it may take"
like "$(cat "$W/shown.out")" 'regression: threshold 5%, fdr 0.05, metrics: all' "... and the fdr"

# --- repeat: auto, every point undecidable: rounds up to repeat_max --------------
# a program of a shell line that says 100 and 130 us trial by trial, a
# counter per point (its parameter pt): 15% rsd, within a 30% threshold
# (not noisy), but 3 to 5 trials a side give an interval 2 t(0.975;
# 2n - 2) sqrt(2/n) rsd = 43% to 71% wide, never narrower than 30%:
# undecided up to repeat_max.
# turns NAME THRESHOLD: that plan, two empty variants, four points.
turns() {
	sed "s|@W@|$W|" >"$W/$1.yaml" <<'EOT'
name: turns
repeat: auto
repeat_max: 5
samples: 1
variants:
  a: {}
  b: {}
benchmarks:
  - bench: program
    name: turns
    command: /bin/sh
    args: ["-c", 'f=@W@/c.{pt}; c=$(cat $f 2>/dev/null || echo 0); echo $((c + 1)) >$f; echo "took: $((100 + c % 2 * 30)) us"', "sh"]
    params:
      pt: [1, 2, 3, 4]
    parse:
      - match: '^took: (?P<ns>\d+) us'
        metrics: { ns: { unit: ns, direction: lower, scale: 1000 } }
regression:
EOT
	echo "  threshold: $2" >>"$W/$1.yaml"
}
turns wide 30%
runit wide
is "$rc" 0 "repeat: auto run exits 0"
T=$D/trials.jsonl
is "$(jq -r '[.variant, (.params|tojson)] | join(" ")' "$T" | sort | uniq -c | awk '{print $1}' | sort -u | xargs)" \
	5 "a spread within the threshold, never decided: every point gets repeat_max (5) trials"
is "$(jq -r 'select(.variant == "a") | .rep' "$T" | xargs)" \
	"1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5" "in interleaved rounds: rep 4 of every point after every rep 3"
is "$(grep -c 'repeat auto: a round more of 4 points' "$D/logs/local.log")" 4 \
	"the log says each round added (2 variants x 2 rounds)"
is "$(jq -r '.plan.repeat_auto, .plan.repeat_max, .plan.repeat' "$D/run.json" | xargs)" "true 5 3" \
	"run.json: repeat_auto, repeat_max, and the 3 first rounds"
is "$(jq -r '.hosts.local.ok' "$D/run.json")" 40 "run.json counts the 40 trials"

# --- repeat: auto, every point noisier than the threshold: no rounds -------------
# the same trials, 15.7% rsd in 3, against 5%: noisy beyond chance (a
# one-sided chi-square test: 2 x 15.7^2 / 5^2 = 19.7 > 5.99), which more
# trials would not change (docs/reports.md, "Cannot judge, and what would
# help"); against 10% (1.57 times) the rsd of 3 trials could be chance
rm -f "$W"/c.*
turns noisy 5%
runit noisy
is "$rc" 0 "repeat: auto, a spread above the threshold: exits 0"
is "$(jq -r '.hosts.local.ok' "$D/run.json")" 24 "no round added: 2 variants x 4 points x 3 = 24 trials"
is "$(grep -c 'repeat auto' "$D/logs/local.log")" 0 "and the log says none"

# --- repeat: auto with repeat_max 3: the first rounds only ----------------------
plan narrow "repeat: auto
repeat_max: 3" "0.001%" "[0, 5]"
runit narrow
is "$rc" 0 "repeat: auto, repeat_max 3: exits 0"
is "$(wc -l <"$D/trials.jsonl")" 24 "3 trials a point: 2 variants x 4 points x 3 = 24 trials"
is "$(grep -c 'repeat auto' "$D/logs/local.log")" 0 "and no round added"

# --- a fixed repeat is as before ------------------------------------------------
plan fixed "repeat: 2" "0.001%" "[0, 5]"
runit fixed
is "$(wc -l <"$D/trials.jsonl")" 16 "repeat: 2 runs 2 trials a point, whatever the threshold"
is "$(jq -r '.plan.repeat_auto // "absent"' "$D/run.json")" absent "run.json: no repeat_auto"

# --- the end-of-run table -------------------------------------------------------
R=$W/r-narrow
D=$(run_dir "$R")
like "$(cat "$D/report.txt")" 'spin time \(% change of the mean, \+ the value grew' \
	"two variants over work x extra: report.txt has the change matrix"
like "$(cat "$D/report.txt")" 'spin time \(ms, mean of trials ±rsd' "... and each variant's grid"
like "$(grep -E '^1 ' "$D/report.txt" | head -1)" '^1 +[0-9.]+ ±[0-9.]+%' "a cell carries its spread"
is "$(grep -c 'Compare' "$D/report.txt")" 0 "no compare table"
is "$(grep -c 'Lines not used' "$D/report.txt")" 0 "no 'Lines not used' when every line was used"
like "$(cat "$W/narrow.out")" 'spin time \(% change of the mean' "the same tables on stdout"
plan onex "repeat: 3" "5%" "0"
runit onex
like "$(head -1 "$D/report.txt")" '^Compare: new local/[^ ]+/b against base local/[^ ]+/a \(mean ±rsd of 3 trials\)' \
	"one swept parameter: the compact compare, the series named once"
like "$(sed -n 2p "$D/report.txt")" '^point +base +new +change +95% interval +p +q +mark$' \
	"its columns: point base new change 95% interval p q mark"
like "$(grep -F 'time (ms) work=2' "$D/report.txt")" '^time \(ms\) work=2 ' "the point without extra=0, which every point shares"
is "$(awk 'NR > 1 && length > 130' "$D/report.txt" | grep -vc '^REGRESSION')" 0 "no row wider than 130 columns"
done_testing
