#!/usr/bin/env bash
# t425-lease-trust: what another user on a host can do to the host's lease
# file.  A new lease file is mode 0644: only its owner writes the holder
# line.  A hard link planted at its path (to a file of root's here) is not
# used, and the file it points to is left as it was; the run goes on
# without a lease and says so.  A file another user made, with a holder
# line of their choosing, is not taken when free (left as it is, the run
# unleased and saying why), and when that user holds its lock, the run's
# host fails locked with the file's owner named: its holder line may be
# forged.  On this machine (the local transport, root); about 1 s.
# cost: 2 s, busy
# shellcheck disable=SC2317 # functions called through trap and wait_for
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_command run
need_tools jq
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a file of another user)"
need_tools setpriv flock
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
WORK=$(mktemp -d /tmp/t425.XXXXXX)
chmod 0755 "$WORK"
trap 'kill_noted; rm -rf "$WORK"' EXIT
cd "$TOP" || exit 1
L=$WORK/lease
export FLEETMARK_LEASE_FILE=$L
NOBODY=$(id -u nobody)

fleet_local "$WORK/fleet.yaml" "$WORK/wd"
plan_syscall "$WORK/p.yaml" trust 1 3
FORGED='{"type":"lease","owner":"root@desk","run":"20011130-020000-forged-0000","since":1007085600,"pid":1}'

run() { "$FLEETMARK" run "$WORK/p.yaml" -f "$WORK/fleet.yaml" -o "$WORK/$1" >"$WORK/$1.out" 2>"$WORK/$1.err"; }

run a
is "$?" 0 "a run on a host without a lease file"
is "$(stat -c %a "$L")" 644 "the lease file it made is mode 0644"
rm -f "$L"

# a hard link to another file at the lease's path
printf 'precious\n' >"$WORK/victim"
ln "$WORK/victim" "$L"
run b
is "$?" 0 "a hard link at the lease's path: the run goes on"
is "$(cat "$WORK/victim")" precious "... and the linked file is left as it was"
like "$(cat "$WORK/b.err")" "no lease kept: .*not a plain file with one link" "... saying why no lease is kept"
rm -f "$L"

# another user's file with a holder line of their choosing
printf '%s\n' "$FORGED" >"$L"
chown nobody "$L"
chmod 0644 "$L"
run c
is "$?" 0 "another user's lease file, free: the run goes on"
is "$(cat "$L")" "$FORGED" "... the file is not taken"
like "$(cat "$WORK/c.err")" "no lease kept: .*belongs to uid $NOBODY, neither root nor this user" \
	"... saying whose file it is"

# its own process group (setsid), ended as a whole below
setsid setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups flock -x "$L" sleep 10 &
holder=$!
note_pid "$holder"
locked() { ! flock -n "$L" true; }
check "that user holds its lock" wait_for 50 locked
run d
rc=$?
C=$(run_dir "$WORK/d")
is "$rc" 3 "... held: the host fails (exit 3)"
like "$(jq -r '.hosts.local.reason' "$C/run.json")" \
	"^locked: locked by root@desk .*the lease file belongs to uid $NOBODY, neither root nor the login user" \
	"... locked, with the file's owner named beside the holder line it claims"
kill -- -"$holder" 2>/dev/null
wait "$holder" 2>/dev/null

done_testing
