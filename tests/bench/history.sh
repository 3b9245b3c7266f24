#!/usr/bin/env bash
# tests/bench/history.sh: how long `fleetmark history` takes over a year
# of nights, the first time (every trials.jsonl read) and the second (from
# its cache), side by side, and with one new night.
#
#   tests/bench/history.sh [NIGHTS [HOSTS [POINTS [TRIALS]]]]   (365 10 50 5)
#   FLEETMARK_OLD=OLD/build/fleetmark tests/bench/history.sh ...
#                      (then also this build against OLD, calls alternated
#                      pair by pair, PAIRS of them (7): tests/bench/pairs.sh)
#
# The history: NIGHTS finished runs of one plan on HOSTS hosts, POINTS
# metrics each (one point a metric), TRIALS trials a point with 11 samples
# a trial, written by tests/bench/history-gen into a temporary directory
# (removed at exit): 1% night-to-night noise, a +10% step on lab-01's
# first metric from night NIGHTS*0.55, a -8% step (worse: higher is
# better) on lab-03's fifth from night NIGHTS*0.27, and a drift of +1% a
# night on lab-02's second from night NIGHTS*0.82.  Prints, for each call,
# the median wall and CPU time of three (the first call: one, with a cold
# cache) and the peak RSS (/usr/bin/time), the runs read and cached (what -v
# says; the json calls have it, as -v would make text show every night),
# and the change points found on the injected series.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
NIGHTS=${1:-365} HOSTS=${2:-10} POINTS=${3:-50} TRIALS=${4:-5}
[ -x "$FLEETMARK" ] || { echo "no controller at $FLEETMARK (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME=$W/cache NO_COLOR=1
STEP=$((NIGHTS * 55 / 100)) WORSE=$((NIGHTS * 27 / 100)) DRIFT=$((NIGHTS * 82 / 100))
RULES="step:1:1:$STEP:10 step:3:5:$WORSE:-8 drift:2:2:$DRIFT:1"

echo "generating $NIGHTS nights x $HOSTS hosts x $POINTS metrics x $TRIALS trials ($RULES)"
# shellcheck disable=SC2086 # the rules are words
SAMPLES=11 "$TOP/tests/bench/history-gen" "$W/gen" nightly "$((NIGHTS + 1))" "$HOSTS" "$POINTS" "$TRIALS" $RULES
mkdir "$W/results"
LAST=$(find "$W/gen" -mindepth 1 -maxdepth 1 -type d | sort | tail -1)
find "$W/gen" -mindepth 1 -maxdepth 1 -type d ! -path "$LAST" -exec mv {} "$W/results/" \;
echo "  $(cat "$W"/results/*/trials.jsonl | wc -l) trial lines, $(du -sh "$W/results" | cut -f1)"

# one NAME ARGS...: a call, its wall time and peak RSS in $W/NAME.time, its stderr in $W/NAME.err
one() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$W/$name.time" "$FLEETMARK" history "$W/results" "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
}
# median: the middle of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# row LABEL NAME...: the median of the calls' wall and CPU times, the largest RSS, the counts of the last
row() {
	local label=$1 t cpu rss counts
	shift
	t=$(for n in "$@"; do cut -d' ' -f1 "$W/$n.time"; done | median)
	cpu=$(for n in "$@"; do awk '{ print $3 + $4 }' "$W/$n.time"; done | median)
	rss=$(for n in "$@"; do cut -d' ' -f2 "$W/$n.time"; done | sort -n | tail -1)
	counts=$(grep -o '([0-9]* read, [0-9]* from the cache' "$W/${*: -1}.err" | tr -d '(' || true)
	printf '| %s | %s s | %s s | %s MB | %s |\n' "$label" "$t" "$cpu" "$((rss / 1024))" "${counts:-all cached}"
}

one first -v --format json
for i in 1 2 3; do one "second$i" -v --format json; done
for i in 1 2 3; do one "text$i" --format text; done
for i in 1 2 3; do one "html$i" --format html; done
mv "$LAST" "$W/results/"
one newnight -v --format json
cmp -s "$W/first.out" "$W/second1.out" || echo "the first and second call differ!" >&2

echo
echo "| call | wall (median of 3) | CPU (user + sys) | peak RSS | runs |"
echo "|---|---|---|---|---|"
row "first (cold cache), json" first
row "second (cached), json" second1 second2 second3
row "cached, text (a row per segment)" text1 text2 text3
row "cached, html" html1 html2 html3
row "one new night, json" newnight
echo
echo "output: $(wc -c <"$W/first.out") bytes of json, $(wc -c <"$W/text1.out") of text, $(wc -c <"$W/html1.out") of html"
echo "change points found (injected: lab-01 spin work=1 +10% from night $STEP; lab-03 pipe size=5 -8% from night $WORSE; lab-02 spin work=2 +1% a night from night $DRIFT):"
jq -r '.[] | select(.change != null) | "  \(.host) \(.bench) \(.params | to_entries | map("\(.key)=\(.value)") | join(",")) night \(.run[-4:] | ascii_downcase | explode | map(if . >= 97 then . - 87 else . - 48 end) | reduce .[] as $d (0; . * 16 + $d)) \(if .change.pct > 0 then "+" else "" end)\(.change.pct * 10 | round / 10)% p=\(.change.p * 10000 | round / 10000) \(.change.direction)"' "$W/newnight.out"
echo "  in all: $(sed -n 2p "$W/text1.out" | sed 's/.*: //')"
echo "  on the $((HOSTS * POINTS - 3)) A/A series: $(jq '[.[] | select(.change != null) | select((.host == "lab-01" and .params.work == "1") or (.host == "lab-02" and .params.work == "2") or (.host == "lab-03" and .params.size == "5") | not)] | length' "$W/newnight.out")"

# With FLEETMARK_OLD=BINARY: the two builds alternated on the same nights,
# each with a cache of its own, emptied before a cold call.
if [ -n "${FLEETMARK_OLD:-}" ]; then
	# shellcheck source-path=SCRIPTDIR source=pairs.sh
	. "$TOP/tests/bench/pairs.sh"
	# shellcheck disable=SC2317 # called by pairs
	cold() { export XDG_CACHE_HOME=$W/cache-$1; rm -rf "$XDG_CACHE_HOME"; }
	# shellcheck disable=SC2317
	warm() { export XDG_CACHE_HOME=$W/cache-$1; }
	echo
	pairs_header
	pairs "history, cold cache, json" "${PAIRS:-7}" cold -- history "$W/results" --format json
	pairs "history, cached, json" "${PAIRS:-7}" warm -- history "$W/results" --format json
	pairs "history, cached, html" "${PAIRS:-7}" warm -- history "$W/results" --format html
fi
