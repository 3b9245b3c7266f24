#!/usr/bin/env bash
# t303-jump-procs: no process fleetmark starts to reach a host outlives it.
#
# A ProxyJump loop in ssh_config (loopA jumps through loopB, loopB through
# loopA) is refused by `hosts --check` within 10 s with a message that
# names it, before any ssh starts; a ProxyCommand that hangs (a shell
# running `sleep 77`) is ended with everything it started at the connect
# timeout, for `hosts --check` and for `run`, and when fleetmark itself is
# ended by SIGTERM.  After each case no process whose command line names
# this test's directory, or whose environment carries its mark, is left.
# No lab host is contacted (the loop ends before any connection, the hung
# proxy never connects), but it needs root: fleetmark runs in a pids
# cgroup of the test's own (at most 200 tasks), so that a regression that
# multiplies ssh processes stays small; leftovers are stopped and killed
# by pid.  Costs about 9 s here.
# cost: 8 s, busy
# shellcheck disable=SC2317 # functions called through the EXIT trap
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a pids cgroup)"

WORK=$(mktemp -d /tmp/t303.XXXXXX)
MARK=T303_MARK_$$

# A pids cgroup for fleetmark and all it starts: v2 when mounted so, else v1.
if grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/t303-$$
else
	CG=/sys/fs/cgroup/pids/t303-$$
fi
if ! mkdir "$CG" 2>/dev/null; then
	rm -rf "$WORK"
	skip_all "cannot make a pids cgroup at $CG"
fi
if ! echo 200 >"$CG/pids.max"; then
	rmdir "$CG"
	rm -rf "$WORK"
	skip_all "cannot limit the pids of $CG"
fi

# leftovers: the pids of processes that name $WORK or carry the mark (the
# glob is taken before grep starts, so grep does not find itself).
leftovers() {
	{
		grep -lsF -- "$WORK/" /proc/[0-9]*/cmdline
		grep -lszx -- "$MARK=1" /proc/[0-9]*/environ
	} | awk -F/ -v me=$$ '$3 != me && !seen[$3]++ { printf "%s ", $3 }'
}
# sweep: stop every leftover, then kill it, until none is left (bounded).
sweep() {
	local i pids
	for ((i = 0; i < 100; i++)); do
		pids=$(leftovers)
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086 # a list of pids
		kill -STOP $pids 2>/dev/null
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
		sleep 0.05
	done
}
cleanup() {
	local p i
	sweep
	while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$CG/cgroup.procs" 2>/dev/null
	# A killed task leaves the cgroup once reaped: a few tries.
	for ((i = 0; i < 40; i++)); do rmdir "$CG" 2>/dev/null && break; sleep 0.05; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# in_cg CMD...: CMD in the cgroup, with the mark in its environment; run
# in the background, its $! is CMD's own pid.
in_cg() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	env "$MARK=1" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' in_cg "$CG" "$@"
}
# shellcheck disable=SC2016 # expanded by the inner shell
in_cg_exec() { exec env "$MARK=1" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' in_cg "$CG" "$@"; }
# none_left WHAT: no leftover within a second; the leftovers are killed.
none_left() {
	local pids n
	wait_for 10 test -z "$(leftovers)"
	pids=$(leftovers)
	n=$(echo "$pids" | wc -w)
	[ "$n" -eq 0 ] || diag "$n left: $(for p in $pids; do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done 2>/dev/null | sort | uniq -c | sort -rn | head -3)"
	is "$n" 0 "$1: no process is left behind"
	sweep
}

cat >"$WORK/sshcfg" <<CFG
Host c
  ProxyJump loopA
Host loopA
  HostName 127.0.0.1
  Port 9
  ProxyJump loopB
Host loopB
  HostName 127.0.0.1
  Port 9
  ProxyJump loopA
Host hung
  HostName 198.18.0.1
  ProxyCommand /bin/sh -c 'sleep 77; :'
CFG
cat >"$WORK/fleet.yaml" <<YAML
defaults:
  ssh_config: $WORK/sshcfg
  known_hosts: $WORK/known_hosts
  host_key_check: no
  connect_timeout: 2s
hosts:
  c:
    address: c
  hung:
    address: hung
YAML

# --- a ProxyJump loop --------------------------------------------------------------

t0=$(date +%s%N)
in_cg timeout -s KILL 20 "$FLEETMARK" hosts --check -f "$WORK/fleet.yaml" -H c >"$WORK/loop.out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
diag "loop: exit $rc after $ms ms: $(grep -v '^HOST' "$WORK/loop.out" | head -2 | tr '\n' ' ')"
ok_fast=1
[ "$rc" -ne 0 ] && [ "$rc" -ne 137 ] && [ "$ms" -lt 10000 ] && ok_fast=0
tap_result "$ok_fast" "a ProxyJump loop fails hosts --check within 10 s (exit $rc, $ms ms)"
like "$(tr '\n' ' ' <"$WORK/loop.out")" "ProxyJump loop in ssh_config $WORK/sshcfg: c -> loopA -> loopB -> loopA" \
	"... with a message that names the loop"
none_left "the loop"

# --- a ProxyCommand that hangs ------------------------------------------------------

in_cg timeout -s KILL 20 "$FLEETMARK" hosts --check -f "$WORK/fleet.yaml" -H hung >"$WORK/hung.out" 2>&1
rc=$?
like "$rc $(tr '\n' ' ' <"$WORK/hung.out")" "^3 .*timed out" "a hung ProxyCommand is a timeout for hosts --check"
none_left "hosts --check through a hung ProxyCommand"

plan_syscall "$WORK/plan.yaml" t303 1 1
in_cg timeout -s KILL 30 "$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/fleet.yaml" -H hung \
	-o "$WORK/results" >"$WORK/run.out" 2>&1
rc=$?
like "$rc $(tr '\n' ' ' <"$WORK/run.out")" "^[1-9][0-9]* .*hung" "run fails on the hung host"
none_left "run through a hung ProxyCommand"

# --- fleetmark itself ended ----------------------------------------------------------

sed -i 's/connect_timeout: 2s/connect_timeout: 30s/' "$WORK/fleet.yaml"
in_cg_exec "$FLEETMARK" hosts --check -f "$WORK/fleet.yaml" -H hung >"$WORK/term.out" 2>&1 &
pid=$!
# sleeping: a leftover that runs `sleep 77`, started through the ProxyCommand.
sleeping() {
	local p
	for p in $(leftovers); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^sleep 77' && return 0
	done
	return 1
}
wait_for 50 sleeping
kill -TERM "$pid"
wait "$pid"
rc=$?
is "$rc" 143 "fleetmark ended by SIGTERM dies of it"
none_left "fleetmark ended by SIGTERM"

done_testing
