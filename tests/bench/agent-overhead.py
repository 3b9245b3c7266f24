#!/usr/bin/env python3
"""Measure the agent's own overhead between two trials in serve mode.

Sends N trial requests to one `fleetmark-agent serve` process (all queued up
front, as a controller pipelines them) and timestamps every response line as
it arrives.  The overhead between trial k and trial k+1 is the time from the
last metric line of k to the header of k+1: the child's exit, reaping, the
kill of its process group, removing its scratch directory, the end line,
parsing the next request, a new scratch directory, fork, and the header.

    tests/bench/agent-overhead.py [N] [BENCH key=value...]
    (default: 200 trials of lat_syscall op=null, 1 sample each)
"""
import json
import os
import statistics
import subprocess
import sys
import time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
agent = os.environ.get("AGENT", os.path.join(top, "build", "fleetmark-agent"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
bench = sys.argv[2] if len(sys.argv) > 2 else "lat_syscall"
params = dict(a.split("=", 1) for a in sys.argv[3:]) if len(sys.argv) > 3 else {"op": "null"}

p = subprocess.Popen([agent, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     bufsize=0)
reqs = "".join(json.dumps({"type": "trial", "id": str(i), "bench": bench,
                           "params": params, "samples": 1}) + "\n" for i in range(n))
p.stdin.write(reqs.encode())
p.stdin.flush()

last_metric = {}
headers = {}
ends = 0
for raw in p.stdout:
    now = time.monotonic()
    line = json.loads(raw)
    t = line.get("type")
    if t == "metric":
        last_metric[line["id"]] = now
    elif t == "header":
        headers[line["id"]] = now
    elif t == "end":
        ends += 1
        if line["status"] != "ok":
            sys.exit("trial %s ended %s" % (line["id"], line["status"]))
        if ends == n:
            break
p.stdin.write(b'{"type":"exit"}\n')
p.stdin.close()
p.wait()

gaps = [(headers[str(i + 1)] - last_metric[str(i)]) * 1e3 for i in range(n - 1)]
gaps.sort()
print("agent overhead between trials over %d trials of %s: median %.2f ms, "
      "p10 %.2f ms, p90 %.2f ms, max %.2f ms" % (
          n, bench, statistics.median(gaps), gaps[len(gaps) // 10],
          gaps[len(gaps) * 9 // 10], gaps[-1]))
