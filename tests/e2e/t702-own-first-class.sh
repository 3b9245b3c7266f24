#!/usr/bin/env bash
# t702-own-first-class: a program's metrics are first-class.  Two runs of a
# `bench: program` whose value the test sets (100, then 130 ns) on this
# machine: compare marks the change worse; report --baseline and run
# --baseline (the nightly's check) exit 4; the csv, json, md and html
# formats and the delta table carry the metric; history shows
# its nights; bisect-run judges it (bad for 130, good for 100).
# cost: 4 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
need_tools jq
WORK=$(mktemp -d /tmp/t702.XXXXXX)
trap '[ -n "${T702_KEEP:-}" ] || rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
cd "$WORK" || exit 1

cat >own.yaml <<Y
name: own-first
repeat: 3
samples: 3
timeout: 20s
benchmarks:
  - bench: program
    name: slowprog
    command: /bin/sh
    args: ["-c", 'v=\$(cat "$WORK/value"); i=0; while [ \$i -lt {samples} ]; do echo "took: \$((v + i % 2)) us for {size}"; i=\$((i + 1)); done', "sh"]
    params:
      size: [small, big]
      cpus: "100%"
    parse:
      - match: '^took: (?P<ns>\d+) us'
        metrics: { ns: { unit: ns, direction: lower, scale: 1000 } }
regression:
  threshold: 5%
  metrics: [slowprog.ns]
Y
echo 100 >value
run_fm a run own.yaml -q --wait-lock 5m -o results --label good
is "$rc" 0 "run A (100 us a sample) exits 0"
runs=(results/*-own-first-*)
A=${runs[0]}
is "$(jq -r '.value' "$A/trials.jsonl" | sort -u | xargs)" "100000" "scale: 1000 turns the program's us into ns (median of 100000, 101000, 100000)"
is "$(jq -r '.params.cpus + " " + (.resolved.cpus | tostring)' "$A/trials.jsonl" | sort -u)" "100% $(nproc)" \
	"a parameter of N% is N percent of the host's CPUs, resolved there"
echo 130 >value
run_fm b run own.yaml -q --wait-lock 5m -o results --label bad
runs=(results/*-own-first-*)
B=${runs[1]:-}

run_fm cmp compare "$A" "$B"
like "$(grep -E '^slowprog +size=big,cpus=100% +ns ' cmp.out)" ' \+30\.0% .* worse' "compare: slowprog ns +30%, worse"
run_fm base report "$B" --baseline "$A"
is "$rc" 4 "report --baseline: a regression of a program's metric exits 4"
for f in csv json md html; do
	run_fm "f-$f" report "$A" "$B" --format "$f" --table all
	like "$(grep -c slowprog "f-$f.out")" '^[1-9]' "--format $f carries slowprog"
done
run_fm delta report "$A" "$B" --table delta
like "$(cat delta.out)" 'slowprog\.ns\[size=small,cpus=100%\]: 100000 -> 130000 -30%' "the delta table has it"
run_fm night run own.yaml -q --wait-lock 5m -o results --baseline "$A"
is "$rc" 4 "run --baseline (the nightly check): exit 4 on the program's regression"
run_fm hist history results --plan own-first --metric slowprog.ns --nights
is "$(grep -cE '^local +slowprog +size=big' hist.out)" 3 "history shows slowprog's three nights"

# bisect-run has no --wait-lock: while another run holds this machine's
# lease its answer is skip (125), so ask again for a while.
bisect() {	# NAME
	local i
	for i in $(seq 60); do
		run_fm "$1" bisect-run own.yaml -H local --metric 'slowprog.ns[size=big]' --baseline "$A" -o bisect -q
		[ "$rc" = 125 ] || return
		sleep 2
	done
}
bisect bis1
is "$rc" 1 "bisect-run: 130 us against the 100 us baseline is bad (1)"
echo 100 >value
bisect bis0
is "$rc" 0 "bisect-run: 100 us again is good (0)"
[ "$rc" = 0 ] || sed 's/^/#   /' bis0.err | head -5

done_testing
