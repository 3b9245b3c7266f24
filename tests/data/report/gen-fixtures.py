#!/usr/bin/env python3
"""gen-fixtures.py: build the run directories of tests/data/report/ from
the lmbench tables of linux-kernel mail (example-lmbench-*.txt, the
tables as the mail printed them).

Each table cell becomes one trial line whose value, formatted the lmbench
way, gives back the mail's text ("39.K" -> 39000, "166." -> 166,
"null I/O" -> read = write = the value).  Run once; the output is
committed, the script is kept to show where the numbers come from.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Columns of each table: (bench, params, metric) per column after Mhz;
# None for columns never measured (RPC).
TABLES = {
    "Processor, Processes": [
        ("lat_syscall", {"op": "null"}, "latency"),
        "null-io",
        ("lat_syscall", {"op": "stat"}, "latency"),
        ("lat_syscall", {"op": "open"}, "latency"),
        ("lat_select", {"type": "tcp", "n": "100"}, "latency"),
        ("lat_sig", {"op": "install"}, "latency"),
        ("lat_sig", {"op": "catch"}, "latency"),
        ("lat_proc", {"op": "fork"}, "latency"),
        ("lat_proc", {"op": "exec"}, "latency"),
        ("lat_proc", {"op": "shell"}, "latency"),
    ],
    "Context switching": [
        ("lat_ctx", {"procs": p, "size": s}, "latency")
        for p, s in (("2", "0"), ("2", "16"), ("2", "64"), ("8", "16"), ("8", "64"),
                     ("16", "16"), ("16", "64"))
    ],
    "*Local* Communication latencies": [
        None,  # 2p/0K ctxsw: the same point as the context switching table
        ("lat_pipe", {}, "latency"),
        ("lat_unix", {}, "latency"),
        ("lat_udp", {}, "latency"),
        None,
        ("lat_tcp", {}, "latency"),
        None,
        ("lat_connect", {}, "latency"),
    ],
    "File & VM system latencies": [
        ("lat_fs", {"size": "0"}, "create"),
        ("lat_fs", {"size": "0"}, "delete"),
        ("lat_fs", {"size": "10240"}, "create"),
        ("lat_fs", {"size": "10240"}, "delete"),
        ("lat_mmap", {}, "latency"),
        ("lat_sig", {"op": "prot"}, "latency"),
        ("lat_pagefault", {}, "latency"),
        ("lat_select", {"type": "file", "n": "100"}, "latency"),
    ],
    "*Local* Communication bandwidths": [
        ("bw_pipe", {}, "bandwidth"),
        ("bw_unix", {}, "bandwidth"),
        ("bw_tcp", {}, "bandwidth"),
        ("bw_file_rd", {}, "bandwidth"),
        ("bw_mmap_rd", {}, "bandwidth"),
        ("bw_mem", {"op": "bcopy"}, "bandwidth"),
        ("bw_mem", {"op": "fcp"}, "bandwidth"),
        ("bw_mem", {"op": "frd"}, "bandwidth"),
        ("bw_mem", {"op": "fwr"}, "bandwidth"),
    ],
}


def value(tok):
    tok = tok.strip()
    if not tok:
        return None
    if tok.endswith("K"):
        return float(tok[:-1].rstrip(".")) * 1000
    if tok.endswith("M"):
        return float(tok[:-1].rstrip(".")) * 1e6
    return float(tok.rstrip(".") if tok.endswith(".") else tok)


def rows(path, os_width):
    """(table, host, os, [cell texts]) for each data row, cut by the rule line."""
    out, table, rule = [], None, None
    for line in open(path):
        line = line.rstrip("\n")
        for t in TABLES:
            if line.startswith(t):
                table = t
        if line.startswith("--------- "):
            rule = line
            continue
        if rule and line and not line.startswith("#") and not line.startswith("-"):
            widths = [len(w) for w in rule.split(" ")]
            widths[1] = os_width
            pos, cells = 0, []
            for w in widths:
                cells.append(line[pos:pos + w])
                pos += w + 1
            out.append((table, cells[0].strip(), cells[1].strip(), cells[2:]))
        elif not line:
            rule = None
    return out


def write_run(d, run_id, label, hosts, lines):
    os.makedirs(os.path.join(d, "hosts"), exist_ok=True)
    run = {"format": 1, "run": run_id, "status": "finished", "label": label,
           "start": "2006-12-01T00:00:00Z", "end": "2006-12-01T01:00:00Z",
           "plan": {"name": "lmbench", "repeat": 3, "regression": None},
           "hosts": {h: {"status": "done", "kernel": k, "ok": 0, "failed": 0}
                     for h, (k, mhz) in hosts.items()}}
    json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=1)
    for h, (k, mhz) in hosts.items():
        json.dump({"agent": "0.1.0", "arch": "mips", "mhz": mhz, "uname": {"release": k}},
                  open(os.path.join(d, "hosts", h + ".json"), "w"))
    with open(os.path.join(d, "trials.jsonl"), "w") as f:
        for l in lines:
            f.write(json.dumps(l, separators=(",", ":")) + "\n")


def line(run_id, host, bench, params, metric, rep, v, unit="us", direction="lower"):
    key = "-/lmbench/-/%d" % rep
    return {"format": 1, "run": run_id, "host": host, "variant": None, "bench": bench,
            "suite": "lmbench", "params": params, "rep": rep, "key": key,
            "metric": metric, "unit": unit, "direction": direction, "value": v,
            "samples": [v], "start": 1165000000.0 + rep, "duration": 1.0,
            "status": "ok", "kind": "ok", "part": 1, "parts": 1}


def gen(example, os_width, runs):
    """runs: {label: (dir, run id)}; rows of each label become reps 1.. per host."""
    data = rows(os.path.join(HERE, example), os_width)
    for label, (d, run_id) in runs.items():
        lines, hosts, reps = [], {}, {}
        for table, host, oscol, cells in data:
            if oscol != label:
                continue
            cols = TABLES[table]
            if host == "commando-":
                host = "commando-2400"  # the inventory name; lmbench shows 9 chars
            if table.startswith("Processor"):
                mhz = float(cells[0]) if cells[0].strip() else 0
                hosts[host] = (label if label.startswith("Linux") else "2.6.19", mhz)
                cells = cells[1:]
            key = (table, host)
            reps[key] = reps.get(key, 0) + 1
            rep = reps[key]
            for col, text in zip(cols, cells):
                v = value(text)
                if v is None or col is None:
                    continue
                if col == "null-io":
                    for op in ("read", "write"):
                        lines.append(line(run_id, host, "lat_syscall", {"op": op},
                                          "latency", rep, v))
                    continue
                bench, params, metric = col
                bw = metric == "bandwidth"
                lines.append(line(run_id, host, bench, params, metric, rep, v,
                                  "MB/s" if bw else "us", "higher" if bw else "lower"))
        write_run(os.path.join(HERE, d), run_id, label, hosts, lines)


gen("example-lmbench-tx49.txt", 13, {
    "without-patch": ("tx49-without", "20061201-000000-lmbench-0001"),
    "with-patch": ("tx49-with", "20061201-010000-lmbench-0002"),
})
# The commando mail's OS column is 12 wide (the archive flattened a space).
gen("example-lmbench-commando.txt", 12, {
    "Linux 2.6.10": ("commando", "20050110-000000-lmbench-0001"),
})


# --- compare fixtures: munmap at two points, a baseline and a patched run ---
# Written out by hand below (values chosen so that each case of the compare
# table appears once): threads=4 ns_per_munmap is 10% slower with the
# patch and steady (worse), accesses_per_thread_ms 10% higher (better);
# threads=8 is too noisy to judge (rsd > 5%).  The patched run also has a
# failed trial (timeout), an infrastructure failure (connect), a line
# without a metric, a corrupt line and a truncated last line.
def munmap(run_id, host, t, rep, metric, v, status="ok"):
    higher = metric == "accesses_per_thread_ms"
    l = {"format": 1, "run": run_id, "host": host, "variant": None, "bench": "munmap",
         "params": {"threads": str(t), "pages": "16"}, "rep": rep,
         "key": "-/munmap/threads=%d,pages=16/%d" % (t, rep),
         "metric": metric if status == "ok" else None,
         "unit": ("/ms" if higher else "ns") if status == "ok" else None,
         "direction": ("higher" if higher else "lower") if status == "ok" else None,
         "value": v if status == "ok" else None, "samples": [v] if status == "ok" else [],
         "start": 1007099956.0 + rep, "duration": 1.0, "status": status,
         "kind": "ok" if status == "ok" else "benchmark", "part": 1, "parts": 2}
    return json.dumps(l, separators=(",", ":")) + "\n"


BASE = {
    (4, "ns_per_munmap"): [5032, 5010, 5051, 4998, 5040],
    (4, "accesses_per_thread_ms"): [81605, 81200, 82010, 81750, 81500],
    (8, "ns_per_munmap"): [5251, 5800, 4900, 5600, 5100],
    (8, "accesses_per_thread_ms"): [83378, 83000, 83600, 83500, 83100],
}
PATCH = {
    (4, "ns_per_munmap"): [5540, 5515, 5560, 5498, 5530],
    (4, "accesses_per_thread_ms"): [89800, 89300, 90100, 89900, 89600],
    (8, "ns_per_munmap"): [5642, 5100, 6100, 5300, 5900],
    (8, "accesses_per_thread_ms"): [83500, 83100, 83700, 83400, 83200],
}


def write_munmap(d, run_id, label, values, extra=""):
    d = os.path.join(HERE, d)
    os.makedirs(os.path.join(d, "hosts"), exist_ok=True)
    run = {"format": 1, "run": run_id, "status": "finished", "label": label,
           "start": "2001-11-30T04:15:00Z", "end": "2001-11-30T04:20:00Z",
           "plan": {"name": "tlb-flush-range", "repeat": 5,
                    "regression": {"threshold": 5.0, "metrics": []}},
           "hosts": {"lab-03": {"status": "done", "kernel": "6.1.0-13-amd64"}}}
    json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=1)
    json.dump({"agent": "0.1.0", "arch": "x86_64", "mhz": 2400,
               "uname": {"release": "6.1.0-13-amd64"}},
              open(os.path.join(d, "hosts", "lab-03.json"), "w"))
    with open(os.path.join(d, "trials.jsonl"), "w") as f:
        for rep in range(1, 6):
            for (t, metric), vs in values.items():
                f.write(munmap(run_id, "lab-03", t, rep, metric, vs[rep - 1]))
        f.write(extra)


write_munmap("munmap-base", "20011130-041500-tlb-flush-range-3f2a", "base", BASE)
write_munmap("munmap-patch", "20011130-051500-tlb-flush-range-9c1d", "patched", PATCH,
             munmap("20011130-051500-tlb-flush-range-9c1d", "lab-03", 4, 6,
                    "ns_per_munmap", 0, status="timeout")
             + munmap("20011130-051500-tlb-flush-range-9c1d", "lab-03", 8, 6,
                      "ns_per_munmap", 0, status="connect").replace(
                          '"kind":"benchmark"', '"kind":"infrastructure"')
             + munmap("20011130-051500-tlb-flush-range-9c1d", "lab-03", 4, 7,
                      "ns_per_munmap", 0, status="ok").replace(
                          '"metric":"ns_per_munmap"', '"metric":null')
             + "this is not json\n"
             + '{"format":1,"run":"20011130-051500-tlb-flush-range-9c1d","host":"lab-0')


# --- matrix fixture: munmap over threads x pages, two THP variants -----------
# ns_per_munmap grows with threads and pages; the "always" variant is 20%
# slower at 4 threads (significant), the same elsewhere (within noise).
def sweep_line(run_id, variant, t, p, rep, v):
    return json.dumps({
        "format": 1, "run": run_id, "host": "lab-03", "variant": variant,
        "bench": "munmap", "params": {"threads": str(t), "pages": str(p),
                                      "accesses": "512"},
        "rep": rep, "key": "%s/munmap/threads=%d,pages=%d,accesses=512/%d" % (variant, t, p, rep),
        "metric": "ns_per_munmap", "unit": "ns", "direction": "lower", "value": v,
        "samples": [v], "start": 1007099956.0 + rep, "duration": 1.0,
        "status": "ok", "kind": "ok", "part": 1, "parts": 1},
        separators=(",", ":")) + "\n"


def write_sweep(d, run_id):
    d = os.path.join(HERE, d)
    os.makedirs(os.path.join(d, "hosts"), exist_ok=True)
    run = {"format": 1, "run": run_id, "status": "finished", "label": None,
           "plan": {"name": "tlb-sweep", "repeat": 3, "regression": None},
           "hosts": {"lab-03": {"status": "done", "kernel": "6.1.0-13-amd64"}}}
    json.dump(run, open(os.path.join(d, "run.json"), "w"), indent=1)
    json.dump({"mhz": 2400, "uname": {"release": "6.1.0-13-amd64"}},
              open(os.path.join(d, "hosts", "lab-03.json"), "w"))
    jitter = [0.0, 0.01, -0.01]
    with open(os.path.join(d, "trials.jsonl"), "w") as f:
        for rep in range(1, 4):
            for variant in ("never", "always"):
                for t in (4, 1, 2):          # out of order: sorting is tested
                    for p in (16, 1, 256):
                        v = 1000.0 * t + 10.0 * p
                        if variant == "always" and t == 4:
                            v *= 1.2
                        v *= 1 + jitter[(rep + t + p) % 3]
                        f.write(sweep_line(run_id, variant, t, p, rep, round(v, 1)))


write_sweep("sweep", "20011130-061500-tlb-sweep-77aa")
