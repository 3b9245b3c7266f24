#!/usr/bin/env bash
# t426-run-qualified-warn: a run that is judged warns when the host's
# qualification (`fleetmark qualify`'s record, DIR/qualify/HOST.json) says
# a night of the plan cannot see its threshold.  No lab: the embedded
# fleet (this machine, host "local"), an exec benchmark of `true`.
#
# - a plan with `regression: threshold: 5%` and a record whose
#   night_detectable is 8.35% for exec.seconds: one warning naming the
#   host, the row, the 8.4%, the threshold and the boots an ab would take;
#   the run itself goes on (exit 0);
# - a row not counted by the plan's regression.metrics, or one of a
#   benchmark the plan does not run, or one the night sees, says nothing;
#   counted, a row that no number of nights (nor of boots) sees is said
#   to need more hosts;
# - a plan without `regression:` (a run nothing judges): nothing;
# - a record that does not read: a warning of its own, the run goes on.
# cost: 3 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
mkdir -p res/qualify

cat >judged.yaml <<'P'
name: t426
repeat: 1
samples: 1
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "true"
      copies: 1
regression:
  threshold: 5%
  metrics: [exec.seconds]
P
grep -v -e '^regression:' -e '^  threshold:' -e '^  metrics:' judged.yaml >plain.yaml

qrow() {
	printf '{"bench":"%s","metric":"%s","params":"command=true,copies=1","night_detectable":%s,"boots_needed":%s,"nights_needed":%s}' \
		"$1" "$2" "$3" "$4" "$5"
}
echo "{\"date\":\"2026-12-01T00:00:00Z\",\"rows\":[$(qrow exec seconds 8.35 6 12),$(qrow exec runs_per_hour 40 null null),$(qrow lat_syscall latency 90 null null),$(qrow exec seconds 3.1 2 2)]}" \
	>res/qualify/local.json

"$FLEETMARK" run judged.yaml -o res >out 2>err
is "$?" 0 "a judged run on a qualified host: exit 0, it runs"
like "$(cat err)" "warning: local: exec.seconds command=true,copies=1: a night detects 8.3%, not the threshold 5%: its verdicts will say noisy or cannot judge; 12 nights before it \(regression.nights\) would, or an ab of 6 boots a side \(qualified 2026-12-01T00:00:00Z\)" \
	"the row a night cannot see at 5%: warned, with the nights or the ab that would"
is "$(grep -c 'a night detects' err)" 1 "... and only that row (not the uncounted, the other benchmark's, nor the one a night sees)"
is "$(find res -name trials.jsonl | wc -l)" 1 "the run was made"

# A record whose row no number of nights sees, for a plan that counts it.
sed 's/\[exec.seconds\]/[exec.seconds, exec.runs_per_hour]/' judged.yaml >both.yaml
"$FLEETMARK" run both.yaml -o res >out 2>err
like "$(cat err)" "exec.runs_per_hour command=true,copies=1: a night detects 40.0%, not the threshold 5%: its verdicts will say noisy or cannot judge; no number of nights would; more than 1000 boots a side of an ab would be needed: more hosts, or a larger threshold" \
	"a row nothing short of more hosts sees: said so"

"$FLEETMARK" run plain.yaml -o res >out 2>err
is "$?" 0 "a run nothing judges: exit 0"
check_fail "... and no warning" grep -q "a night detects" err

echo '{"rows": [' >res/qualify/local.json
"$FLEETMARK" run judged.yaml -o res >out 2>err
is "$?" 0 "a record that does not read: the run goes on"
like "$(cat err)" "warning: local: its qualification does not read: res/qualify/local.json:" \
	"... with a warning naming the file"
done_testing
