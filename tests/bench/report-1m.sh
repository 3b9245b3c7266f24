#!/usr/bin/env bash
# tests/bench/report-1m.sh: how long `fleetmark report` takes, and how much
# memory it needs, over a run directory of 1,000,000 trial lines, for the
# HTML page (tables and SVG charts) and, for comparison, the text tables.
#
#   tests/bench/report-1m.sh [LINES]      (default 1000000)
#   FLEETMARK_OLD=OLD/build/fleetmark tests/bench/report-1m.sh
#                      (then also this build against OLD, calls alternated
#                      pair by pair, PAIRS of them (7): tests/bench/pairs.sh)
#
# The run: 10 hosts x 20 points (munmap threads=1..16 x pages=1..256) x 2
# metrics x LINES/400 repetitions, each line as the journal writes it (five
# samples, start, duration, key...), so about 440 bytes a line.  Written by
# an inline Python generator into a temporary directory (removed at exit).
# Prints, for each format, the median wall time of three runs and the
# largest peak RSS (/usr/bin/time -v); the aims are under 3 s and 300 MB.
# Exit 1 when an aim is missed.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
LINES=${1:-1000000}
[ -x "$FLEETMARK" ] || { echo "no controller at $FLEETMARK (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "no python3" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
RUN=$W/20011130-050000-report-1m-0001

python3 - "$RUN" "$LINES" <<'EOF'
import json, os, random, sys
run, total = sys.argv[1], int(sys.argv[2])
rid = os.path.basename(run)
hosts = ["lab-%02d" % i for i in range(10)]
points = [(t, p) for t in (1, 2, 4, 8, 16) for p in (1, 16, 64, 256)]
metrics = [("ns_per_munmap", "ns", "lower"), ("accesses_per_thread_ms", "/ms", "higher")]
per_rep = len(hosts) * len(points) * len(metrics)
reps = max(1, total // per_rep)
os.makedirs(run + "/hosts")
with open(run + "/run.json", "w") as f:
    json.dump({"format": 1, "run": rid, "status": "finished", "label": "bench",
               "plan": {"name": "report-1m", "repeat": reps, "regression": None},
               "hosts": {h: {"status": "done", "kernel": "6.1.0-13-amd64"} for h in hosts}}, f)
for h in hosts:
    with open("%s/hosts/%s.json" % (run, h), "w") as f:
        json.dump({"uname": {"release": "6.1.0-13-amd64"}, "mhz": 2400}, f)
rnd = random.Random(1)
n = 0
t0 = 1007099957.0
with open(run + "/trials.jsonl", "w", buffering=1 << 20) as f:
    for rep in range(1, reps + 1):
        for hi, h in enumerate(hosts):
            for (t, p) in points:
                base = 1000.0 * t + 10 * p + 50 * hi
                for (m, unit, d) in metrics:
                    if n >= total:
                        break
                    mean = base if m == "ns_per_munmap" else 4e8 / base
                    s = [round(mean * (1 + rnd.gauss(0, 0.02)), 1) for _ in range(5)]
                    v = sorted(s)[2]
                    f.write('{"format":1,"run":"%s","host":"%s","variant":null,"bench":"munmap",'
                            '"params":{"threads":"%d","pages":"%d","accesses":"512","write":"0"},'
                            '"rep":%d,"key":"-/munmap/threads=%d,pages=%d,accesses=512,write=0/%d",'
                            '"metric":"%s","unit":"%s","direction":"%s","value":%s,"samples":%s,'
                            '"start":%.1f,"duration":1.0,"status":"ok","kind":"ok","part":1,"parts":2}\n'
                            % (rid, h, t, p, rep, t, p, rep, m, unit, d, v, json.dumps(s),
                               t0 + n, ))
                    n += 1
print("generated %d lines" % n, file=sys.stderr)
EOF

lines=$(wc -l <"$RUN/trials.jsonl")
size=$(du -m "$RUN/trials.jsonl" | cut -f1)
echo "run: $lines trial lines, $size MB, 10 hosts x 20 points x 2 metrics"
# The file was just written: flush it and read it once, so the timings are
# of the report, not of the disk writing back the generator's output.
sync
cat "$RUN/trials.jsonl" >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (wall times grow with other load)"
fail=0
for fmt in html text; do
	walls=
	cpus=
	rssmax=0
	for _ in 1 2 3; do
		/usr/bin/time -v -o "$W/time.$fmt" "$FLEETMARK" report "$RUN" --format "$fmt" \
			-o "$W/report.$fmt" 2>"$W/err.$fmt" || { cat "$W/err.$fmt" >&2; exit 1; }
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$W/time.$fmt")
		rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$W/time.$fmt")
		walls="$walls $(awk -v w="$wall" 'BEGIN { n = split(w, a, ":"); s = 0;
			for (i = 1; i <= n; i++) s = s * 60 + a[i]; printf "%.2f", s }')"
		cpus="$cpus $(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' \
			"$W/time.$fmt")"
		[ "$rss" -gt "$rssmax" ] && rssmax=$rss
	done
	# shellcheck disable=SC2086 # one number per word
	med=$(printf '%s\n' $walls | sort -n | sed -n 2p)
	# shellcheck disable=SC2086
	cpu=$(printf '%s\n' $cpus | sort -n | sed -n 2p)
	out=$(du -k "$W/report.$fmt" | cut -f1)
	printf '%-5s wall %5s s (median of 3:%s)   user+sys %5s s   peak RSS %4d MB   output %5d KB\n' \
		"$fmt" "$med" "$walls" "$cpu" $((rssmax / 1024)) "$out"
	awk -v s="$med" -v r="$rssmax" 'BEGIN { exit !(s < 3 && r / 1024 < 300) }' || fail=1
done
echo "command: fleetmark report RUN --format html -o report.html   (aims: < 3 s, < 300 MB)"
# With FLEETMARK_OLD=BINARY: the two builds alternated on the same run.
if [ -n "${FLEETMARK_OLD:-}" ]; then
	# shellcheck source-path=SCRIPTDIR source=pairs.sh
	. "$TOP/tests/bench/pairs.sh"
	echo
	pairs_header
	for fmt in html text; do
		pairs "report --format $fmt" "${PAIRS:-7}" : -- report "$RUN" --format "$fmt" -o "$W/pair.$fmt"
	done
fi
[ "$fail" = 0 ] || { echo "an aim (under 3 s and 300 MB) was missed" >&2; exit 1; }
