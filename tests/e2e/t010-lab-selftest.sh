#!/usr/bin/env bash
# t010-lab-selftest: the test lab (tests/lab/lab) is what it claims to be.
#
# Every host answers over SSH with its architecture as root and as bench,
# lab-inner only through lab-jump, SFTP only where it should, and each
# fault has its effect and is undone by heal.  With $FLEETMARK_LAB set
# (tests/run) the running lab is used and left with every host healed;
# otherwise the test brings up its own lab and checks that `lab down`
# leaves nothing behind.
# cost: 28 s, waiting; lab: all
# shellcheck disable=SC2317 # functions called through check, like and trap
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_root

LAB=$TOP/tests/lab/lab
WORK=$(mktemp -d /tmp/t010.XXXXXX)
own=0
touched=()
cleanup() {
	local h
	if [ "$own" = 1 ]; then
		"$LAB" down >/dev/null 2>&1
	else
		# A shared lab is left as it was found, even after a failed check.
		for h in "${touched[@]}"; do "$LAB" heal "$h" >/dev/null 2>&1; done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

if [ -n "${FLEETMARK_LAB:-}" ]; then
	export FLEETMARK_LAB_DIR=$FLEETMARK_LAB
else
	own=1
	export FLEETMARK_LAB_DIR=${FLEETMARK_LAB_DIR:-/run/fleetmark-lab}
	if ! "$LAB" up >"$WORK/up.log" 2>&1; then
		sed 's/^/# /' "$WORK/up.log"
		echo "Bail out! lab up failed"
		exit 1
	fi
fi
D=$FLEETMARK_LAB_DIR
diag "lab at $D"

SSH=(timeout 60 ssh -F "$D/ssh_config" -o BatchMode=yes)
# Fault checks wait 3 s for a connection.
SSH3=(timeout 30 ssh -F "$D/ssh_config" -o BatchMode=yes -o ConnectTimeout=3)

mapfile -t HOSTS < <("$LAB" hosts)
LABS=()
for h in "${HOSTS[@]}"; do [[ $h == lab-[0-9]* ]] && LABS+=("$h"); done
hosts_ok() { [ ${#LABS[@]} -ge 1 ] && has_host lab-db && has_host lab-jump && has_host lab-inner; }
check "lab hosts lists lab servers, lab-db, lab-jump and lab-inner" hosts_ok

# Without root, `lab up` gives one line of reason (and tests skip).
if command -v setpriv >/dev/null && setpriv --reuid 65534 --regid 65534 --clear-groups test -x "$LAB"; then
	out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$LAB" up 2>&1)
	like "$? $(printf '%s\n' "$out" | wc -l) $out" '^1 1 lab: needs root' "lab up as a user fails with one line of reason"
else
	skip "lab up as a user" "nobody cannot run $LAB here"
fi

# --- the state directory ---------------------------------------------------

files_ok() {
	local f
	for f in fleet.yaml fleet-bench.yaml known_hosts ssh_config id_ed25519 id_ed25519.pub; do
		[ -s "$D/$f" ] || { diag "missing $D/$f"; return 1; }
	done
}
check "state directory has the inventories, known_hosts, ssh_config and key" files_ok

inventory_ok() {
	local h
	for h in "${HOSTS[@]}"; do
		grep -qx "  $h:" "$D/fleet.yaml" || { diag "$h not in fleet.yaml"; return 1; }
	done
	grep -A4 -x '  lab-inner:' "$D/fleet.yaml" | grep -q 'proxy_jump: root@' &&
		grep -qx '  host_key_check: yes' "$D/fleet.yaml" &&
		grep -qx "  identity: $D/id_ed25519" "$D/fleet.yaml"
}
check "fleet.yaml names every host, lab-inner behind a proxy_jump" inventory_ok
is "$(diff "$D/fleet.yaml" "$D/fleet-bench.yaml" | grep '^[<>]')" \
	"$(printf '<   user: root\n>   user: bench')" "fleet-bench.yaml differs from fleet.yaml only in the default user"
is "$(wc -l <"$D/known_hosts")" "${#HOSTS[@]}" "known_hosts has one key per host"

# --- every host, as root and as bench ---------------------------------------

expect_arch() {
	case $1 in
	board-armhf) echo armv7l ;;
	board-s390x) echo s390x ;;
	*) uname -m ;;
	esac
}

# Logins run four at a time; their answers are checked in order below.
login() { # TAG USER HOST COMMAND
	local tag=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
	{
		"${SSH[@]}" "$1@$2" "$3" >"$WORK/$tag.out" 2>"$WORK/$tag.err"
		echo $? >"$WORK/$tag.rc"
	} &
}
for h in "${HOSTS[@]}"; do
	case $h in
	board-*)
		# shellcheck disable=SC2016 # expanded on the board
		login "root-$h" root "$h" 'uname -m; for c in cc gcc tcc clang sftp-server sudo; do command -v $c; done; echo end'
		login "bench-$h" bench "$h" 'uname -m; id -un'
		;;
	*)
		login "root-$h" root "$h" 'uname -m; hostname'
		login "bench-$h" bench "$h" 'uname -m; id -un; sudo -n true && echo sudo-ok'
		;;
	esac
