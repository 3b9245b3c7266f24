# tests/lib.sh: TAP helpers shared by the end-to-end scripts.
# shellcheck shell=bash
#
# Source it, call the helpers, end with `done_testing`.  Each script prints
# TAP on stdout; tests/run counts the "ok"/"not ok" lines of every script.
# A script that cannot run here calls `skip_all REASON` (exit 77).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AGENT=${AGENT:-$TOP/build/fleetmark-agent}
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
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

# check DESCRIPTION CMD...: run CMD, pass when it exits 0.  CMD's stdout
# goes to stderr so it cannot be mistaken for TAP.
check() {
	local desc=$1
	shift
	"$@" >&2
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
		# Every line of a value that has several stays a TAP comment.
		printf '%s\n' "$1" | sed -e '1s/^/#   got:  /' -e '2,$s/^/#         /'
		printf '%s\n' "$2" | sed -e '1s/^/#   want: /' -e '2,$s/^/#         /'
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
	[ -z "${FLEETMARK_NO_LAB:-}" ] || skip_all "FLEETMARK_NO_LAB is set"
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces)"
	ip netns list >/dev/null 2>&1 || skip_all "no network namespace support (ip netns)"
}

# The preamble: what a script needs before its first check.  A tool or a
# build that is missing here skips the script; a controller without a
# command the script drives is a broken build and bails out.

# need_tools TOOL...: skip the whole script unless each TOOL is on PATH.
need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || skip_all "needs $t"
	done
}

# need_controller: skip the whole script without a built $FLEETMARK.
need_controller() {
	[ -x "$FLEETMARK" ] || skip_all "no controller at $FLEETMARK (run make)"
}

# need_agent: skip the whole script without a built $AGENT.
need_agent() {
	[ -x "$AGENT" ] || skip_all "no agent at $AGENT (run make)"
}

# need_command NAME...: bail out unless $FLEETMARK has each subcommand NAME
# (`fleetmark help NAME` answers): a build without it is broken, not a
# machine without a tool.
need_command() {
	local c
	for c in "$@"; do
		"$FLEETMARK" help "$c" >/dev/null 2>&1 ||
			{ echo "Bail out! $FLEETMARK has no \`$c\` command"; exit 1; }
	done
}

