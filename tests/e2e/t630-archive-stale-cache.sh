#!/usr/bin/env bash
# t630-archive-stale-cache: a run read from an archive (report URL/RUNID,
# report --baseline URL/RUNID, history URL) is checked against the
# archive's MANIFEST on every read, so a run pushed again (one more trial
# appended, as a resumed run is) is read anew, never from the stale copy
# in the cache.  A file:// archive, and an s3:// one (s3rver behind the
# SigV4 proxy, tests/lab/s3) when node and s3rver are there.  The runs
# are fixtures: no agent, no lab.  Costs about 2 s, 6 s with S3.
# cost: 8 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
W=$(mktemp -d /tmp/t630.XXXXXX)
S3=$TOP/tests/lab/s3
trap '"$S3" down -d "$W/s3" >/dev/null 2>&1; rm -rf "$W"' EXIT
cd "$W" || exit 1
unset FLEETMARK_CONFIG AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_REGION \
	AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1

ID=20011130-041500-tlb-flush-range-3f2a
mkdir runs
cp -r "$TOP/tests/data/report/munmap-base" "runs/$ID"
R=runs/$ID
grep '"metric":"ns_per_munmap"' "$TOP/tests/data/report/munmap-base/trials.jsonl" |
	grep '"threads":"4"' >all.jsonl
head -2 all.jsonl >"$R/trials.jsonl"
cp -r "runs/$ID" "$W/local"
cat "$TOP/tests/data/report/munmap-base/trials.jsonl" >"$W/local/trials.jsonl"
# n_of FILE: the n of each row of the series in `report -t summary` output
n_of() { awk '$1 == "munmap" && $2 ~ /threads=4/ && $3 == "ns_per_munmap" { print $8 }' "$1" | xargs; }
# hist_n FILE: the n of the series' night in `history --format json` output
hist_n() { grep '"threads":"4"' "$1" | grep -o '"n":[0-9]*' | cut -d: -f2; }
# push_trials N URL NAME: the run with its first N trials, pushed to URL
push_trials() {
	head -"$1" all.jsonl >"$R/trials.jsonl"
	run_fm "$3-push$1" push "$R" "$2"
	is "$rc" 0 "$3: push the run with $1 trials"
}

# stale URL NAME: read the run in each way, push it again with one trial
# more before each read, and check every read sees the new count
stale() {
	local url=$1 name=$2
	push_trials 2 "$url" "$name"
	run_fm "$name-rep1" report -t summary "$url/$ID"
	is "$rc $(n_of "$name-rep1.out")" "0 2" "$name: report URL/RUNID: n=2"
	run_fm "$name-base1" report -t summary "$W/local" --baseline "$url/$ID"
	is "$rc $(n_of "$name-base1.out")" "0 2 5" "$name: report --baseline URL/RUNID: the baseline's n=2 (its row first)"
	run_fm "$name-hist1" history "$url" --format json
	is "$rc $(hist_n "$name-hist1.out")" "0 2" "$name: history URL: n=2"

	push_trials 3 "$url" "$name"
	run_fm "$name-rep2" report -t summary "$url/$ID"
	is "$rc $(n_of "$name-rep2.out")" "0 3" "$name: report URL/RUNID after it was pushed again: n=3, not the cached 2"
	like "$(cat "$name-rep2.err")" "another manifest than the cached copy" \
		"$name: ... saying the archive holds another manifest than the cache"
	run_fm "$name-rep3" report -t summary "$url/$ID"
	is "$rc $(n_of "$name-rep3.out")" "0 3" "$name: read again: n=3 (the refreshed cache)"

	push_trials 4 "$url" "$name"
	run_fm "$name-base2" report -t summary "$W/local" --baseline "$url/$ID"
	is "$rc $(n_of "$name-base2.out")" "0 4 5" "$name: report --baseline URL/RUNID after it was pushed again: n=4"

	push_trials 5 "$url" "$name"
	run_fm "$name-hist2" history "$url" --format json
	is "$rc $(hist_n "$name-hist2.out")" "0 5" "$name: history URL after it was pushed again: n=5"
}

stale "file://$W/arch" file

if command -v node >/dev/null &&
	[ -f "${FLEETMARK_LAB_CACHE:-/var/cache/fleetmark-lab}/npm/node_modules/s3rver/bin/s3rver.js" ] &&
	"$S3" up -d "$W/s3" >/dev/null 2>"$W/s3up.err"; then
	# shellcheck disable=SC1091
	. "$W/s3/env"
	stale "s3://$S3_BUCKET/t630" s3
else
	skip "s3: the same against s3rver" "needs node and s3rver (tools/deps)"
fi

done_testing
