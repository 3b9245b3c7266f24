# tests/lib.sh: TAP helpers shared by the end-to-end scripts.
#
# Source it, call the helpers, end with `done_testing`.  Each script prints
# TAP on stdout; tests/run counts the "ok"/"not ok" lines of every script.
# A script that cannot run here calls `skip_all REASON` (exit 77).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AGENT=${AGENT:-$TOP/agent/fleetmark-agent}
FLEETMARK=${FLEETMARK:-$TOP/fleetmark}
_tap_n=0
_tap_failed=0

# ok COND-EXIT-STATUS DESCRIPTION: record one result.
tap_result() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# check DESCRIPTION CMD...: run CMD, pass when it exits 0.
check() {
	local desc=$1
	shift
	"$@"
	tap_result $? "$desc"
}

# check_fail DESCRIPTION CMD...: pass when CMD exits non-zero.
check_fail() {
	local desc=$1
	shift
	if "$@"; then tap_result 1 "$desc"; else tap_result 0 "$desc"; fi
}

# is GOT WANT DESCRIPTION: string equality, with a diagnostic on failure.
is() {
	if [ "$1" = "$2" ]; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
	fi
}

# like GOT REGEX DESCRIPTION: extended-regex match.
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		printf '#   got:  %s\n#   want match: %s\n' "$(printf '%s' "$1" | head -c 400)" "$2"
	fi
}

diag() { printf '# %s\n' "$*"; }

skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }

skip_all() {
	echo "1..0 # SKIP $*"
	exit 77
}

# need_root: skip the whole script without root or network namespaces.
need_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces)"
	ip netns list >/dev/null 2>&1 || skip_all "no network namespace support (ip netns)"
}

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
