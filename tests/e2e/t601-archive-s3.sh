#!/usr/bin/env bash
# t601-archive-s3: s3:// archives against a real S3 protocol server
# (s3rver) behind the SigV4-checking proxy (tests/lab/s3): push, ls, pull
# and report round trips with every sum verified, a second push harmless;
# a wrong secret fails at once with a clear error (exit 1, "signature
# rejected", 403) that names the access key id and no secret; keys taken
# from the user config file, which is refused when mode 0644; s3rver
# killed (by pid) in the middle of a push leaves no listed run, and the
# next push completes it; the secret is nowhere in the run directory, the
# pulled directory, the server's files, the logs or anything fleetmark
# printed, even at -vvv.  Run directories come from `fleetmark run` on
# the default (local) fleet.  Needs node and s3rver (tools/deps).
# cost: 26 s, waiting
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

S3=$TOP/tests/lab/s3
need_command push
command -v node >/dev/null || skip_all "needs node (tools/deps)"
[ -f "${FLEETMARK_LAB_CACHE:-/var/cache/fleetmark-lab}/npm/node_modules/s3rver/bin/s3rver.js" ] ||
	skip_all "needs s3rver (tools/deps)"
WORK=$(mktemp -d /tmp/t601.XXXXXX)
trap '"$S3" down -d "$WORK/s3" >/dev/null 2>&1; "$S3" down -d "$WORK/s3slow" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_REGION AWS_DEFAULT_REGION \
	AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
export XDG_CONFIG_HOME=$WORK/xdg FLEETMARK_CONFIG=$WORK/no-config.yaml XDG_CACHE_HOME=$WORK/cache

# every ListObjectsV2 answer in pages of 2 keys: listings follow continuation tokens
"$S3" up -d "$WORK/s3" --max-keys 2 2>"$WORK/up.err" || { sed 's/^/# /' "$WORK/up.err"; echo "Bail out! s3 up failed"; exit 1; }
ENVFILE=$WORK/s3/env
# shellcheck disable=SC1090
. "$ENVFILE"
SECRET=$AWS_SECRET_ACCESS_KEY
URL=s3://$S3_BUCKET/t601/nightly
puts() { grep -c '^PUT .* -> 200$' "$WORK/s3/proxy.log"; }

