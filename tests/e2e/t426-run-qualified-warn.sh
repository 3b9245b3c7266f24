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
# - the record in a file:// archive (ARCHIVE/qualify/HOST.json, where
#   `qualify --push` puts it): read by a run that pushes there or takes
#   its baseline from there, the newer of it and the results directory's
#   taken, the warning naming the archive when it is the archive's; a
#   FIFO or a malformed record there is a warning, the run goes on; an
#   archive that refuses connections is one warning for all the hosts;
# - "qualify" is no run id: a run directory of that name is not pushed;
#   a --push that is no archive URL is refused before anything is done.
# cost: 20 s, busy
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
# --- the record in an archive --------------------------------------------------------
A=$W/arch
mkdir -p "$A/qualify" fresh
rec() {	# DATE NIGHT_DETECTABLE
	echo "{\"date\":\"$1\",\"rows\":[$(qrow exec seconds "$2" 6 12)]}"
}
rec 2026-12-02T00:00:00Z 8.35 >"$A/qualify/local.json"
"$FLEETMARK" run judged.yaml -o fresh --push "file://$A" >out 2>err
is "$?" 0 "a run pushing to an archive with the host's record: exit 0"
like "$(cat err)" "warning: local: exec.seconds command=true,copies=1: a night detects 8.3%, .* \(qualified 2026-12-02T00:00:00Z, file://$A\)" \
	"the archive's record warns, naming the archive"
is "$(find "$A" -name trials.jsonl | wc -l)" 1 "the run was pushed beside it"

rec 2026-12-03T00:00:00Z 9.45 >res/qualify/local.json
"$FLEETMARK" run judged.yaml -o res --push "file://$A" >out 2>err
like "$(cat err)" "a night detects 9.4%, .* \(qualified 2026-12-03T00:00:00Z\)" \
	"the results directory's newer record is taken"
is "$(grep -c 'a night detects' err)" 1 "... alone"
rec 2026-12-04T00:00:00Z 10.55 >"$A/qualify/local.json"
"$FLEETMARK" run judged.yaml -o res --baseline "file://$A/latest" >out 2>err
like "$(cat err)" "a night detects 10.6%, .* \(qualified 2026-12-04T00:00:00Z, file://$A\)" \
	"the archive's newer one, found through --baseline URL/latest"

rm -f res/qualify/local.json "$A/qualify/local.json"
mkfifo "$A/qualify/local.json"
timeout 60 "$FLEETMARK" run judged.yaml -o fresh --push "file://$A" >out 2>err
is "$?" 0 "a FIFO for the record: the run goes on"
like "$(cat err)" "warning: local: its qualification does not read: .*not a regular file" \
	"... with a warning"
rm -f "$A/qualify/local.json"
echo '[1, 2]' >"$A/qualify/local.json"
"$FLEETMARK" run judged.yaml -o fresh --push "file://$A" >out 2>err
is "$?" 0 "a record that is no object: the run goes on"
like "$(cat err)" "warning: local: its qualification does not read: file://$A/qualify/local.json: not a JSON object" \
	"... with a warning naming it in the archive"

# An archive that does not answer: one warning for the run, not one a
# host (each would wait out its retries), and the run goes on.
printf 'archive:\n  tries: 2\n' >cfg.yaml
chmod 600 cfg.yaml
printf 'hosts:\n  local:\n    transport: local\n    workdir: %s\n  local2:\n    transport: local\n    workdir: %s\n' \
	"$W/wd1" "$W/wd2" >two.yaml
FLEETMARK_CONFIG=$W/cfg.yaml "$FLEETMARK" run judged.yaml -f two.yaml -o down \
	--push http://127.0.0.1:1/fm >out 2>err
is "$?" 1 "an archive that refuses connections: the run runs, its push fails (exit 1)"
is "$(grep -c "qualifications in the archive are not read" err)" 1 \
	"... one warning that the archive's qualifications are not read, for two hosts"
is "$(jq -r .host down/*/trials.jsonl | sort -u | xargs)" "local local2" "... and both hosts ran"

R=$(find fresh -mindepth 1 -maxdepth 1 -type d | head -1)
cp -r "$R" qualify
"$FLEETMARK" push qualify "file://$W/arch2" >out 2>err
is "$?" 2 "a run directory named qualify: not pushed (exit 2)"
like "$(cat err)" "'qualify' is not a valid run id \(an archive keeps the hosts' qualifications under that name\)" \
	"... saying why"
check "nothing written" test ! -e "$W/arch2"
for cmd in "run judged.yaml" "qualify judged.yaml -H local -A true"; do
	# shellcheck disable=SC2086
	"$FLEETMARK" $cmd -o nothing --push 'file:///x?y' >out 2>err
	is "$?" 2 "${cmd%% *} --push with a query: exit 2"
	like "$(cat err)" "--push: " "... the option named"
	check "... nothing made" test ! -e nothing
done
done_testing
