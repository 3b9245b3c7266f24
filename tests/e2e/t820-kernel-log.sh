#!/usr/bin/env bash
# t820-kernel-log: what the kernel logs during a trial is counted and shown.
# On a lab host as root, a trial that writes a WARNING and a soft lockup
# line into /dev/kmsg carries them in trials.jsonl (counts by kind, first
# lines), the report lists it in the kernel log table and the quiet trials
# of the same run are not in it; compared with a baseline run whose kernel
# said nothing, the kinds are marked NEW (what a nightly check says).  As
# the bench user (dmesg_restrict) env says why the log cannot be read and
# the trials are ok without a kernel member.
# cost: 3 s, busy; lab: lab-01
TNAME=t820
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
[ -w /dev/kmsg ] || skip_all "needs a writable /dev/kmsg"

use_lab "$TNAME"
L=$LABDIR
has_host lab-01 || { echo "Bail out! the lab has no lab-01"; exit 1; }

# The marker makes the lines this test wrote its own: the kernel log is
# the machine's, shared by every lab host.
M="fleetmark-t820-$$"
cat >"$WORK/plan.yaml" <<P
name: kernel-log
repeat: 2
samples: 1
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: ['echo "<4>WARNING: CPU: 0 PID: 1 at $M.c:1 test" > /dev/kmsg; echo "<0>watchdog: BUG: soft lockup - CPU#0 stuck for 23s! [$M:1]" > /dev/kmsg', 'true']
P
sed -e "s|command: .*|command: ['true', 'sleep 0']|" \
	"$WORK/plan.yaml" >"$WORK/quiet.yaml"

"$FLEETMARK" run "$WORK/quiet.yaml" -f "$L/fleet.yaml" -H lab-01 -o "$WORK/q" >"$WORK/q.out" 2>&1
is "$?" 0 "a quiet run exits 0"
Q=$(run_dir "$WORK/q")
is "$(jq -s '[.[] | select(.kernel)] | length' "$Q/trials.jsonl")" 0 "a quiet run has no kernel member"

"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H lab-01 -o "$WORK/r" >"$WORK/run.out" 2>&1
is "$?" 0 "a run whose kernel complained exits 0: the numbers are there"
D=$(run_dir "$WORK/r")
noisy=$(jq -rs "[.[] | select(.kernel) | select(.params.command | startswith(\"echo\"))] | length" "$D/trials.jsonl")
check "the trials that wrote to the log carry a kernel member ($noisy lines)" test "$noisy" -ge 2
is "$(jq -rs '[.[] | select(.kernel) | select(.params.command == "true")] | length' "$D/trials.jsonl")" 0 \
	"the quiet trials of the same run do not"
k=$(jq -c 'select(.kernel) | .kernel' "$D/trials.jsonl" | head -1)
is "$(jq -r '.counts.warning >= 1 and .counts.soft_lockup >= 1' <<<"$k")" true \
	"counted by kind: a warning and a soft lockup (not a BUG)"
like "$(jq -r '.lines[]' <<<"$k")" "WARNING: CPU: 0 PID: 1 at $M" "the first lines are kept"

"$FLEETMARK" report "$D" >"$WORK/report.txt" 2>&1
like "$(cat "$WORK/report.txt")" "Kernel log: 2 trials during which the kernel reported trouble" \
	"the report has the kernel log table, one row per trial"
like "$(grep 'soft_lockup' "$WORK/report.txt")" "warning [0-9]+, soft_lockup [0-9]+ +WARNING: CPU: 0" \
	"with the counts and the first line"
"$FLEETMARK" report "$D" -F json >"$WORK/report.json" 2>&1
is "$(jq '[.[] | select(.table == "kernel")] | length > 0' "$WORK/report.json")" true "in JSON too"

# Against the quiet run: new kinds are marked.
"$FLEETMARK" compare "$Q" "$D" >"$WORK/cmp.txt" 2>&1
like "$(cat "$WORK/cmp.txt")" "NEW: a kind the baseline never showed" "compare marks what is new"
like "$(grep 'soft_lockup' "$WORK/cmp.txt" | head -1)" "NEW\$" "on the row"

# The bench user cannot read the kernel log here: said, and nothing breaks.
if [ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ]; then
	"$FLEETMARK" run "$WORK/quiet.yaml" -f "$L/fleet-bench.yaml" -H lab-01 -o "$WORK/b" >"$WORK/b.out" 2>&1
	is "$?" 0 "as bench: the run exits 0"
	B=$(run_dir "$WORK/b")
	like "$(jq -r '.kernel_log' "$B/hosts/lab-01.json")" "cannot read /dev/kmsg: Operation not permitted" \
		"env says why the kernel log is not read"
fi

done_testing
