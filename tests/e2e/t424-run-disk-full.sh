#!/usr/bin/env bash
# t424-run-disk-full: the edges of a full disk and of read-only media, on a
# small tmpfs of the test's own (mounted and unmounted here; needs root).
# With 8 KiB free a run is refused before it starts (exit 1, the disk
# named, no run directory nor temporary directory left), since the room
# for run.json's last write cannot be kept.  A disk that fills up in the
# middle of a run stops it (exit 1) with the disk as the host's reason,
# not "interrupted".  `run --resume` of a finished run on media mounted
# read-only says "nothing left to run" and exits 0.  On this machine (the
# local transport); about 1 s.
# cost: 2 s, busy
# shellcheck disable=SC2317 # functions called through trap and wait_for
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a tmpfs of its own)"
WORK=$(mktemp -d /tmp/t424.XXXXXX)
D=$WORK/disk
mkdir "$D"
mount -t tmpfs -o size=256k,mode=0755 tmpfs "$D" || skip_all "cannot mount a tmpfs"
trap 'kill_noted; umount "$D" 2>/dev/null || umount -l "$D"; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
export FLEETMARK_LEASE_FILE=$WORK/lease

fleet_local "$WORK/fleet.yaml" "$WORK/wd"
plan_syscall "$WORK/p.yaml" sgood 3 3
plan_syscall "$WORK/long.yaml" slong 40 3

avail() { df -B1 --output=avail "$D" | tail -1 | tr -d ' '; }
# fill_to BYTES: a file that leaves BYTES free on the tmpfs.
fill_to() {
	local n
	n=$(($(avail) - $1))
	[ "$n" -le 0 ] || head -c "$n" /dev/zero >>"$D/filler" 2>/dev/null
	sync
}
entries() { find "$D" -mindepth 1 -maxdepth 1 ! -name filler | wc -l; }

# --- 8 KiB free: refused before anything runs ------------------------------------------

fill_to 8192
"$FLEETMARK" run "$WORK/p.yaml" -f "$WORK/fleet.yaml" -o "$D" -q >"$WORK/a.out" 2>"$WORK/a.err"
rc=$?
is "$rc" 1 "8 KiB free: the run is refused (exit 1)"
like "$(cat "$WORK/a.err")" "no room kept for run.json's last write.*(No space left on device|free some space)" \
	"... saying the disk has no room for run.json's last write"
is "$(entries)" 0 "... and leaves no run directory nor temporary directory"
rm -f "$D/filler"

# --- full in the middle of a run: the disk is the reason ---------------------------

"$FLEETMARK" run "$WORK/long.yaml" -f "$WORK/fleet.yaml" -o "$D" -q >"$WORK/b.out" 2>"$WORK/b.err" &
pid=$!
note_pid "$pid"
two_trials() {
	local T
	T=$(find "$D" -mindepth 2 -maxdepth 2 -name trials.jsonl | head -1)
	[ -n "$T" ] && [ "$(wc -l <"$T")" -ge 2 ]
}
check "the run is under way" wait_for 300 two_trials
fill_to 0
wait "$pid"
rc=$?
R=$(run_dir "$D")
is "$rc" 1 "a disk full in the middle of a run: exit 1"
like "$(jq -r '.hosts.local.reason // "-"' "$R/run.json")" "^stopped: cannot write .*trials.jsonl: No space left on device" \
	"run.json: the host's reason is the disk, not \"interrupted\""
like "$(grep '^local ' "$WORK/b.out")" "^local +interrupted .*stopped: cannot write" \
	"the hosts table says so too"
rm -rf "${D:?}"/*

# --- read-only: resume of a finished run -------------------------------------------

"$FLEETMARK" run "$WORK/p.yaml" -f "$WORK/fleet.yaml" -o "$D" -q >"$WORK/c.out" 2>"$WORK/c.err"
is "$?" 0 "a run on the tmpfs finishes"
R=$(run_dir "$D")
mount -o remount,ro "$D"
"$FLEETMARK" run "$WORK/p.yaml" --resume "$R" >"$WORK/r.out" 2>"$WORK/r.err"
rc=$?
is "$rc" 0 "--resume of a finished run on read-only media exits 0"
like "$(cat "$WORK/r.out" "$WORK/r.err")" "nothing left to run" "... saying nothing is left to run"
[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/r.err" | head -3
mount -o remount,rw "$D"

done_testing
