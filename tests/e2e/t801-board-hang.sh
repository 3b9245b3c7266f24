#!/usr/bin/env bash
# t801-board-hang: a board that hangs in the middle of a trial (its VM
# stopped through QMP, tests/lab/qemu-board stop) is found within the
# trial's deadline plus the silence limit, power-cycled (system_reset and
# cont), waited for and deployed to again; the trial in flight is hang,
# the next one runs ok.  Then the same with recover: 0: the host fails as
# it always did (agent-lost, the rest connect), and is not cycled.  The
# plan's tuning profile is applied again after the power cycle.
# cost: 100 s, busy

set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
use_board t801

cat >"$WORK/plan.yaml" <<'PLAN'
name: t801-hang
order: sequential
repeat: 1
samples: 1
timeout: 30s
tune: performance
benchmarks:
  - bench: exec
    params:
      command: "sleep 5"
  - bench: lat_syscall
  - bench: exec
    params:
      command: "cat /proc/sys/kernel/randomize_va_space >>/tmp/t801-aslr"
PLAN
SILENCE=6
# The board freezes 2 s into the first trial (RES's run marks each trial's
# start in its console log).
freeze() {
	local i
	for i in $(seq 1200); do
		grep -qs '^=== fleetmark .*: trial t1 ' "$1"/*/logs/"$BOARD".console && break
		sleep 0.1
	done
	sleep 2
	date +%s.%N >"$WORK/frozen"
	"$QB" stop "$BOARD"
}
# frozen_run FLEET SUFFIX: the plan on FLEET into $WORK/resSUFFIX (output
# into outSUFFIX, errSUFFIX), the board frozen in its first trial; sets rc.
frozen_run() {
	local fpid
	freeze "$WORK/res$2" &
	fpid=$!
	FLEETMARK_SILENCE_MS=$((SILENCE * 1000)) timeout 600 "$FLEETMARK" run -f "$1" \
		-o "$WORK/res$2" "$WORK/plan.yaml" >"$WORK/out$2" 2>"$WORK/err$2"
	rc=$?
	wait "$fpid"
}
frozen_run "$BFLEET" ""
is "$rc" 3 "the run exits 3"
diag "$(grep -o 'lost (nothing from the agent for [0-9]* s\|back after [0-9.]* s' "$WORK/err" | tr '\n' ' ')"
D=$(run_dir "$WORK/res")
T=$D/trials.jsonl
is "$(jq -r '[.bench, .status] | join(" ")' "$T" | tr '\n' ',')" "exec hang,lat_syscall ok,exec ok,exec ok," \
	"the frozen trial is hang, the next ones ok (exec has two metrics)"
like "$(jq -r 'select(.status == "hang") | .message' "$T")" "nothing from the agent for $SILENCE s" \
	"found by the silence limit"
cycled=$(jq -r --arg h "$BOARD" '.hosts[$h].board[0].time' "$D/run.json")
frozen=$(cut -d. -f1 "$WORK/frozen")
lag=$(( $(date -d "$cycled" +%s) - frozen ))
diag "power-cycled $lag s after the freeze (deadline 30 s + margin, silence $SILENCE s)"
check "found within the trial's deadline plus the silence limit" test "$lag" -le $((30 + 30 + SILENCE))
check "found by the silence limit, not the deadline" test "$lag" -le $((SILENCE + 5))
is "$(jq -r --arg h "$BOARD" '.hosts[$h] | [.status, (.board | map(.event) | join("+"))] | join(" ")' "$D/run.json")" \
	"done power-cycle+recovered" "run.json: power-cycled and recovered"
check "the board runs again" "$QB" ssh "$BOARD" true
# The reboot undid the tuning profile: it is applied again before the
# remaining trials, which see ASLR off, and put back at the end.
is "$("$QB" ssh "$BOARD" cat /tmp/t801-aslr | sort -u)" 0 "after the power cycle the trials run tuned again (ASLR off)"
is "$(jq -r '.sysctl["kernel.randomize_va_space"]' "$D/hosts/$BOARD.json")" 0 \
	"... and the host's facts are read again under the profile"
is "$("$QB" ssh "$BOARD" cat /proc/sys/kernel/randomize_va_space)" 2 "... and ASLR is on again after the run"

# recover: 0 -- the host fails as it always did.
sed 's/recover: 2/recover: 0/' "$BFLEET" >"$WORK/fleet0.yaml"
frozen_run "$WORK/fleet0.yaml" 0
is "$rc" 3 "recover: 0: the run exits 3"
D0=$(run_dir "$WORK/res0")
is "$(jq -r '.status' "$D0/trials.jsonl" | tr '\n' ',')" "agent-lost,connect,connect," \
	"recover: 0: agent-lost and connect, as without power:"
is "$(jq -r --arg h "$BOARD" '.hosts[$h] | [.status, (.board // [] | length)] | join(" ")' "$D0/run.json")" \
	"failed 0" "recover: 0: failed, never cycled"
like "$(jq -r 'select(.status == "agent-lost") | .message' "$D0/trials.jsonl")" "host hung or unreachable" \
	"the reason says the host hung"
"$QB" kill "$BOARD"
is "$(procs_with_mark FLEETMARK_BOARD_MARK)" "" "nothing left running"
done_testing