done
wait
for h in "${HOSTS[@]}"; do
	want=$(expect_arch "$h")
	case $h in
	board-*)
		is "$(cat "$WORK/root-$h.out")" "$(printf '%s\nend' "$want")" "$h: root gets $want, and no compiler, sftp-server or sudo"
		is "$(cat "$WORK/bench-$h.out")" "$(printf '%s\nbench' "$want")" "$h: bench gets $want"
		;;
	*)
		is "$(cat "$WORK/root-$h.out")" "$(printf '%s\n%s' "$want" "$h")" "$h: root gets $want and the host's own hostname"
		is "$(cat "$WORK/bench-$h.out")" "$(printf '%s\nbench\nsudo-ok' "$want")" "$h: bench gets $want and sudo -n works"
		;;
	esac
	[ "$(cat "$WORK/root-$h.rc")" = 0 ] || diag "$h: $(head -3 "$WORK/root-$h.err")"
done

# --- the bastion --------------------------------------------------------------

inner=$(awk '/^Host lab-inner$/ { f = 1 } f && $1 == "HostName" { print $2; exit }' "$D/ssh_config")
jump=$(awk '/^Host lab-jump$/ { f = 1 } f && $1 == "HostName" { print $2; exit }' "$D/ssh_config")
is "$("${SSH[@]}" -o ProxyJump="root@$jump" "root@$inner" hostname 2>&1)" lab-inner \
	"lab-inner answers through ProxyJump root@$jump"
out=$("${SSH3[@]}" -o ProxyJump=none "root@$inner" true 2>&1)
rc=$?
like "$rc $out" '^255 .*(No route to host|timed out|unreachable)' "lab-inner ($inner) is not reachable directly"
check_fail "no TCP connection to lab-inner from here" timeout 5 bash -c "exec 3<>/dev/tcp/$inner/22" 2>/dev/null

# --- SFTP ---------------------------------------------------------------------

sftp_pwd() { echo pwd | timeout 30 sftp -F "$D/ssh_config" -o BatchMode=yes -b - "$1" >/dev/null 2>&1; }
check "${LABS[0]} (OpenSSH) serves SFTP" sftp_pwd "${LABS[0]}"
for h in "${HOSTS[@]}"; do
	[[ $h == lab-db || $h == board-* ]] && check_fail "$h refuses SFTP" sftp_pwd "$h"
done

# --- faults -------------------------------------------------------------------

