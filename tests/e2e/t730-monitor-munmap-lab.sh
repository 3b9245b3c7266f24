#!/usr/bin/env bash
# t730-monitor-munmap-lab: the munmap sweep (threads x pages) with
# `monitor: [interrupts, vmstat]` on a lab host.  Every ok trial has its
# TLB shootdowns per munmap; with accessing threads that share the mm the
# unmapping thread must shoot their TLB entries down, so there are more
# shootdowns per munmap at threads=4 than at threads=0, where no other
# thread runs the mm (the direction only: the counts are the whole
# machine's, and no number is asserted).  The matrix shows the counter as
# a grid of its own, and the oversubscribed rows carry the agent's note,
# under the grid.  As bench (not root), the run is the same: the files
# the monitors read are world-readable.
# cost: 8 s, machine; lab: lab-01
TNAME=t730
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
grep -q 'TLB shootdowns' /proc/interrupts || skip_all "no TLB shootdown row in /proc/interrupts (not x86)"
# tlb_total: this machine's TLB shootdown interrupts so far, every CPU (the
# lab's hosts share its kernel).  A kernel that flushes other CPUs' TLBs
# without an IPI (a hypervisor's paravirtual flush, or broadcast
# invalidation) never moves it: there the direction cannot be seen.
tlb_total() { awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts; }
TLB0=$(tlb_total)

use_lab "$TNAME"
L=$LABDIR
has_host lab-01 || { echo "Bail out! the lab has no lab-01"; exit 1; }

cat >"$WORK/plan.yaml" <<'P'
name: monitor-munmap
repeat: 3
samples: 5
timeout: 120s
benchmarks:
  - bench: munmap
    params:
      threads: [0, 4]
      pages: [8, 32]
      accesses: 128
    monitor: [interrupts, vmstat]
P

for who in root bench; do
	fleet=$L/fleet.yaml
	[ "$who" = bench ] && fleet=$L/fleet-bench.yaml
	"$FLEETMARK" run "$WORK/plan.yaml" -f "$fleet" -H lab-01 -o "$WORK/$who" \
		>"$WORK/$who.out" 2>"$WORK/$who.err"
	rc=$?
	# starved threads on a busy host can fail a trial (exit 3): not this test's concern
	like "$rc" '^[03]$' "$who: the sweep with monitors ran (exit 0, or 3 for a starved trial)"
	[ "$rc" = 0 ] || grep -h '"status":"bench"' "$(run_dir "$WORK/$who")/trials.jsonl" | jq -r .message | sed 's/^/#   /'
	T=$(run_dir "$WORK/$who")/trials.jsonl
	nok=$(jq -r 'select(.metric == "ns_per_munmap" and .status == "ok") | .key' "$T" | sort -u | wc -l)
	like "$nok" '^(9|1[0-2])$' "$who: at least 9 of the 12 trials ok ($nok)"
	is "$(jq -r 'select(.metric == "interrupts:tlb_shootdowns" and .status == "ok" and (.monitor.delta | type) == "number") | .key' "$T" | sort -u | wc -l)" \
		"$nok" "$who: each ok trial with its TLB shootdowns"
	# the mean over pages and repetitions, per threads
	per() {
		jq -sr --arg t "$1" '[.[] | select(.metric == "interrupts:tlb_shootdowns" and .params.threads == $t) |
			.value] | add / length' "$T"
	}
	t0=$(per 0)
	t4=$(per 4)
	diag "$who: TLB shootdowns per munmap: threads=0 $t0, threads=4 $t4"
	if [ "$(tlb_total)" = "$TLB0" ]; then
		skip "$who: more TLB shootdowns per munmap with 4 threads sharing the mm than with none" \
			"this kernel sent no TLB shootdown interrupt during the runs (flushes without IPIs)"
	else
		is "$(awk -v a="$t0" -v b="$t4" 'BEGIN { print (b > a) ? "more" : "not more" }')" more \
			"$who: more TLB shootdowns per munmap with 4 threads sharing the mm than with none"
	fi
	is "$(jq -r 'select(.metric == "vmstat:pgfault") | .unit' "$T" | sort -u)" "/op" \
		"$who: page faults per munmap too (vmstat)"
done

D=$(run_dir "$WORK/root")
run_fm "$WORK/matrix" report --table matrix "$D"
is "$rc" 0 "report --table matrix exits 0"
M=$(cat "$WORK/matrix.out")
like "$M" "munmap interrupts:tlb_shootdowns \(/op, mean of trials" "the counter's own grid, threads down, pages across"
ncpu=$(on_host lab-01 nproc)
if [ "${ncpu:-0}" -lt 5 ] 2>/dev/null; then
	like "$(grep -E '^4 ' "$WORK/matrix.out" | head -1)" '\[[0-9,]+\]' "the threads=4 row is marked (4 threads on $ncpu CPUs)"
	like "$M" "\[[0-9]+\] 4 accessing threads and the unmapping thread share $ncpu CPUs" \
		"... and the agent's note is under the grid"
	like "$(grep -E '^0 ' "$WORK/matrix.out" | head -1)" '^0 +[0-9.]+( ±[0-9.]+%)?( !)? \[[0-9]\] ' \
		"the threads=0 row only has the notes every trial has (an outlier's ! aside)"
else
	skip "the oversubscribed row is marked" "lab-01 has $ncpu CPUs"
	skip "... and the agent's note is under the grid" "lab-01 has $ncpu CPUs"
	skip "the threads=0 row" "lab-01 has $ncpu CPUs"
fi
done_testing