# need_lab TOOL...: the preamble of a script that drives the lab: skip
# without root or network namespaces (need_root) and without each TOOL.
# It comes first, so that FLEETMARK_NO_LAB=1 skips the script before
# anything else is judged; `use_lab NAME` then brings the lab in.
need_lab() {
	need_root
	need_tools "$@"
}

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# Processes still alive whose environment carries MARK with the value it
# has here (1 when it is not set; children inherit it), so a test can
# prove nothing it started outlived it.  Prints the pids on one line; call
# it directly in $(...), not in a pipeline (the other commands of a
# pipeline carry the mark too).
procs_with_mark() {
	# The scan runs without the mark, and skips this script and its subshell.
	# shellcheck disable=SC2016 # expanded by the inner shell
	env -u "$1" bash -c '
		for d in /proc/[0-9]*; do
			p=${d#/proc/}
			[ "$p" = "$2" ] || [ "$p" = "$3" ] || [ "$p" = "$$" ] && continue
			{ tr "\0" "\n" <"$d/environ"; } 2>/dev/null | grep -qxF "$1=$4" && printf "%s " "$p"
		done
		exit 0' scan "$1" "$$" "$BASHPID" "${!1:-1}"
}

# jq_all FILE: every line of FILE is a JSON object.
jq_all() {
	jq -e -c 'type == "object"' "$1" >/dev/null 2>&1 && [ -s "$1" ] &&
		[ "$(jq -c . "$1" 2>/dev/null | wc -l)" -eq "$(wc -l <"$1")" ]
}

# lines_ok FILE TYPE EXPR: FILE holds at least one line of TYPE and every
# such line satisfies the jq expression EXPR.  (jq -e over several inputs
# judges only the last output, so the file is slurped.)
lines_ok() {
	jq -e -s --arg t "$2" "[.[] | select(.type == \$t)] | length > 0 and all($3)" "$1" >/dev/null 2>&1
}

# use_lab NAME: a lab for this test.  With $FLEETMARK_LAB (tests/run) that
# lab is used and every host passed to `fault` is healed at exit; otherwise
# a lab of the test's own is brought up and torn down at exit.  Sets LAB
# (the lab command), LABDIR (its state directory: fleet.yaml, known_hosts,
# ...), WORK (a scratch directory removed at exit) and HOSTS (the host
# names).  `fault CMD HOST [ARGS]` runs a lab fault command and remembers
# the host for healing.  Calls need_root first.
use_lab() {
	need_root
	LAB=$TOP/tests/lab/lab
	WORK=$(mktemp -d "/tmp/$1.XXXXXX")
	_lab_own=0
	_lab_touched=()
	trap _lab_cleanup EXIT
	if [ -n "${FLEETMARK_LAB:-}" ]; then
		export FLEETMARK_LAB_DIR=$FLEETMARK_LAB
	else
		_lab_own=1
		export FLEETMARK_LAB_DIR=${FLEETMARK_LAB_DIR:-/run/fleetmark-lab}
		if ! "$LAB" up >"$WORK/up.log" 2>&1; then
			sed 's/^/# /' "$WORK/up.log"
			echo "Bail out! lab up failed"
			exit 1
		fi
	fi
	LABDIR=$FLEETMARK_LAB_DIR
	mapfile -t HOSTS < <("$LAB" hosts)
	if [ "${#HOSTS[@]}" -lt 3 ] || [ ! -s "$LABDIR/fleet.yaml" ]; then
		echo "Bail out! no lab at $LABDIR"
		exit 1
	fi
	diag "lab at $LABDIR, fleetmark $FLEETMARK"
}

# shellcheck disable=SC2317 # called through the EXIT trap
_lab_cleanup() {
	local h
	if [ "$_lab_own" = 1 ]; then
		"$LAB" down >/dev/null 2>&1
	else
		for h in "${_lab_touched[@]}"; do "$LAB" heal "$h" >/dev/null 2>&1; done
	fi
	rm -rf "$WORK"
}

fault() {
	_lab_touched+=("$2")
	"$LAB" "$@"
}

# has_host NAME: the lab has that host.
has_host() { printf '%s\n' "${HOSTS[@]}" | grep -qx "$1"; }

# logins HOST: successful logins the host's server has logged so far.
logins() {
	grep -cE 'Accepted publickey|Pubkey auth succeeded' "$LABDIR/hosts/$1/sshd.log" 2>/dev/null
}
declare -A BEFORE
count_before() { local h; for h in "${HOSTS[@]}"; do BEFORE[$h]=$(logins "$h"); done; }
# login_deltas: "host:n" for each host, n new logins since count_before.
login_deltas() {
	local h out=''
	for h in "${HOSTS[@]}"; do out="$out $h:$(($(logins "$h") - BEFORE[$h]))"; done
	echo "${out# }"
}
# What one login per host looks like (lab-jump also carries lab-inner's).
want_deltas() {
	local h out='' n
	for h in "${HOSTS[@]}"; do
		n=1
		[ "$h" = lab-jump ] && has_host lab-inner && n=2
		out="$out $h:$n"
	done
	echo "${out# }"
}

# on_host HOST CMD...: CMD in a root shell on a lab host (no stdin, stderr
# dropped).
on_host() { local h=$1; shift; "$LAB" ssh "$h" "$@" </dev/null 2>/dev/null; }

# The stand-in for a sysfs tunable that the fault tests give a variant to
# write: the file $TUNABLE (in the hosts' own /tmp) on the hosts of the
# array TUNABLE_HOSTS.  tunable_reset: it holds "old" on each;
# tunable_restored: it holds "old" again on each (the others are named);
# tunable_remove: gone (for an EXIT trap).
tunable_reset() {
	local h
	for h in "${TUNABLE_HOSTS[@]}"; do on_host "$h" "printf 'old\n' > $TUNABLE; chmod 644 $TUNABLE"; done
}
tunable_restored() {
	local h v bad=''
	for h in "${TUNABLE_HOSTS[@]}"; do v=$(on_host "$h" "cat $TUNABLE"); [ "$v" = old ] || bad="$bad $h:$v"; done
	[ -z "$bad" ] || diag "not restored:$bad"
	[ -z "$bad" ]
}
tunable_remove() { local h; for h in "${TUNABLE_HOSTS[@]}"; do on_host "$h" "rm -f $TUNABLE"; done; }

# run_dir OUTDIR: the one run directory `fleetmark run -o OUTDIR` made (the
# first, when there are more; hidden ones, such as a partial push's, are
# not runs); empty when there is none.
run_dir() { find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | head -1; }

# ok_per_trial FILE: "N M": the distinct counts of ok lines per (host, trial,
# metric), and how many (host, trial) have an ok line.  "1 36" after a
# complete run of 36 trials: exactly one ok line each.
ok_per_trial() {
	echo "$(jq -r 'select(.status == "ok") | [.host, .key, .metric] | join(" ")' "$1" | sort | uniq -c |
		awk '{print $1}' | sort -u | xargs) $(jq -r 'select(.status == "ok") | .host + " " + .key' "$1" | sort -u | wc -l)"
}