"$FLEETMARK" run plans/smoke.yaml -o "$WORK/runs" >"$WORK/run1.out" 2>&1 || { echo "Bail out! fleetmark run failed"; exit 1; }
R1=$(run_dir "$WORK/runs")
ID1=${R1##*/}
nfiles=$(find "$R1" -type f | wc -l)

# --- round trip --------------------------------------------------------------------

"$FLEETMARK" push "$R1" "$URL" >"$WORK/push1.out" 2>"$WORK/push1.err"
is "$?" 0 "push $ID1 to $URL"
O=$S3_DATA/$S3_BUCKET/t601/nightly/$ID1
check "... the MANIFEST is in the bucket" test -s "$O/MANIFEST._S3rver_object"
is "$(grep '^PUT ' "$WORK/s3/proxy.log" | tail -1 | cut -d' ' -f2)" "/$S3_BUCKET/t601/nightly/$ID1/MANIFEST" \
	"... and was the last object sent"
is "$(puts)" "$((nfiles + 1))" "... $nfiles files and the MANIFEST, each PUT once"
before=$(puts)
"$FLEETMARK" push "$R1" "$URL" >"$WORK/push2.out" 2>"$WORK/push2.err"
is "$? $(puts)" "0 $before" "pushing it again: exit 0, nothing sent again"
"$FLEETMARK" ls "$URL" >"$WORK/ls1.out" 2>"$WORK/ls1.err"
is "$? $(cat "$WORK/ls1.out")" "0 $ID1" "ls lists the run"
mkdir -p "$WORK/more"
for id in 20011129-000000-smoke-0001 20011201-000000-smoke-0002; do
	cp -r "$R1" "$WORK/more/$id"
	"$FLEETMARK" push "$WORK/more/$id" "s3://$S3_BUCKET/t601/paged" >/dev/null 2>&1
	"$FLEETMARK" push "$R1" "s3://$S3_BUCKET/t601/paged" >/dev/null 2>&1
done
"$FLEETMARK" ls "s3://$S3_BUCKET/t601/paged" >"$WORK/ls3.out" 2>"$WORK/ls3.err"
is "$? $(xargs <"$WORK/ls3.out")" "0 20011129-000000-smoke-0001 20011201-000000-smoke-0002 $ID1" \
	"three runs: ls lists them oldest first (two from 2001, then the one made now)"
like "$(grep -c 'continuation-token=.* -> 200$' "$WORK/s3/proxy.log")" '^[1-9]' \
	"... following continuation tokens through pages of 2 keys"
# names with characters that are escaped in URLs and in the signature alike
P=$WORK/more/20011130-000000-a+b-x
cp -r "$R1" "$P"
echo "odd name" >"$P/logs/a+b=c@d,e.log"
"$FLEETMARK" push "$P" "s3://$S3_BUCKET/t601/odd" >/dev/null 2>"$WORK/odd.err" &&
	"$FLEETMARK" pull "s3://$S3_BUCKET/t601/odd/${P##*/}" "$WORK/pulled-odd" >/dev/null 2>>"$WORK/odd.err"
is "$? $(cat "$WORK/pulled-odd/logs/a+b=c@d,e.log" 2>&1)" "0 odd name" "a run id with '+' and a file named a+b=c@d,e.log: pushed and pulled"
# virtual-hosted addressing (BUCKET.s3.localhost) by the config file's path_style: no
printf 's3:\n  path_style: no\n' >"$WORK/vhost.yaml"
chmod 600 "$WORK/vhost.yaml"
FLEETMARK_CONFIG=$WORK/vhost.yaml AWS_ENDPOINT_URL_S3=$S3_VHOST_ENDPOINT \
	"$FLEETMARK" -v push "$R1" "s3://$S3_BUCKET/t601/vhost" >/dev/null 2>"$WORK/vhost.err"
is "$? $(grep -c "^PUT /t601/vhost/$ID1/MANIFEST -> 200" "$WORK/s3/proxy.log")" "0 1" \
	"path_style: no: push with virtual-hosted requests (Host $S3_BUCKET.s3.localhost)"
like "$(cat "$WORK/vhost.err")" "virtual-hosted" "... as -v says"
"$FLEETMARK" ls "s3://$S3_BUCKET/t601/vhost" >"$WORK/vhost-ls.out" 2>&1
is "$(cat "$WORK/vhost-ls.out")" "$ID1" "... into the same bucket that path-style requests list"
# a run pushed again with different contents replaces the old copy
M=$WORK/more/20011129-000000-smoke-0001
echo "changed after the first push" >>"$M/report.txt"
"$FLEETMARK" push "$M" "s3://$S3_BUCKET/t601/paged" >/dev/null 2>"$WORK/repush.err"
is "$? $(grep -c "^DELETE /$S3_BUCKET/t601/paged/${M##*/}/MANIFEST -> 204" "$WORK/s3/proxy.log")" "0 1" \
	"a changed run pushed again: exit 0, the old MANIFEST deleted first"
"$FLEETMARK" pull "s3://$S3_BUCKET/t601/paged/${M##*/}" "$WORK/pulled-m" >/dev/null 2>&1
check "... and the pull brings the new contents" diff -r -x MANIFEST "$M" "$WORK/pulled-m"
TOKEN=FQoGZXIvYXdzE-t601-$RANDOM$RANDOM
AWS_SESSION_TOKEN=$TOKEN "$FLEETMARK" -vvv ls "$URL" >"$WORK/token.out" 2>"$WORK/token.err"
is "$? $(cat "$WORK/token.out")" "0 $ID1" "temporary keys (AWS_SESSION_TOKEN): signed and accepted"
like "$(cat "$WORK/token.err")" "x-amz-date;x-amz-security-token" "... the token among the signed headers"
check_fail "... and never printed" grep -qF "$TOKEN" "$WORK/token.err" "$WORK/token.out"
"$FLEETMARK" pull "$URL/$ID1" "$WORK/pulled" >"$WORK/pull.out" 2>"$WORK/pull.err"
is "$?" 0 "pull $URL/$ID1"
check "... every file byte for byte" diff -r -x MANIFEST "$R1" "$WORK/pulled"
(cd "$WORK/pulled" && awk 'NF == 3 && length($1) == 64 {print $1 "  " $3}' MANIFEST | sha256sum -c --quiet) >&2
is "$? $(grep -cE '^[0-9a-f]{64} ' "$WORK/pulled/MANIFEST")" "0 $nfiles" "... and its MANIFEST's $nfiles sums check out with sha256sum"
# a stored object altered behind the archive's back: pull must refuse it
cp "$O/trials.jsonl._S3rver_object" "$WORK/trials.keep"
printf 'x' >>"$O/trials.jsonl._S3rver_object"
"$FLEETMARK" pull "$URL/$ID1" "$WORK/pulled-bad" >/dev/null 2>"$WORK/pull-bad.err"
rc=$?
[ "$rc" -ne 0 ] && ! test -e "$WORK/pulled-bad"
tap_result $? "an object altered in the store: pull fails (exit $rc) and leaves nothing"
like "$(cat "$WORK/pull-bad.err")" "trials\.jsonl" "... naming the file"
cp "$WORK/trials.keep" "$O/trials.jsonl._S3rver_object"
"$FLEETMARK" report "$R1" >"$WORK/report-orig.txt" 2>&1
"$FLEETMARK" report "$WORK/pulled" >"$WORK/report-pulled.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ -s "$WORK/report-pulled.txt" ] && cmp -s "$WORK/report-orig.txt" "$WORK/report-pulled.txt"
tap_result $? "report of the pulled run: the same as of the original"
if "$FLEETMARK" report "$URL/$ID1" >"$WORK/report-url.txt" 2>"$WORK/report-url.err"; then
	check "report straight from $URL/$ID1: the same" cmp "$WORK/report-orig.txt" "$WORK/report-url.txt"
else
	skip "report straight from the archive URL" "report does not take archive URLs yet: $(head -1 "$WORK/report-url.err")"
fi

# --- a wrong secret ----------------------------------------------------------------------

WRONG=wrong${SECRET:5}
n=$(wc -l <"$WORK/s3/proxy.log")
t0=$(date +%s%N)
AWS_SECRET_ACCESS_KEY=$WRONG "$FLEETMARK" push "$R1" "s3://$S3_BUCKET/t601/other" >"$WORK/wrong.out" 2>"$WORK/wrong.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc" 1 "a wrong secret: push exits 1"
like "$(cat "$WORK/wrong.err")" "signature rejected by the server \(HTTP 403 SignatureDoesNotMatch\) for access key id $AWS_ACCESS_KEY_ID from the environment" \
	"... saying the signature was rejected (403), for which access key id"
check_fail "... and printing neither the wrong secret nor the right one" grep -qF -e "$WRONG" -e "$SECRET" "$WORK/wrong.err" "$WORK/wrong.out"
reqs=$(tail -n +"$((n + 1))" "$WORK/s3/proxy.log" | grep -E '^[A-Z]+ /')
is "$(grep -c -- '-> 403 SignatureDoesNotMatch' <<<"$reqs") $(grep -vc -- '-> 403' <<<"$reqs")" \
	"1 0" "... after one refused request, not retried (${ms} ms)"
AWS_SECRET_ACCESS_KEY=$WRONG "$FLEETMARK" ls "$URL" >"$WORK/wrong-ls.out" 2>"$WORK/wrong-ls.err"
is "$? $(wc -c <"$WORK/wrong-ls.out")" "1 0" "ls with a wrong secret: exit 1, nothing listed"

# --- keys from the config file -----------------------------------------------------------

mkdir -p "$XDG_CONFIG_HOME/fleetmark"
CONF=$XDG_CONFIG_HOME/fleetmark/config.yaml
cat >"$CONF" <<EOF
s3:
  endpoint: $AWS_ENDPOINT_URL_S3
  region: $AWS_REGION
  access_key_id: $AWS_ACCESS_KEY_ID
  secret_access_key: "$SECRET"
  path_style: yes
EOF
chmod 600 "$CONF"
unset FLEETMARK_CONFIG AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_ENDPOINT_URL_S3
"$FLEETMARK" ls "$URL" >"$WORK/conf-ls.out" 2>"$WORK/conf-ls.err"
is "$? $(cat "$WORK/conf-ls.out")" "0 $ID1" "keys, endpoint and region from \$XDG_CONFIG_HOME/fleetmark/config.yaml (mode 0600): ls works"
sed -i "s|secret_access_key: .*|secret_access_key: \"$WRONG\"|" "$CONF"
"$FLEETMARK" ls "$URL" >/dev/null 2>"$WORK/conf-wrong.err"
rc=$?
like "$rc $(cat "$WORK/conf-wrong.err")" "^1 .*signature rejected.* from $CONF" "a wrong secret in the config file: exit 1, the file named"
sed -i "s|secret_access_key: .*|secret_access_key: \"$SECRET\"|" "$CONF"
chmod 644 "$CONF"
n=$(wc -l <"$WORK/s3/proxy.log")
"$FLEETMARK" ls "$URL" >"$WORK/conf644.out" 2>"$WORK/conf644.err"
rc=$?
[ "$rc" -ne 0 ] && [ ! -s "$WORK/conf644.out" ]
tap_result $? "the config file with mode 0644: refused (exit $rc)"
like "$(cat "$WORK/conf644.err")" "config\.yaml: permissions 0644 are too open" "... saying why"
is "$(wc -l <"$WORK/s3/proxy.log")" "$n" "... before any request"
check_fail "... without printing the secret" grep -qF "$SECRET" "$WORK/conf644.err"
rm -f "$CONF"
# shellcheck disable=SC1090
. "$ENVFILE"
export FLEETMARK_CONFIG=$WORK/no-config.yaml

# --- s3rver killed in the middle of a push -------------------------------------------------

"$S3" up -d "$WORK/s3slow" --delay-ms 300 2>"$WORK/up2.err" || { sed 's/^/# /' "$WORK/up2.err"; echo "Bail out! s3 up failed"; exit 1; }
SLOW=$(sed -n 's/^export AWS_ENDPOINT_URL_S3=//p' "$WORK/s3slow/env")
SLOWSECRET=$(sed -n 's/^export AWS_SECRET_ACCESS_KEY=//p' "$WORK/s3slow/env")
# the slow endpoint's variables, for `env`: it execs, so $! of `env ... CMD &` is CMD's pid
SLOWVARS=("AWS_ENDPOINT_URL_S3=$SLOW" "AWS_SECRET_ACCESS_KEY=$SLOWSECRET"
	"AWS_ACCESS_KEY_ID=$(sed -n 's/^export AWS_ACCESS_KEY_ID=//p' "$WORK/s3slow/env")")
printf 'archive:\n  tries: 2\n  max_time: 5s\n' >"$WORK/tries.yaml"
chmod 600 "$WORK/tries.yaml"
FLEETMARK_CONFIG=$WORK/tries.yaml env "${SLOWVARS[@]}" "$FLEETMARK" push "$R1" "s3://$S3_BUCKET/t601/k" \
	>"$WORK/kill.out" 2>"$WORK/kill.err" &
pid=$!
for _ in $(seq 100); do
	[ "$(grep -c '^PUT .* -> 200$' "$WORK/s3slow/proxy.log")" -ge 2 ] && break
	sleep 0.05
done
stored=$(grep -c '^PUT .* -> 200$' "$WORK/s3slow/proxy.log")
"$S3" stop-server -d "$WORK/s3slow"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && [ "$stored" -ge 2 ] && [ "$stored" -lt "$nfiles" ]
tap_result $? "s3rver killed (by pid) after $stored of $((nfiles + 1)) objects: push fails (exit $rc)"
like "$(cat "$WORK/kill.err")" "503 ServiceUnavailable|gave up after 2 tries" "... after its retries, saying why"
"$S3" start-server -d "$WORK/s3slow"
K=$WORK/s3slow/data/$S3_BUCKET/t601/k/$ID1
[ -n "$(find "$K" -name '*._S3rver_object' 2>/dev/null | head -1)" ] && [ ! -e "$K/MANIFEST._S3rver_object" ]
tap_result $? "... leaving some objects of the run in the bucket, but no MANIFEST"
env "${SLOWVARS[@]}" "$FLEETMARK" ls "s3://$S3_BUCKET/t601/k" >"$WORK/kill-ls.out" 2>"$WORK/kill-ls.err"
is "$? $(wc -c <"$WORK/kill-ls.out")" "0 0" "... and ls lists no run there"
env "${SLOWVARS[@]}" "$FLEETMARK" push "$R1" "s3://$S3_BUCKET/t601/k" >"$WORK/kill2.out" 2>"$WORK/kill2.err"
is "$?" 0 "the next push completes it"
env "${SLOWVARS[@]}" "$FLEETMARK" ls "s3://$S3_BUCKET/t601/k" >"$WORK/kill-ls2.out" 2>&1
is "$(cat "$WORK/kill-ls2.out")" "$ID1" "... ls lists it"
env "${SLOWVARS[@]}" "$FLEETMARK" pull "s3://$S3_BUCKET/t601/k/$ID1" "$WORK/pulled-k" >/dev/null 2>"$WORK/pull-k.err"
is "$?" 0 "... and it pulls with every sum verified"
check "... the same files" diff -r -x MANIFEST "$R1" "$WORK/pulled-k"

# SIGINT in the middle of a push: a clean stop, nothing listed
n=$(grep -c '^PUT ' "$WORK/s3slow/proxy.log")
env "${SLOWVARS[@]}" "$FLEETMARK" push "$R1" "s3://$S3_BUCKET/t601/int" >/dev/null 2>"$WORK/int.err" &
pid=$!
for _ in $(seq 100); do
	[ "$(grep -c '^PUT ' "$WORK/s3slow/proxy.log")" -gt "$n" ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
env "${SLOWVARS[@]}" "$FLEETMARK" ls "s3://$S3_BUCKET/t601/int" >"$WORK/int-ls.out" 2>&1
is "$rc $(wc -c <"$WORK/int-ls.out")" "130 0" "SIGINT in the middle of a push: exit 130, and no run listed"

# --- no secret anywhere -------------------------------------------------------------------

"$FLEETMARK" -vvv ls "$URL" >"$WORK/vvv.out" 2>"$WORK/vvv.err"
like "$(cat "$WORK/vvv.err")" "canonical request" "-vvv traces the signing (the canonical request)"
found=$(grep -rlF -e "$SECRET" -e "$SLOWSECRET" "$R1" "$WORK/pulled" "$WORK/pulled-k" "$WORK"/*.out "$WORK"/*.err \
	"$WORK/s3/proxy.log" "$WORK/s3/s3rver.log" "$WORK/s3/data" "$WORK/s3slow/proxy.log" \
	"$WORK/s3slow/s3rver.log" "$WORK/s3slow/data" "$WORK/cache" 2>/dev/null)
is "$found" "" "no secret in the run, pulled and cached directories, the stored objects, the server logs, or any output"

done_testing