# fault CMD HOST [ARG...]: inject a fault, remembering the host for cleanup.
fault() {
	touched+=("$2")
	"$LAB" "$@"
}
# pick I: the I-th lab server (wrapping round in a small lab).
pick() { echo "${LABS[$(($1 % ${#LABS[@]}))]}"; }
# attempt HOST: one login with a 3 s connect timeout; sets RC, OUT, MS.
attempt() {
	local t0
	t0=$(date +%s%N)
	OUT=$("${SSH3[@]}" "$1" true 2>&1)
	RC=$?
	OUT=${OUT//$'\n'/ }
	MS=$((($(date +%s%N) - t0) / 1000000))
}
healed() { # HOST
	"$LAB" heal "$1" && "${SSH[@]}" "$1" true
}

h=$(pick 1)
fault partition "$h"
attempt "$h"
like "$RC ${MS}ms $OUT" '^255 [0-9]+ms .*Connection timed out' "partition $h: connect times out"
[ "$MS" -ge 2500 ] && [[ $OUT != *refused* ]]
tap_result $? "partition $h: it waited the 3 s (${MS} ms) and was not refused"
check "heal $h: logins work again" healed "$h"

h=$(pick 2)
fault kill "$h"
attempt "$h"
like "$RC $OUT" '^255 .*Connection refused' "kill $h: connection refused"
check "heal $h: logins work again" healed "$h"

if has_host board-armhf; then
	fault kill board-armhf
	attempt board-armhf
	like "$RC $OUT" '^255 .*Connection refused' "kill board-armhf: connection refused"
	heal_board() {
		healed board-armhf &&
			[ "$("${SSH[@]}" board-armhf 'uname -m; head -c 16 /dev/urandom | wc -c; ls /proc/self/fd >/dev/null && echo proc')" = "$(printf 'armv7l\n16\nproc')" ]
	}
	check "heal board-armhf: back, with /dev and /proc in its root" heal_board
fi

h=$(pick 3)
fault hang "$h"
attempt "$h"
like "$RC ${MS}ms $OUT" '^255 [0-9]+ms .*timed out' "hang $h: login times out"
check "heal $h: logins work again" healed "$h"

h=$(pick 4)
fault reboot "$h" 4
t0=$SECONDS
attempt "$h"
like "$RC $OUT" '^255 .*Connection refused' "reboot $h: down at once"
addr=$(awk -v h="$h" '$1 == "Host" { f = ($2 == h) } f && $1 == "HostName" { print $2; exit }' "$D/ssh_config")
back_after() {
	while [ $((SECONDS - t0)) -lt 30 ]; do
		timeout 3 bash -c "exec 3<>/dev/tcp/$addr/22" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
back_after
rc=$?
took=$((SECONDS - t0))
[ "$rc" -eq 0 ] && [ "$took" -ge 3 ] && [ "$took" -le 30 ]
tap_result $? "reboot $h 4: back after ${took} s (want 3..30)"
check "reboot $h: same host key (strict checking accepts it)" "${SSH[@]}" "$h" true
check "reboot --wait returns once the host is back" "$LAB" reboot "$h" 1 --wait
check "... and it takes logins" "${SSH[@]}" "$h" true

h=$(pick 5)
fault rekey "$h"
attempt "$h"
like "$RC $OUT" '^255 .*REMOTE HOST IDENTIFICATION HAS CHANGED' "rekey $h: strict checking refuses the new key"
check "heal $h: the old key is accepted again" healed "$h"

fault rekey lab-db
attempt lab-db
like "$RC $OUT" '^255 .*REMOTE HOST IDENTIFICATION HAS CHANGED' "rekey lab-db (dropbear): refused"
check "heal lab-db: accepted again" healed lab-db
check "heal lab-db: bench still logs in (its home is mounted again)" "${SSH[@]}" -l bench lab-db true

# 256 KB from a slowed host (1 mbit/s: 2 s) and from a normal one.
fetch_ms() {
	local t0 n
	t0=$(date +%s%N)
	n=$("${SSH[@]}" "$1" 'head -c 262144 /dev/urandom' | wc -c)
	[ "$n" -eq 262144 ] || diag "$1: got $n bytes"
	echo $((($(date +%s%N) - t0) / 1000000))
}
h=$(pick 6)
ref=$(pick 7)
[ "$ref" = "$h" ] && ref=lab-jump
fault slow "$h"
slow=$(fetch_ms "$h")
fast=$(fetch_ms "$ref")
[ $((slow - fast)) -ge 1000 ]
tap_result $? "slow $h: 256 KB take ${slow} ms, ${fast} ms from $ref (want 1 s more)"
"$LAB" heal "$h"
healed_ms=$(fetch_ms "$h")
[ $((slow - healed_ms)) -ge 1000 ]
tap_result $? "heal $h: 256 KB take ${healed_ms} ms again"

st=$("$LAB" status | awk 'NR > 1 && $5 != "up"')
is "$st" "" "lab status: every host up, no fault left"

# --- down leaves nothing ------------------------------------------------------

if [ "$own" = 1 ]; then
	pids=()
	for ns in $(ip netns list | awk '$1 ~ /^fmlab-/ { print $1 }'); do
		mapfile -t -O ${#pids[@]} pids < <(ip netns pids "$ns")
	done
	check "lab down" "$LAB" down
	own=0
	is "$(ip netns list | grep -c '^fmlab-')" 0 "no lab namespace left"
	is "$(ip -o link show | grep -cE ': (fmlab[01]|fm[vw]-)')" 0 "no lab bridge or veth left"
	is "$(grep -cE " ($D|/run/netns/fmlab-)" /proc/self/mountinfo)" 0 "no lab mount left"
	left=''
	for p in "${pids[@]}"; do
		# A killed daemon's zombie may wait a moment for init to reap it.
		[ -d "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] && left="$left $p"
	done
	is "$left" "" "none of the ${#pids[@]} lab processes is left"
	is "$(find /proc/sys/fs/binfmt_misc -maxdepth 1 -name 'fmlab-*' | wc -l)" 0 "no lab binfmt_misc entry left"
	check_fail "state directory removed" test -e "$D"
fi

done_testing
