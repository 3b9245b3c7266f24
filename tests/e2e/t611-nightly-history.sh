#!/usr/bin/env bash
# t611-nightly-history: `fleetmark run PLAN --baseline history` on this
# machine (local transport, no lab), against the plan's earlier nights in
# the results directory.  The first night has no history: a note, exit 0.
# Nights at the same speed are judged against the nights of the current
# segment (verdict.json: baseline "history", nights, q).  A night three
# times slower fails and is measured again in the same run (repetitions
# after the plan's repeat in trials.jsonl): the change holds, exit 4, a
# REGRESSION line that says it was confirmed, the verdict in report.txt,
# verdict.md, verdict.json and a line in report.html.  A night slow only
# for its first trials is measured again and vanishes: exit 0, a VANISHED
# line.  With regression.confirm: 0 nothing is measured again.  --commit
# (and FLEETMARK_COMMIT) is recorded in run.json, and a regression between
# two nights with commits prints the git bisect lines, and so does
# `fleetmark history` for a worse change point; a --commit that is no
# commit id is bad usage.
# cost: 116 s, timed
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_tools jq
WORK=$(mktemp -d /tmp/t611.XXXXXX)
KEEP=${KEEP:-}
trap '[ -n "$KEEP" ] || rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
cd "$WORK" || exit 1

# The workload's two speeds, in seconds.  What a loaded machine adds to a
# call (its process waiting for a CPU: tenths of a second at a load of 24
# on 2 cores) differs from night to night, and the nights' spread must stay
# well under the threshold (50%) for a night to be judged at all ("cannot
# judge": noisy); so FAST is long next to that, and SLOW three times it.
# (With nights of 0.05 s, two nights of four slowed by 0.1 s a call made
# the confirm: 0 case "cannot judge".)
FAST=0.2
SLOW=0.6
# work SLOW FAST N: the workload sleeps SLOW for its first N calls, then FAST
# (each trial calls it once to warm up and once per sample: 4 times here).
# It starts no process but the sleep.
work() {
	rm -f "$WORK/count"
	cat >"$WORK/work.sh" <<EOF
read n 2>/dev/null <"$WORK/count" || n=0; n=\$((n + 1)); echo \$n >"$WORK/count"
if [ \$n -le $3 ]; then sleep $1; else sleep $2; fi
EOF
}
plan() {
	cat >"$1" <<EOF
name: t611
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "sh $WORK/work.sh"
      copies: 1
regression:
  threshold: 50%
  metrics: [exec.seconds]
$2
EOF
}
plan plan.yaml ""
# night NAME [ARGS...]: one nightly run into results/; its exit status in $rc
# and its run directory in $D.
night() {
	local name=$1
	shift
	"$FLEETMARK" run plan.yaml -o results --baseline history -q --wait-lock 10m "$@" >"$name.out" 2>"$name.err"
	rc=$?
	D=$(sed -n 's/^run directory: //p' "$name.out")
}

work $FAST $FAST 0
night n1 --commit 1111aaaa
is "$rc" 0 "the first night exits 0"
like "$(head -1 n1.out)" "^baseline: none: .*nothing to compare with \(a first night\?\)" "... with a note: no history yet"
is "$(jq -r .commit "$D/run.json")" "1111aaaa" "--commit is recorded in run.json"

night n2
is "$rc" 0 "a second night at the same speed exits 0"
is "$(jq -r '.rows[] | select(.metric == "seconds") | .baseline' "$D/verdict.json")" "last night" \
	"with one earlier night: judged against the last night's trials (the fallback)"
like "$(cat n2.out)" "or without one Welch against the last night at 100% \\(the change itself at least that\\)" \
	"... at twice the threshold, as the header says"
night n3
night n4
is "$rc" 0 "a fourth night exits 0"
like "$(jq -r '.rows[] | select(.metric == "seconds") | [.baseline, (.good | length), .verdict] | join(" ")' "$D/verdict.json")" \
	'^history 3 (good|not significant|noisy)$' "three earlier nights: tonight against their means, no regression"
like "$(jq -r '.rows[] | select(.metric == "seconds") | .q' "$D/verdict.json")" '^[0-9.e-]+$' "... with a q-value"
is "$(jq -r '[.threshold, .nights, .fdr, .confirm] | map(tostring) | join(" ")' "$D/verdict.json")" "50 7 0.05 1" \
	"verdict.json: the plan's threshold and the defaults of regression.nights, fdr, confirm"
FLEETMARK_COMMIT=2222bbbb night n5
is "$rc" 0 "a fifth night exits 0"
is "$(jq -r .commit "$D/run.json")" "2222bbbb" "FLEETMARK_COMMIT is recorded in run.json"
is "$(jq -r '.rows[] | select(.metric == "seconds") | (.good | length)' "$D/verdict.json")" "4" \
	"four nights in the segment"
is "$(jq -s 'map(select(.rep > 3)) | length' "$D/trials.jsonl")" "0" "nothing failed: nothing measured again"

# a night three times slower, on every trial: confirmed
work $SLOW $SLOW 0
night n6 --commit 3333cccc
is "$rc" 4 "a night three times slower exits 4"
like "$(grep '^REGRESSION: exec.seconds' n6.out)" "^REGRESSION: exec.seconds\[command=sh .*,copies=1\] \+[0-9.]+% \(p=[^,]+, q=[^)]+\) local: .* s \(against the nights: .*\); measured again in the same boot: .* over 3 trials \(p=[^)]*\): confirmed$" \
	"a REGRESSION line: change, p, q, the nights, and the confirmation round"
