#!/usr/bin/env bash
# t606-s3-verifier: the S3 test endpoint (tests/lab/s3: s3rver behind the
# SigV4-checking proxy tests/lab/s3-verify.js) accepts what an independent
# signer (curl --aws-sigv4) signs with the right key and refuses, with
# S3's error codes, a wrong secret, an unknown access key, another region,
# a body that is not the one signed, a header changed after signing, and
# no signature at all; refused requests never reach s3rver.  Its logs
# never hold the secret.  Without node or s3rver the test skips.
#
# curl 7.88 signs the query string in the order written instead of sorted
# (AWS's canonical query string is sorted), so the queries here are
# written sorted.
# cost: 6 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

S3=$TOP/tests/lab/s3
command -v node >/dev/null || skip_all "needs node (tools/deps)"
[ -f "${FLEETMARK_LAB_CACHE:-/var/cache/fleetmark-lab}/npm/node_modules/s3rver/bin/s3rver.js" ] ||
	skip_all "needs s3rver (tools/deps)"
curl --help all 2>/dev/null | grep -q -- --aws-sigv4 || skip_all "needs curl with --aws-sigv4"
WORK=$(mktemp -d /tmp/t606.XXXXXX)
D=$WORK/s3
trap '"$S3" down -d "$D" >/dev/null 2>&1; rm -rf "$WORK"' EXIT

"$S3" up -d "$D" 2>"$WORK/up.err" || { sed 's/^/# /' "$WORK/up.err"; echo "Bail out! s3 up failed"; exit 1; }
# shellcheck disable=SC1090
. <("$S3" env -d "$D")
is "$(stat -c %a "$D/env")" 600 "the env file holding the secret is mode 0600"
E=$AWS_ENDPOINT_URL_S3/$S3_BUCKET
EMPTY=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

# s3curl KEYID SECRET REGION CURL-ARGS...: a request signed by curl; prints
# the body then the status.
s3curl() {
	local id=$1 secret=$2 region=$3
	shift 3
	curl -sS --aws-sigv4 "aws:amz:$region:s3" --user "$id:$secret" -w '\n%{http_code}' "$@"
}
status() { tail -1 <<<"$1"; }
code() { sed -n 's:.*<Code>\(.*\)</Code>.*:\1:p' <<<"$1"; }

head -c 100000 /dev/urandom >"$WORK/blob"
H=$(sha256sum "$WORK/blob" | cut -d' ' -f1)
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $H" -T "$WORK/blob" "$E/t606/blob")
is "$(status "$out")" 200 "PUT signed with the right key: 200"
check "... and s3rver stored it" cmp "$WORK/blob" "$D/data/$S3_BUCKET/t606/blob._S3rver_object"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $EMPTY" -o "$WORK/back" "$E/t606/blob")
is "$(status "$out")" 200 "GET signed with the right key: 200"
check "... the same bytes" cmp "$WORK/blob" "$WORK/back"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$E?delimiter=%2F&list-type=2&prefix=t606%2F")
is "$(status "$out")" 200 "ListObjectsV2 with a query, unsigned payload: 200"
like "$out" "<Key>t606/blob</Key>" "... listing the object"

n_before=$(grep -c 'Stored object' "$D/s3rver.log")
out=$(s3curl "$AWS_ACCESS_KEY_ID" "${AWS_SECRET_ACCESS_KEY}x" "$AWS_REGION" \
	-H "x-amz-content-sha256: $H" -T "$WORK/blob" "$E/t606/wrong")
is "$(status "$out") $(code "$out")" "403 SignatureDoesNotMatch" "a wrong secret: 403 SignatureDoesNotMatch"
out=$(s3curl "AKFMNOSUCHKEY0000000" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $EMPTY" "$E/t606/blob")
is "$(status "$out") $(code "$out")" "403 InvalidAccessKeyId" "an unknown access key: 403 InvalidAccessKeyId"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" eu-west-3 \
	-H "x-amz-content-sha256: $EMPTY" "$E/t606/blob")
is "$(status "$out") $(code "$out")" "400 AuthorizationHeaderMalformed" "another region: 400 AuthorizationHeaderMalformed"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $EMPTY" -T "$WORK/blob" "$E/t606/tampered")
is "$(status "$out") $(code "$out")" "400 XAmzContentSHA256Mismatch" \
	"a body other than the one signed: 400 XAmzContentSHA256Mismatch"
out=$(curl -sS -w '\n%{http_code}' "$E/t606/blob")
is "$(status "$out") $(code "$out")" "403 AccessDenied" "no signature: 403 AccessDenied"
# A header added after signing and claimed as signed: sign with curl, then
# replay the same Authorization with another x-amz-date, two minutes before
# the signed one (inside the 15-minute window, and never the same second
# however slowly this runs).
sent=$(curl -sS -v --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
	-H "x-amz-content-sha256: $EMPTY" -o /dev/null "$E/t606/blob" 2>&1 | tr -d '\r')
auth=$(sed -n 's/^> Authorization: //p' <<<"$sent")
signed=$(sed -n 's/^> x-amz-date: //Ip' <<<"$sent")
date=$(date -u +%Y%m%dT%H%M%SZ -d "@$(($(date -u -d "${signed:0:4}-${signed:4:2}-${signed:6:2} ${signed:9:2}:${signed:11:2}:${signed:13:2} UTC" +%s) - 120))")
out=$(curl -sS -w '\n%{http_code}' -H "Authorization: $auth" -H "x-amz-date: $date" \
	-H "x-amz-content-sha256: $EMPTY" "$E/t606/blob")
is "$(status "$out") $(code "$out")" "403 SignatureDoesNotMatch" "a signed header changed after signing: 403"
is "$(grep -c 'Stored object' "$D/s3rver.log")" "$n_before" "refused PUTs never reached s3rver"
like "$(cat "$D/proxy.log")" "PUT /$S3_BUCKET/t606/wrong -> 403 SignatureDoesNotMatch" "the proxy logs each refusal"
check_fail "the secret is in none of the logs" grep -rqF -- "$AWS_SECRET_ACCESS_KEY" "$D/proxy.log" "$D/s3rver.log"

"$S3" stop-server -d "$D"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $EMPTY" "$E/t606/blob")
is "$(status "$out") $(code "$out")" "503 ServiceUnavailable" "s3rver killed: the proxy answers 503 ServiceUnavailable"
"$S3" start-server -d "$D"
out=$(s3curl "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$AWS_REGION" \
	-H "x-amz-content-sha256: $EMPTY" -o "$WORK/back2" "$E/t606/blob")
is "$(status "$out")" 200 "restarted on the same data: 200"
check "... with the object intact" cmp "$WORK/blob" "$WORK/back2"

spids="$(cat "$D/s3rver.pid") $(cat "$D/proxy.pid")"
"$S3" down -d "$D"
left=''
for p in $spids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
is "$left" "" "s3 down stops both processes"
check_fail "... and removes its directory" test -e "$D"

done_testing