# trials_once FILE: "N COUNTS": how many (host, trial) have a line in FILE
# (a trials.jsonl: its first part, whatever the status), and the distinct
# counts of those lines per (host, trial).  "36 1" after a run of 36
# trials, each recorded exactly once however often it was collected.
trials_once() {
	local keys
	keys=$(jq -r 'select(.part == 1) | .host + " " + .key' "$1" | sort)
	echo "$(uniq <<<"$keys" | grep -c .) $(uniq -c <<<"$keys" | awk '{print $1}' | sort -u | xargs)"
}

# plan_syscall FILE NAME REPEAT SAMPLES [COMMAND]: a small plan in FILE:
# lat_syscall's null call, REPEAT times with SAMPLES samples each, and with
# COMMAND an exec of it after each (the slow trials of a detached run).
plan_syscall() {
	{
		printf 'name: %s\nrepeat: %s\nsamples: %s\ntimeout: 60s\nbenchmarks:\n' "$2" "$3" "$4"
		printf '  - bench: lat_syscall\n    params:\n      op: null\n'
		[ -z "${5:-}" ] || printf '  - bench: exec\n    params:\n      command: "%s"\n' "$5"
	} >"$1"
}

# fleet_local FILE WORKDIR [YAML]: an inventory in FILE of this machine,
# host "local" (the local transport, its work directory WORKDIR), and the
# hosts YAML adds (lines indented as under `hosts:`).
fleet_local() {
	printf 'hosts:\n  local:\n    transport: local\n    workdir: %s\n' "$2" >"$1"
	[ -z "${3:-}" ] || printf '%s\n' "$3" >>"$1"
}

# wait_for TENTHS CMD...: run CMD every tenth of a second until it exits 0,
# TENTHS times at most; CMD's last exit status.
wait_for() {
	local n=$1 i
	shift
	for ((i = 1; ; i++)); do
		"$@" && return 0
		[ "$i" -lt "$n" ] || return 1
		sleep 0.1
	done
}

# Processes a test started that may outlive a failed check (a detached
# agent, a lock holder): note_pid PID remembers one in $WORK/pids, and
# kill_noted (for the EXIT trap, before WORK goes) SIGKILLs each, by its
# pid.  detached_pid RUNDIR HOST prints the pid of HOST's detached agent
# (run.json) and notes it.
note_pid() { echo "$1" >>"$WORK/pids"; }
kill_noted() {
	local p
	[ -e "$WORK/pids" ] || return 0
	while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$WORK/pids"
}
detached_pid() {
	local pid
	pid=$(jq -r --arg h "$2" '.hosts[$h].detached.pid' "$1/run.json")
	note_pid "$pid"
	echo "$pid"
}

# run_fm NAME ARGS...: $FLEETMARK ARGS, its stdout in NAME.out and its
# stderr in NAME.err (in the current directory), its exit status in $rc.
run_fm() {
	local name=$1
	shift
	"$FLEETMARK" "$@" >"$name.out" 2>"$name.err"
	# shellcheck disable=SC2034 # rc is the caller's
	rc=$?
}

# run_ok DESCRIPTION CMD...: run CMD, its stdout in $out and its exit
# status in $rc; pass when it exits 0.  The check to make before a
# negative one on $out ("no such line"): a command that failed prints
# nothing, and nothing holds no such line.
# shellcheck disable=SC2034 # out and rc are the caller's
run_ok() {
	local desc=$1
	shift
	out=$("$@")
	rc=$?
	tap_result "$rc" "$desc"
	[ "$rc" -eq 0 ] || diag "exit $rc: $*"
	return "$rc"
}