is "$(jq -rs 'map(select(.metric == "seconds")) | map(.rep) | sort | map(tostring) | join(" ")' "$D/trials.jsonl")" "1 2 3 4 5 6" \
	"the confirmation round ran in the same run: repetitions 4 to 6"
is "$(jq -r '.rows[] | select(.metric == "seconds") | [.verdict, (.confirmation.held | tostring), (.confirmation.values | length | tostring)] | join(" ")' "$D/verdict.json")" \
	"confirmed true 3" "verdict.json: confirmed, held, its three values"
is "$(jq -r '.rows[] | select(.metric == "runs_per_hour") | .verdict' "$D/verdict.json")" "worse, not counted" \
	"runs_per_hour is worse, but not one of regression.metrics"
like "$(jq -r '.rows[] | select(.metric == "seconds") | [.window_nights, .window_p, .by_window] | map(tostring) | join(" ")' "$D/verdict.json")" \
	'^[23] [0-9.e-]+ false$' "five nights: the window rule applied too (the step held it: not by the window)"
like "$(cat n6.out)" "and the last night or two with tonight against the nights before them" \
	"... as the header says"
check "report.txt has the verdict" grep -q '^REGRESSION: exec.seconds.*confirmed$' "$D/report.txt"
check "verdict.md has it as a table" grep -Eq '^\| exec \| command=sh .* \| seconds \| s \| local \| nights \| [0-9]+ \|' "$D/verdict.md"
like "$(grep -o '<p class="verdict">[^<]*' "$D/report.html")" "1 regression \(1 confirmed\), 0 vanished" "report.html: a line of the verdict"
like "$(grep -A2 '^To find the commit' n6.out)" "git bisect start 3333cccc 2222bbbb" \
	"both nights carry commits: git bisect start BAD GOOD"
like "$(grep 'git bisect run' n6.out)" "^  git bisect run fleetmark bisect-run plan.yaml -H local --metric 'exec.seconds\[command=sh .*,copies=1\]' --baseline results/[0-9-]+t611-[0-9a-f]{4} --threshold 50%$" \
	"... and git bisect run fleetmark bisect-run with the last good night as the baseline"
like "$(jq -r '.rows[] | select(.metric == "seconds") | .bisect[1]' "$D/verdict.json")" "^git bisect run fleetmark bisect-run " \
	"verdict.json carries the bisect lines too"

# slow for the night's own trials only (3 x 4 calls), then fast: vanishes
rm -rf results
work $FAST $FAST 0
for i in 1 2 3 4; do night a$i; done
work $SLOW $FAST 12
night v
is "$rc" 0 "a change that does not hold when measured again exits 0"
like "$(grep '^VANISHED: exec.seconds' v.out)" "measured again in the same boot: .* over 3 trials \(p=[^)]*\): gone$" "a VANISHED line"
is "$(jq -r '.rows[] | select(.metric == "seconds") | .verdict' "$D/verdict.json")" "vanished" "verdict.json: vanished"
like "$(grep -o '<p class="verdict">[^<]*' "$D/report.html")" "0 regressions \(0 confirmed\), 1 vanished" "report.html says so"
check_fail "no bisect lines without commits" grep -q 'git bisect' v.out

# regression.confirm: 0 - nothing measured again
rm -rf results
plan plan.yaml "  confirm: 0"
work $FAST $FAST 0
for i in 1 2 3 4; do night c$i; done
work $SLOW $SLOW 0
night c5
is "$rc" 4 "confirm: 0: a slow night exits 4"
like "$(grep '^REGRESSION: exec.seconds' c5.out)" "not measured again \(regression.confirm: 0\)$" "... and says it was not measured again"
is "$(jq -s 'map(select(.rep > 3)) | length' "$D/trials.jsonl")" "0" "no confirmation trials"

# history prints the bisect lines of a worse change between two nights with commits
plan plan.yaml ""
work $FAST $FAST 0
for i in 1 2 3 4; do "$FLEETMARK" run plan.yaml -o hr --commit "aaaa000$i" -q --wait-lock 10m >/dev/null 2>&1; done
work $SLOW $SLOW 0
for i in 5 6 7 8; do "$FLEETMARK" run plan.yaml -o hr --commit "bbbb000$i" -q --wait-lock 10m >/dev/null 2>&1; done
"$FLEETMARK" history hr --metric exec.seconds >h.out 2>h.err
is "$?" 0 "history of eight nights with commits exits 0"
is "$(grep -c 'git bisect start bbbb0005 aaaa0004' h.out)" 1 \
	"history: git bisect start BAD GOOD of the worse change (its night and the night before)"
like "$(grep 'git bisect run' h.out)" "^    git bisect run fleetmark bisect-run plan.yaml -H local --metric 'exec.seconds\[command=sh .*,copies=1\]' --baseline hr/[0-9-]+t611-[0-9a-f]{4} --threshold 50%$" \
	"... and the git bisect run line"

"$FLEETMARK" run plan.yaml -o results --commit 'HEAD~1' >bad.out 2>bad.err
is "$?" 2 "--commit that is not a commit id: exit 2"
like "$(cat bad.err)" "--commit: expected a commit id \(4 to 64 hex digits\), not 'HEAD~1'" "... with a message"

done_testing
