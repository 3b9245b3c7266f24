#!/usr/bin/env bash
# t520-report-hostile-host: a hostile archive run names a host
# "../../../..$WORK/victim/x" (in trials.jsonl, run.json hosts and the
# fleet) to make the HTML report read $WORK/victim/x.json, a stand-in for
# a credentials file.  The secret in it appears in no output of `report
# -F html URL/RUNID`, `compare -F html`, or the nightly shape `run PLAN
# --push URL --baseline latest` (its pushed report.html included); the
# host is warned about and left out.  A file:// archive, and an s3://
# one (s3rver behind tests/lab/s3, when node and s3rver are installed);
# runs come from `fleetmark run` of a tiny plan on the default (local)
# fleet.  About 2 s, 7 s with S3 (starting and stopping the server).
# cost: 8 s, busy
# shellcheck disable=SC2317 # functions called through check
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
WORK=$(mktemp -d /tmp/t520.XXXXXX)
S3=$TOP/tests/lab/s3
trap '[ ! -d "$WORK/s3" ] || "$S3" down -d "$WORK/s3" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
export XDG_CONFIG_HOME=$WORK/cfg XDG_CACHE_HOME=$WORK/cache NO_COLOR=1 \
	FLEETMARK_LEASE_FILE=$WORK/lease
unset FLEETMARK_CONFIG AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_REGION \
	AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
SECRET=LEAKED-REGISTRY-TOKEN-c2VjcmV0
mkdir victim
printf '{"auths":{"registry.example.org":{"auth":"%s"}}}\n' "$SECRET" >victim/x.json
EVIL=../../../../../../../../../../../../../../../../../..$WORK/victim/x
plan_syscall plan.yaml tiny 2 3

"$FLEETMARK" -q run plan.yaml -o res >run0.out 2>&1 ||
	{ sed 's/^/# /' run0.out; echo "Bail out! fleetmark run failed"; exit 1; }
RUN=$(run_dir res)
ID=${RUN##*/}
# The hostile run: the same trials again under the evil host, in every
# place a run names its hosts.
jq -c --arg h "$EVIL" '.host = $h' "$RUN/trials.jsonl" >evil.jsonl
cat evil.jsonl >>"$RUN/trials.jsonl"
jq --arg h "$EVIL" '.hosts[$h] = .hosts.local | .fleet.hosts += [(.fleet.hosts[0] | .name = $h)]' \
	"$RUN/run.json" >run.json.new && mv run.json.new "$RUN/run.json"
run_fm push push "$RUN" "file://$WORK/arch"
is "$rc" 0 "the hostile run is pushed to a file:// archive (its sums verify)"
mkdir hostile && cp -r "$RUN" hostile/
rm -rf res

# leaks FILES...: the secret in none of them
leaks() { ! grep -l "$SECRET" "$@"; }

run_fm rep report -F html "file://$WORK/arch/$ID" -o page.html
is "$rc" 0 "report -F html URL/RUNID: exit 0"
check "... the page has the host table" grep -q 'class="env"' page.html
check "... the secret is nowhere in it or in what was printed" leaks page.html rep.out rep.err
like "$(cat rep.err)" "not a host name" "... the line with the bad host is warned about"

run_fm cmp compare "file://$WORK/arch/$ID" "file://$WORK/arch/$ID" -F html -o cmp.html
is "$rc" 0 "compare URL/RUNID URL/RUNID -F html: exit 0"
check "... the page has the host table" grep -q 'class="env"' cmp.html
check "... the secret is nowhere in it or in what was printed" leaks cmp.html cmp.out cmp.err

run_fm night run plan.yaml -o res2 --push "file://$WORK/arch" --baseline latest
check "run --push --baseline latest: it ran (exit 0 or 3/4 for a verdict)" test "$rc" -le 4
NEW=$(run_dir res2)
check "... the pushed report.html exists" test -s "$WORK/arch/${NEW##*/}/report.html"
check "... the secret is in no file of the run or the archive, nor in what was printed" \
	leaks -r "$WORK/arch" res2 night.out night.err

# --- the same from an s3:// archive ---------------------------------------------
if ! command -v node >/dev/null ||
	[ ! -f "${FLEETMARK_LAB_CACHE:-/var/cache/fleetmark-lab}/npm/node_modules/s3rver/bin/s3rver.js" ]; then
	skip "s3:// archive" "needs node and s3rver (tools/deps)"
elif ! "$S3" up -d "$WORK/s3" >s3up.out 2>&1; then
	sed 's/^/# /' s3up.out
	echo "not ok - s3 up failed"
else
	# shellcheck disable=SC1091
	. "$WORK/s3/env"
	URL=s3://$S3_BUCKET/t520
	run_fm s3push push "hostile/$ID" "$URL"
	is "$rc" 0 "the hostile run is pushed to an s3:// archive"
	run_fm s3rep report -F html "$URL/$ID" -o page-s3.html
	is "$rc" 0 "report -F html s3://.../RUNID: exit 0"
	check "... the secret is nowhere in it or in what was printed" leaks page-s3.html s3rep.out s3rep.err
	run_fm s3night run plan.yaml -o res3 --push "$URL" --baseline latest
	check "run --push s3://... --baseline latest: it ran" test "$rc" -le 4
	NEW=$(run_dir res3)
	check "... the secret is in no file of the run or the bucket, nor in what was printed" \
		leaks -r "$S3_DATA" res3 s3night.out s3night.err
	check "... whose report.html was pushed" \
		test -s "$S3_DATA/$S3_BUCKET/t520/${NEW##*/}/report.html._S3rver_object"
fi
check "no file outside the runs was written" test "$(find victim -type f | wc -l)" = 1

done_testing