# bytes SIZE: a parameter value as the agent's header shows it: a K or M
# suffix is a power of 1024 ("64K" is 65536), anything else stays as it is.
bytes() {
	case $1 in
	*[0-9]K) echo $((${1%K} * 1024)) ;;
	*[0-9]M) echo $((${1%M} * 1024 * 1024)) ;;
	*) echo "$1" ;;
	esac
}

# host_procs HOST: "pid:comm ..." of the processes in a lab host other
# than its SSH server and the server's sessions (an agent, a shell or a
# benchmark left behind).  Waits up to 10 s for them to go, since an agent
# whose input closed needs a moment to leave.
host_procs() {
	local p c out i
	for i in $(seq 50); do
		out=''
		for p in $(ip netns pids "fmlab-$1" 2>/dev/null); do
			c=$(cat "/proc/$p/comm" 2>/dev/null) || continue
			case $c in sshd | sshd-session | dropbear) continue ;; esac
			grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && continue
			out="$out $p:$c"
		done
		[ -z "$out" ] && break
		[ "$i" -lt 50 ] && sleep 0.2
	done
	echo "${out# }"
}

# no_secrets FILE|DIR... -- SECRET...: pass when no SECRET occurs in any
# file under the paths (run directories, logs, reports, captured output);
# on failure the diagnostic names the files, never the secret.
no_secrets() {
	local paths=() s hits=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do paths+=("$1"); shift; done
	shift
	if [ $# -eq 0 ] || [ ${#paths[@]} -eq 0 ]; then
		echo "# no_secrets: PATH... -- SECRET... needed"
		return 2
	fi
	for s in "$@"; do
		[ ${#s} -ge 4 ] || { echo "# no_secrets: a secret shorter than 4 bytes proves nothing"; return 2; }
		mapfile -t -O ${#hits[@]} hits < <(grep -rlaF -- "$s" "${paths[@]}" 2>/dev/null)
	done
	[ ${#hits[@]} -eq 0 ] && return 0
	printf '# secret found in: %s\n' "${hits[@]}"
	return 1
}

# use_board NAME [--append ARGS]: a qemu board of this test's own
# (tests/lab/qemu-board: Debian's kernel, SSH on 127.0.0.1, no lab), booted
# and answering SSH.  Sets QB (the command), BOARD (NAME), BDIR (its
# directory), BFLEET (its inventory, power: and console: set) and WORK (a
# scratch directory); FLEETMARK_BOARD_MARK (NAME and this test's pid: two
# board tests at once on one machine do not see each other's) is in the
# environment of all it starts (procs_with_mark).  At exit the board is powered off by its pid
# and WORK removed.  Skips without root, qemu or the kernel package.
use_board() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	command -v qemu-system-x86_64 >/dev/null || skip_all "needs qemu-system-x86 (tools/deps)"
	QB=$TOP/tests/lab/qemu-board
	"$QB" build >/dev/null 2>&1 || skip_all "cannot build the qemu board (the kernel package?)"
	make -s -C "$TOP" build/agents/x86_64/fleetmark-agent >/dev/null 2>&1 ||
		skip_all "no static x86_64 agent (make agents)"
	export FLEETMARK_AGENTS=$TOP/build/agents
	BOARD=$1
	shift
	WORK=$(mktemp -d "/tmp/$BOARD.XXXXXX")
	export FLEETMARK_QEMU_DIR=$WORK/qemu
	export FLEETMARK_BOARD_MARK=$BOARD-$$
	trap _board_cleanup EXIT
	"$QB" start "$BOARD" "$@" || { echo "Bail out! the board did not start"; exit 1; }
	BDIR=$FLEETMARK_QEMU_DIR/$BOARD
	# shellcheck disable=SC2034 # for the tests that source this
	BFLEET=$BDIR/fleet.yaml
	"$QB" wait "$BOARD" 300 || { echo "Bail out! the board did not boot"; exit 1; }
	diag "board $BOARD up ($(cat "$BDIR/accel"))"
}

_board_cleanup() {
	"$QB" kill "$BOARD" 2>/dev/null
	rm -rf "$WORK"
}
