#!/usr/bin/env bash
# tests/bench/archive.sh: what `fleetmark push` and `pull` cost for a run
# with a large trials.jsonl, on file://, a private nginx WebDAV server and
# the S3 test endpoint (s3rver behind the SigV4-checking proxy), all on
# loopback, side by side with `sha256sum` of the same file (the hashing
# every push and pull must do at least once).
#
#   tests/bench/archive.sh [MB [ROUNDS]]      (default 100 and 5)
#
# Prints, per archive, the median wall time of ROUNDS pushes (each to a new
# prefix, so nothing is skipped) and ROUNDS pulls (each into a new
# directory), and each as a ratio to sha256sum's median.  Servers are
# started in a temporary directory and stopped at exit (by pid).  Needs
# root for nothing; needs nginx-light, libnginx-mod-http-dav-ext and
# s3rver (tools/deps).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
MB=${1:-100}
ROUNDS=${2:-5}
[ -x "$FLEETMARK" ] || { echo "no controller at $FLEETMARK (make)" >&2; exit 2; }
W=$(mktemp -d /var/tmp/fm-bench-archive.XXXXXX)
chmod 755 "$W"   # nginx workers run as nobody
export FLEETMARK_S3_DIR=$W/s3
cleanup() {
	"$TOP/tests/lab/archive" stop "$W/dav" >/dev/null 2>&1 || true
	"$TOP/tests/lab/s3" down -d "$W/s3" >/dev/null 2>&1 || true
	rm -rf "$W"
}
trap cleanup EXIT

# A real run (the smoke plan on this machine), then its trials.jsonl grown
# to MB megabytes with copies of its own lines.
"$FLEETMARK" -q run "$TOP/plans/smoke.yaml" -o "$W/results" >/dev/null
RUN=$(dirname "$(ls "$W"/results/*/run.json)")
line=$(head -1 "$RUN/trials.jsonl")
yes "$line" | head -c $((MB * 1000000)) | head -n -1 >>"$RUN/trials.jsonl"
ID=${RUN##*/}
echo "run $ID: trials.jsonl $(($(stat -c %s "$RUN/trials.jsonl") / 1000000)) MB, $ROUNDS rounds"

DAV=$("$TOP/tests/lab/archive" start "$W/dav")
"$TOP/tests/lab/s3" up -d "$W/s3" >/dev/null
S3ENV=$("$TOP/tests/lab/s3" env -d "$W/s3")

now() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# secs NANOS: "1.234"
secs() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }

times=()
for ((i = 0; i < ROUNDS; i++)); do
	t0=$(now)
	sha256sum "$RUN/trials.jsonl" >/dev/null
	times+=($(($(now) - t0)))
done
base=$(printf '%s\n' "${times[@]}" | median)
printf '%-8s %10s %8s %10s %8s\n' archive push ratio pull ratio
printf '%-8s %10s\n' sha256 "$(secs "$base") s"

# bench NAME URL-PREFIX [ENV...]
bench() {
	local name=$1 url=$2 i t0 push=() pull=() p q
	shift 2
	for ((i = 0; i < ROUNDS; i++)); do
		t0=$(now)
		env "$@" "$FLEETMARK" -q push "$RUN" "$url$i" >"$W/out" 2>&1 || { cat "$W/out" >&2; exit 1; }
		push+=($(($(now) - t0)))
		t0=$(now)
		env "$@" "$FLEETMARK" -q pull "$url$i/$ID" "$W/pulled-$name-$i" >"$W/out" 2>&1 ||
			{ cat "$W/out" >&2; exit 1; }
		pull+=($(($(now) - t0)))
		rm -rf "$W/pulled-$name-$i"
	done
	p=$(printf '%s\n' "${push[@]}" | median)
	q=$(printf '%s\n' "${pull[@]}" | median)
	printf '%-8s %10s %8s %10s %8s\n' "$name" "$(secs "$p") s" \
		"$(awk -v a="$p" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')" "$(secs "$q") s" \
		"$(awk -v a="$q" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')"
}

bench file "file://$W/file/r"
bench webdav "$DAV/dav/r"
# shellcheck disable=SC2046 # the endpoint's variables, one word each
bench s3 "s3://fleetmark/r" $(sed -n 's/^export //p' <<<"$S3ENV")
