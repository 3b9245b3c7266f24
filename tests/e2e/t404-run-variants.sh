#!/usr/bin/env bash
# t404-run-variants: plan variants on real hosts.  A `write` variant on a
# root-owned file (a stand-in for a sysfs tunable) is applied through
# `sudo -n` when the login user is bench, and directly as root on a
# busybox board; the trials measure under the new value; the old value is
# back, byte for byte, after the run, also when trials of the variant
# failed and when the run is interrupted (SIGTERM) in the middle of the
# variant; setup and teardown commands run as given.  A variant on a
# missing path, or on a file that cannot be written, fails its trials
# with status setup (kind infrastructure) and that reason, and nothing is
# measured under it.  A connection lost while a variant is set up gives
# the host up (connect), and does not count as the variant's failure.
# cost: 21 s, busy; lab: lab-01 lab-02 lab-03 lab-db board-armhf
# shellcheck disable=SC2317 # functions called through trap
TNAME=t404
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR

VHOSTS=(lab-01 lab-db board-armhf)
prepare() {
	local h
	for h in "${VHOSTS[@]}"; do
		on_host "$h" "rm -f /tmp/fm-seen-* /tmp/fm-setup-ran /tmp/fm-teardown-ran; printf 'old value\n' > /tmp/fm-tunable; chmod 644 /tmp/fm-tunable"
	done
}
# old_back HOST: the file holds exactly "old value\n".
old_back() { [ "$(on_host "$1" 'od -An -tx1 /tmp/fm-tunable' | xargs)" = '6f 6c 64 20 76 61 6c 75 65 0a' ]; }
cleanup_hosts() { local h; for h in "${VHOSTS[@]}"; do on_host "$h" 'rm -f /tmp/fm-tunable /tmp/fm-seen-* /tmp/fm-setup-ran /tmp/fm-teardown-ran'; done; }
# The lab's hosts share this machine's /etc: the sudoers rule is put back
# whatever happens.
trap 'mv -n /etc/sudoers.d/.fm-off /etc/sudoers.d/fleetmark-lab 2>/dev/null; cleanup_hosts; _lab_cleanup' EXIT

cat >"$WORK/var.yaml" <<'P'
name: variants
repeat: 2
samples: 3
timeout: 30s
variants:
  base: {}
  tuned:
    write: { /tmp/fm-tunable: "42" }
    setup: ["touch /tmp/fm-setup-ran"]
    teardown: ["rm -f /tmp/fm-setup-ran; touch /tmp/fm-teardown-ran"]
  missing:
    write: { /tmp/fm-no-such-dir/tunable: "1" }
  readonly:
    write: { /proc/version: "1" }
benchmarks:
  - bench: exec
    params:
      command: "cat /tmp/fm-tunable >> /tmp/fm-seen-$(id -u); echo >> /tmp/fm-seen-$(id -u)"
  - bench: exec
    params:
      command: "exit 3"
P

prepare
# As bench (sudo -n) on an OpenSSH server and on dropbear; as root on the board.
"$FLEETMARK" run "$WORK/var.yaml" -f "$L/fleet-bench.yaml" -H lab-01,lab-db,board-armhf -o "$WORK/v" \
	>"$WORK/v.out" 2>"$WORK/v.err"
rc=$?
D=$(run_dir "$WORK/v")
T=$D/trials.jsonl
is "$rc" 3 "a run with failing trials and unappliable variants exits 3"
for h in "${VHOSTS[@]}"; do
	check "$h: the old value is back byte for byte (trials of the variant failed)" old_back "$h"
	# Trials of base saw the old value, trials of tuned saw 42 (each trial
	# runs its command several times).
	seen=$(on_host "$h" 'cat /tmp/fm-seen-*' | sort -u | xargs)
	is "$seen" "42 old value" "$h: trials measured under the old value (base) and under 42 (tuned), nothing else"
	is "$(on_host "$h" 'ls /tmp/fm-setup-ran /tmp/fm-teardown-ran 2>&1' | grep -c 'No such')" 1 \
		"$h: setup ran and teardown undid it"
	is "$(jq -r --arg h "$h" 'select(.host == $h) | .variant + ":" + (.params.command | .[0:4]) + ":" + .status' "$T" | sort | uniq -c | xargs)" \
		"4 base:cat :ok 2 base:exit:bench 2 missing:cat :setup 2 missing:exit:setup 2 readonly:cat :setup 2 readonly:exit:setup 4 tuned:cat :ok 2 tuned:exit:bench" \
		"$h: base and tuned measured (2 metrics each; exit 3 fails as bench), missing and readonly fail as setup"
done
is "$(jq -r 'select(.status == "setup") | .kind' "$T" | sort -u)" infrastructure "setup failures are kind infrastructure"
like "$(jq -r 'select(.host == "lab-01" and .variant == "missing") | .message' "$T" | head -1)" \
	"^lab-01: variant missing: cannot read /tmp/fm-no-such-dir/tunable: exit status 1: .*No such file or directory" \
	"the missing path's reason names the host, variant, path and error"
