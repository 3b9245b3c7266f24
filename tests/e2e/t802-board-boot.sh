#!/usr/bin/env bash
# t802-board-boot: the boot check on a real kernel (a qemu board).
# `run --expect-kernel` on a board running another kernel command line
# fails the host with class boot and measures nothing; the string that is
# there passes.  bisect-run exits 125, measuring nothing, when after the
# reboot hook the board runs another kernel than the one the install
# hook's FLEETMARK_EXPECT_KERNEL= line asks for, and when the board did not
# reboot at all (boot id unchanged); with the kernel asked for it measures
# (the threshold, 1000%, is above any spread a loaded machine gives
# lat_syscall under TCG, so the verdict can always be made).
# cost: 32 s, busy

set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
use_board t802

cat >"$WORK/plan.yaml" <<'PLAN'
name: t802-boot
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: lat_syscall
PLAN

timeout 300 "$FLEETMARK" run -f "$BFLEET" -o "$WORK/res1" --expect-kernel fm.kernel=wanted \
	"$WORK/plan.yaml" >"$WORK/out1" 2>"$WORK/err1"
is "$?" 3 "run --expect-kernel on another kernel exits 3"
D=$(run_dir "$WORK/res1")
is "$(jq -r '.status' "$D/trials.jsonl" | sort -u)" boot "every trial is boot"
is "$(jq -r 'select(.value != null) | .bench' "$D/trials.jsonl")" "" "nothing measured"
like "$(jq -r --arg h "$BOARD" '.hosts[$h].reason' "$D/run.json")" \
	"^boot: the running kernel is not the one asked for: 'fm.kernel=wanted' is not in" \
	"the host's reason says which kernel runs"

timeout 300 "$FLEETMARK" run -f "$BFLEET" -o "$WORK/res2" --expect-kernel panic=0 \
	"$WORK/plan.yaml" >"$WORK/out2" 2>"$WORK/err2"
is "$?" 0 "run --expect-kernel with a string of /proc/cmdline measures (exit 0)"

# bisect-run: the install hook asks for a kernel the reboot does not give.
B=(bisect-run "$WORK/plan.yaml" -f "$BFLEET" -H "$BOARD" -o "$WORK/bres"
	--metric lat_syscall.latency --good 1000000 --threshold 1000% --wait 300s --tries 1)
timeout 400 "$FLEETMARK" "${B[@]}" --install 'echo building; echo FLEETMARK_EXPECT_KERNEL=fm.kernel=wanted' \
	--reboot "$QB cycle $BOARD" >"$WORK/bout1" 2>"$WORK/berr1"
is "$?" 125 "bisect-run: another kernel after the reboot: 125"
like "$(cat "$WORK/bout1")" "skip: boot: $BOARD: the running kernel is not the one asked for" \
	"it says so"
check "the install hook's output is passed on" grep -qx building "$WORK/bout1"
is "$(find "$WORK/bres" -name trials.jsonl 2>/dev/null | wc -l)" 0 "nothing was measured"

timeout 400 "$FLEETMARK" "${B[@]}" --expect-kernel panic=0 --reboot true \
	>"$WORK/bout2" 2>"$WORK/berr2"
is "$?" 125 "bisect-run: a reboot hook that did not reboot: 125"
like "$(cat "$WORK/bout2")" "skip: boot: $BOARD: the host did not reboot \\(boot id .* unchanged\\)" \
	"it says the boot id did not change"

timeout 400 "$FLEETMARK" "${B[@]}" \
	--install "$QB append $BOARD fm.kernel=wanted && echo FLEETMARK_EXPECT_KERNEL=fm.kernel=wanted" \
	--reboot "$QB cycle $BOARD" >"$WORK/bout3" 2>"$WORK/berr3"
is "$?" 0 "bisect-run: the kernel asked for: measured, good"
check "the board runs that command line" sh -c "'$QB' ssh '$BOARD' cat /proc/cmdline | grep -q fm.kernel=wanted"
"$QB" kill "$BOARD"
is "$(procs_with_mark FLEETMARK_BOARD_MARK)" "" "nothing left running"
done_testing
