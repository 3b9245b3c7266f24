#!/usr/bin/env bash
# t800-board-panic: a trial that panics a real kernel (a qemu board,
# tests/lab/qemu-board).  The second of three trials writes c to
# /proc/sysrq-trigger: the panic must be in logs/NAME.console and in the
# trial's reason, the trial is hang (infrastructure), the board is
# power-cycled (QMP system_reset) and comes back, the third trial runs ok,
# the run exits 3, run.json's host says what happened, the report quotes
# the console, and nothing fleetmark started is left running.
# cost: 30 s, busy

set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
use_board t800

cat >"$WORK/plan.yaml" <<'PLAN'
name: t800-panic
order: sequential
repeat: 1
samples: 3
timeout: 20s
benchmarks:
  - bench: lat_syscall
  - bench: exec
    params:
      command: "echo c > /proc/sysrq-trigger"
  - bench: lat_syscall
    params:
      op: read
PLAN

start=$SECONDS
FLEETMARK_SILENCE_MS=8000 timeout 600 "$FLEETMARK" run -f "$BFLEET" -o "$WORK/res" \
	"$WORK/plan.yaml" >"$WORK/out" 2>"$WORK/err"
rc=$?
diag "run took $((SECONDS - start)) s"
diag "$(grep -o 'lost (nothing from the agent for [0-9]* s\|back after [0-9.]* s' "$WORK/err" | tr '\n' ' ')"
is "$rc" 3 "the run exits 3 (a trial failed)"
D=$(run_dir "$WORK/res")
T=$D/trials.jsonl
is "$(jq -r '[.bench, .status] | join(" ")' "$T" | tr '\n' ',')" \
	"lat_syscall ok,exec hang,lat_syscall ok," "the trials: ok, hang, ok (the one after the panic ran)"
is "$(jq -r 'select(.status == "hang") | .kind' "$T")" infrastructure "hang is an infrastructure failure"
like "$(jq -r 'select(.status == "hang") | .message' "$T")" \
	'console: .*sysrq: Trigger a crash.*Kernel panic - not syncing' "the reason quotes the console's panic"
C=$D/logs/$BOARD.console
check "logs/$BOARD.console exists" test -s "$C"
check "the console log has the panic" grep -q 'Kernel panic - not syncing: sysrq triggered crash' "$C"
is "$(grep -c '^=== fleetmark .*: trial t[0-9]' "$C")" 3 "each trial's start is marked in the console log"
check "the console log shows the reboot after the cycle" \
	sh -c "sed -n '/power cycle 1 of/,\$p' '$C' | grep -q 'fleetmark-board: up'"
is "$(jq -r --arg h "$BOARD" '.hosts[$h] | [.status, (.board | map(.event) | join("+"))] | join(" ")' "$D/run.json")" \
	"done power-cycle+recovered" "run.json: the host is done, power-cycled and recovered"
is "$(jq -r --arg h "$BOARD" '.hosts[$h].board[0].trial' "$D/run.json")" t2 "run.json names the trial that hung"
like "$(cat "$WORK/err")" "$BOARD: lost .*power-cycling it \\(1 of 2\\)" "the progress says it power-cycles"
like "$(cat "$WORK/err")" "$BOARD: back after [0-9.]+ s, running its remaining 1 trial" "and that it is back"
like "$(cat "$WORK/out")" "$BOARD +done +2 +1 .*recovered by 1 power cycle" "the host table says recovered"
rep=$("$FLEETMARK" report "$D" 2>/dev/null)
like "$rep" "exec +command=echo c > /proc/sysrq-trigger,copies=1 +hang +nothing from the agent .*Kernel panic" \
	"the report's failures table quotes the console too"
"$QB" ssh "$BOARD" true
check "the board answers after the run" test $? -eq 0
left=$(procs_with_mark FLEETMARK_BOARD_MARK | tr ' ' '\n' | while read -r p; do
	[ -n "$p" ] && [ "$p" != "$(cat "$BDIR/qemu.pid")" ] && ps -o args= -p "$p"; done)
is "$left" "" "nothing fleetmark started is left running (the board's qemu aside)"
"$QB" kill "$BOARD"
is "$(procs_with_mark FLEETMARK_BOARD_MARK)" "" "and the board is off"
done_testing