like "$(jq -r 'select(.host == "lab-01" and .variant == "readonly") | .message' "$T" | head -1)" \
	"^lab-01: variant readonly: cannot write /proc/version: exit status [0-9]+: " \
	"a file that cannot be written: its reason"
like "$(grep 'variant tuned: wrote' "$D/logs/lab-01.log")" 'wrote /tmp/fm-tunable \(was "old value"\)' \
	"lab-01's log: the write and the old value"
like "$(grep 'variant tuned: restored' "$D/logs/lab-01.log")" 'restored /tmp/fm-tunable' "... and the restore"
like "$(jq -r '.hosts["lab-01"].status' "$D/run.json")" '^done$' "lab-01 done: setup failures do not give the host up"

# --- sudo refusing ----------------------------------------------------------------

# A user that may not sudo: the write fails with sudo's own message.
on_host lab-02 "printf 'old value\n' > /tmp/fm-tunable; chmod 644 /tmp/fm-tunable"
mv /etc/sudoers.d/fleetmark-lab /etc/sudoers.d/.fm-off
"$FLEETMARK" run "$WORK/var.yaml" -f "$L/fleet-bench.yaml" -H lab-02 -o "$WORK/ns" >"$WORK/ns.out" 2>"$WORK/ns.err"
rc=$?
mv /etc/sudoers.d/.fm-off /etc/sudoers.d/fleetmark-lab
D2=$(run_dir "$WORK/ns")
like "$rc $(jq -r 'select(.variant == "tuned") | .status' "$D2/trials.jsonl" | sort -u | xargs)" "^3 setup$" \
	"sudo refusing (no sudoers rule): the tuned trials fail as setup"
like "$(jq -r 'select(.variant == "tuned") | .message' "$D2/trials.jsonl" | head -1)" "cannot (read|write) /tmp/fm-tunable: .*(sudo|password)" \
	"... with sudo's reason"
is "$(on_host lab-02 'cat /tmp/fm-tunable /tmp/fm-seen-* 2>/dev/null' | sort -u | xargs)" "old value" "... and nothing was measured under 42"
on_host lab-02 'rm -f /tmp/fm-tunable /tmp/fm-seen-*'

# --- interrupted inside a variant ---------------------------------------------------

# repeat: 60 is never reached: the run is stopped as soon as both hosts
# have measured under the variant.  With repeat: 6, lab-01 once finished
# (and put the old value back) before the board under qemu-user had its
# first trial, on a loaded machine.
cat >"$WORK/int.yaml" <<'P'
name: interrupted
repeat: 60
samples: 3
timeout: 30s
variants:
  tuned:
    write: { /tmp/fm-tunable: "42" }
benchmarks:
  - bench: exec
    params:
      command: "sleep 0.2"
P
prepare
"$FLEETMARK" run "$WORK/int.yaml" -f "$L/fleet-bench.yaml" -H lab-01,board-armhf -o "$WORK/i" >"$WORK/i.out" 2>"$WORK/i.err" &
pid=$!
for _ in $(seq 600); do
	T=$(run_dir "$WORK/i")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .host' "$T" | sort -u | wc -l)" -ge 2 ] && break
	sleep 0.1
done
mid=$(on_host lab-01 'cat /tmp/fm-tunable')
kill -TERM "$pid"
wait "$pid"
rc=$?
is "$mid $rc $(jq -r .status "$(run_dir "$WORK/i")/run.json")" "42 130 interrupted" "SIGTERM while the variant is applied: exit 130, run interrupted"
check "lab-01: the old value is back after the interruption" old_back lab-01
check "board-armhf: the old value is back after the interruption" old_back board-armhf

# --- the connection lost while a variant is applied ---------------------------------

# On lab-02 the setup command kills the SSH session process that runs it:
# the whole connection goes.  The host is given up (its trials connect),
# not blamed on the variant (setup), and lab-03 carries on.
cat >"$WORK/kill.yaml" <<'P'
name: killconn
repeat: 2
samples: 3
timeout: 30s
variants:
  base: {}
  deadly:
    setup: ["[ \"$(hostname)\" != lab-02 ] || kill -9 $PPID"]
benchmarks:
  - bench: lat_syscall
P
"$FLEETMARK" run "$WORK/kill.yaml" -f "$L/fleet.yaml" -H lab-02,lab-03 -o "$WORK/kc" >"$WORK/kc.out" 2>"$WORK/kc.err"
rc=$?
D=$(run_dir "$WORK/kc")
is "$rc $(jq -r '.variant + ":" + .status + ":" + .kind' "$D/trials.jsonl" | sort | uniq -c | xargs)" \
	"3 4 base:ok:ok 2 deadly:connect:infrastructure 2 deadly:ok:ok" \
	"connection to lab-02 lost during a variant's setup: exit 3, its trials of the variant connect (infrastructure)"
like "$(jq -r '.hosts["lab-02"].status + " " + .hosts["lab-02"].reason' "$D/run.json")" \
	"^failed connect: lab-02: variant deadly: setup command 1 failed: connect: lab-02: connection lost" \
	"... and the host failed with that reason"
is "$(jq -r '.hosts["lab-03"].status' "$D/run.json")" "done" "lab-03 (same plan, its setup harmless there) carries on: done"

done_testing
