#!/usr/bin/env bash
# outputs.sh: every output of the results side, made by two builds from
# the same inputs and compared byte for byte: a differential check for a
# change that must not move a byte of what users read, or must move only
# the lines it says.
#
#   tests/bench/outputs.sh OLD_BUILD NEW_BUILD [KEEP_DIR]
#
# A BUILD is a build directory of a tree (e.g. /path/to/old/build and
# build): its fleetmark binary draws the reports, and outputs-nightly.c,
# compiled against that tree's headers and linked with that build's
# objects, draws the nightly verdict.  The inputs are this tree's:
#   report   every run directory of tests/data/report, by default and
#            with each --table, in every --format, with --samples and
#            --aggregate median where they change something
#   compare  the pairs of runs there (without/with, base/patch), in
#            every format, and the -t delta/matrix/compact tables of them
#   history  30 synthetic nights (tests/bench/history-gen: 3 hosts, 10
#            points, steps and a drift) in every format, --nights, -H,
#            --metric and --threshold
#   nightly  the verdict of the 13th of 13 synthetic nights, with steps
#            to hold and a confirmation round, in text, md, json and html
# Exit status: 0 when every output is the same, 1 when some differ (a
# unified diff of each, at most 40 lines, on stdout; the two trees of
# outputs are kept in KEEP_DIR, else removed), 2 on bad usage.
# Costs about 3 minutes on the 2-core test machine (1,300 processes).
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [KEEP_DIR]" >&2; exit 2; }
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OLD=$(cd "$1" && pwd) NEW=$(cd "$2" && pwd) || exit 2
KEEP=${3:-}
W=$(mktemp -d /tmp/outputs.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
D=$TOP/tests/data/report

# Nights for history and the nightly verdict, made once for both builds.
NOISE=1 TRIAL_NOISE=0.5 SEED=7 "$TOP/tests/bench/history-gen" "$W/nights" nightly 30 3 10 4 \
	step:lab-02:3:12:20 step:lab-01:5:20:-12 drift:lab-03:7:22:1 >/dev/null || exit 1
NOISE=1 TRIAL_NOISE=0.5 SEED=11 "$TOP/tests/bench/history-gen" "$W/tonight" nightly 13 2 6 5 \
	step:lab-01:2:13:25 step:lab-02:4:13:-30 step:lab-02:5:13:8 >/dev/null || exit 1

# outputs BUILD OUTDIR: every output of BUILD into OUTDIR, a file each.
outputs() {
	local b=$1 o=$2 fm=$1/fleetmark tree run t f pair n
	tree=$(dirname "$b")
	mkdir -p "$o"
	export XDG_CACHE_HOME=$o/.cache
	for run in "$D"/*/; do
		run=${run%/}
		[ -f "$run/run.json" ] || continue
		n=$(basename "$run")
		for f in text md csv json html; do
			"$fm" report "$run" -F "$f" >"$o/report-$n.$f" 2>&1
			echo "exit $?" >>"$o/report-$n.$f"
			for t in lmbench delta compare compact matrix summary profile kernel failures all; do
				"$fm" report "$run" -t "$t" -F "$f" >"$o/report-$n-$t.$f" 2>&1
				echo "exit $?" >>"$o/report-$n-$t.$f"
			done
		done
		"$fm" report "$run" --samples >"$o/report-$n-samples.text" 2>&1
		"$fm" report "$run" -t summary --aggregate median >"$o/report-$n-median.text" 2>&1
	done
	for pair in tx49-without:tx49-with munmap-base:munmap-patch profile-base:profile-patch \
		munmap-patch:munmap-base; do
		n=${pair%%:*}-${pair#*:}
		for f in text md csv json html; do
			"$fm" compare "$D/${pair%%:*}" "$D/${pair#*:}" -F "$f" >"$o/compare-$n.$f" 2>&1
			echo "exit $?" >>"$o/compare-$n.$f"
			for t in delta compact matrix all; do
				"$fm" compare "$D/${pair%%:*}" "$D/${pair#*:}" -t "$t" -F "$f" \
					>"$o/compare-$n-$t.$f" 2>&1
				echo "exit $?" >>"$o/compare-$n-$t.$f"
			done
		done
		"$fm" compare "$D/${pair%%:*}" "$D/${pair#*:}" --threshold 15 >"$o/compare-$n-t15.text" 2>&1
	done
	for f in text md csv json html; do
		"$fm" history "$W/nights" -F "$f" >"$o/history.$f" 2>&1
		echo "exit $?" >>"$o/history.$f"
	done
	"$fm" history "$W/nights" --nights >"$o/history-nights.text" 2>&1
	"$fm" history "$W/nights" --nights -F md >"$o/history-nights.md" 2>&1
	"$fm" history "$W/nights" -H lab-02 --metric spin >"$o/history-lab02.text" 2>&1
	"$fm" history "$W/nights" --threshold 10 -F json >"$o/history-t10.json" 2>&1
	"$fm" history "$W/tonight" -F text >"$o/history-tonight.text" 2>&1
	# The nightly verdict, through the build's own objects.
	# shellcheck disable=SC2046 # the object list is words
	if ! (cd "$tree" && cc -O1 -std=c11 -D_GNU_SOURCE -Iinclude -o "$o/.nightly" \
		"$TOP/tests/bench/outputs-nightly.c" $(make -s --no-print-directory BUILD="$(basename "$b")" print-CTL_LIB_OBJS) \
		$(make -s --no-print-directory print-CTL_LIBS)) >"$o/.nightly-build.log" 2>&1; then
		echo "cannot build outputs-nightly against $b:" >&2
		cat "$o/.nightly-build.log" >&2
		return 1
	fi
	"$o/.nightly" "$W/tonight" nightly 3 "$o" >"$o/nightly.log" 2>&1
	echo "exit $?" >>"$o/nightly.log"
	# The verdict names its source, the driver's temporary directory.
	sed -i -E 's|/tmp/outputs-nightly\.[A-Za-z0-9]{6}|BASE|g' "$o"/nightly.*
	rm -f "$o/.nightly"
	rm -rf "$o/.cache"
}

# The two builds side by side: each waits on its many short processes.
outputs "$OLD" "$W/old" & old=$!
outputs "$NEW" "$W/new" || exit 1
wait "$old" || exit 1
same=0 differ=0
for f in "$W"/old/*; do
	n=$(basename "$f")
	[ "$n" != .nightly-build.log ] || continue
	if cmp -s "$f" "$W/new/$n"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "--- $n differs"
		diff -u "$f" "$W/new/$n" | sed 's|'"$W"'|W|g' | head -40
	fi
done
for f in "$W"/new/*; do
	[ -e "$W/old/$(basename "$f")" ] || { echo "--- $(basename "$f") only in the new outputs"; differ=$((differ + 1)); }
done
if [ -n "$KEEP" ]; then
	rm -rf "$KEEP" && mkdir -p "$KEEP" && cp -a "$W/old" "$W/new" "$KEEP/"
fi
echo "outputs: $same the same, $differ differ"
[ "$differ" -eq 0 ]
