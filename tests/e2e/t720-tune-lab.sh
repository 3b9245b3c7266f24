#!/usr/bin/env bash
# t720-tune-lab: `tune: performance` on a lab host, as root and as the sudo
# user bench: every item of the profile (and the plan's overrides: THP,
# SMT, C-states, dropping caches) is reported applied, unavailable or
# denied, in run.json, in the progress output and in the report; the
# trials ran under the tuned settings (they read them on the host); after
# the run every setting reads on the host as it did before.  A controller
# SIGKILLed while the profile is applied leaves it applied, and --resume
# puts it back before anything else, runs the rest tuned, and puts it
# back again; also when it was killed after the last trial (nothing left
# to run), and a --resume without --tune of a run given --tune takes the
# profile again.  Without sudo the writes are denied with sudo's reason and
# the trials still run.  Without a profile an untuned host (ASLR on) gets
# one warning line.
#
# The lab's hosts are namespaces of one kernel: the sysctls, THP and the
# idle states are this machine's, so the test saves them first and puts
# them back at exit whatever happens.  There is no cpufreq here: the
# governor and boost items must say unavailable.
# cost: 24 s, busy; lab: lab-03
# shellcheck disable=SC2317 # functions called through trap
TNAME=t720
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run
[ -r /proc/sys/kernel/randomize_va_space ] || skip_all "no kernel.randomize_va_space"

use_lab "$TNAME"
L=$LABDIR
H=lab-03

# What the host reads: every setting the profile may touch, one line each.
# shellcheck disable=SC2016 # expanded by the host's shell
SETTINGS_CMD='for f in /proc/sys/kernel/randomize_va_space /proc/sys/kernel/numa_balancing /sys/kernel/mm/transparent_hugepage/enabled /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor /sys/devices/system/cpu/cpufreq/boost /sys/devices/system/cpu/intel_pstate/no_turbo; do [ -e "$f" ] && echo "$f=$(cat "$f")"; done'
settings() { on_host "$H" "$SETTINGS_CMD"; }
SETTINGS_BEFORE=$(settings)
# This machine's own copies, put back at exit (the lab shares the kernel).
SAVED_ASLR=$(cat /proc/sys/kernel/randomize_va_space)
SAVED_THP=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
mapfile -t SAVED_IDLE < <(for f in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable; do
	[ -e "$f" ] && echo "$f $(cat "$f")"; done)
put_back() {
	local l
	echo "$SAVED_ASLR" >/proc/sys/kernel/randomize_va_space
	[ -n "$SAVED_THP" ] && echo "$SAVED_THP" >/sys/kernel/mm/transparent_hugepage/enabled
	for l in "${SAVED_IDLE[@]}"; do echo "${l#* }" >"${l%% *}"; done
	mv -n /etc/sudoers.d/.fm-t720-off /etc/sudoers.d/fleetmark-lab 2>/dev/null
	on_host "$H" 'rm -f /tmp/fm-tune-seen-*'
}
trap 'put_back; _lab_cleanup' EXIT
diag "before: $(echo "$SETTINGS_BEFORE" | tr '\n' ' ')"
has_cpuidle=0
echo "$SETTINGS_BEFORE" | grep -q 'cpuidle/state1/disable' && has_cpuidle=1

cat >"$WORK/tune.yaml" <<'P'
name: tuned
repeat: 2
samples: 3
timeout: 30s
tune:
  profile: performance
  thp: never
  smt: off
  cstates: 0
  drop-caches: on
benchmarks:
  - bench: exec
    params:
      command: "echo $(cat /proc/sys/kernel/randomize_va_space) $(sed 's/.*\\[\\(.*\\)\\].*/\\1/' /sys/kernel/mm/transparent_hugepage/enabled) >> /tmp/fm-tune-seen-$(id -u)"
P

# items ITEM=STATE ... of a run directory's host
items() { jq -r --arg h "$2" '.hosts[$h].tune.items[] | .item + "=" + .state' "$1/run.json" | xargs; }

for fleet in fleet fleet-bench; do
	user=root
	[ "$fleet" = fleet-bench ] && user=bench
	on_host "$H" 'rm -f /tmp/fm-tune-seen-*'
	"$FLEETMARK" run "$WORK/tune.yaml" -f "$L/$fleet.yaml" -H "$H" -o "$WORK/$user" \
		>"$WORK/$user.out" 2>"$WORK/$user.err"
	rc=$?
	D=$(run_dir "$WORK/$user")
	is "$rc" 0 "as $user: the tuned run exits 0"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$WORK/$user.err"
	want="governor=unavailable boost=unavailable smt=unavailable aslr=applied thp=applied numa-balancing=applied irqbalance=applied cstates=$([ $has_cpuidle = 1 ] && echo applied || echo unavailable) drop-caches=applied"
	is "$(items "$D" "$H")" "$want" "as $user: every item's state in run.json (no cpufreq or SMT control in the lab: unavailable)"
	is "$(jq -r --arg h "$H" '.hosts[$h].tune.items[] | select(.item == "aslr") | .detail' "$D/run.json")" \
		"was $SAVED_ASLR" "as $user: ASLR's detail says what it was"
	like "$(jq -r --arg h "$H" '.hosts[$h].tune.items[] | select(.item == "governor") | .detail' "$D/run.json")" \
		"no cpufreq governor" "as $user: the governor's reason for unavailable"
	like "$(cat "$WORK/$user.err")" "$H: tune performance: governor unavailable .*aslr applied \(off: was $SAVED_ASLR\)" \
		"as $user: the progress output has every item"
	like "$(cat "$WORK/$user.out")" "TUNE [^ ]+ $H performance: governor=performance unavailable .*aslr=off applied" \
		"as $user: so has the report"
	grep -q 'TUNE' "$D/report.txt"
	tap_result $? "as $user: ... and report.txt"
	is "$(on_host "$H" "cat /tmp/fm-tune-seen-\$(id -u $user)" | sort -u | xargs)" "0 never" \
		"as $user: the trials ran with ASLR off and THP never"
	is "$(jq -r '.sysctl["kernel.randomize_va_space"]' "$D/hosts/$H.json")" 0 \
		"as $user: hosts/$H.json holds the facts the trials ran under"
	is "$(settings)" "$SETTINGS_BEFORE" "as $user: every setting reads as before the run"
	like "$(grep -c 'tune performance: restored' "$D/logs/$H.log")" '^[1-9]' "as $user: the log says what was restored"
	[ -e "$D/restore-tune" ]
	tap_result $((!$?)) "as $user: nothing left in restore-tune/"
done

# --- SIGKILL and --resume ------------------------------------------------------

sed -e 's/^repeat: 2/repeat: 12/' "$WORK/tune.yaml" >"$WORK/long.yaml"
on_host "$H" 'rm -f /tmp/fm-tune-seen-*'
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet-bench.yaml" -H "$H" -o "$WORK/k" >"$WORK/k1.out" 2>"$WORK/k1.err" &
pid=$!
for _ in $(seq 300); do
	T=$(run_dir "$WORK/k")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .key' "$T" | wc -l)" -ge 3 ] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
D=$(run_dir "$WORK/k")
is "$(on_host "$H" 'cat /proc/sys/kernel/randomize_va_space')" 0 "SIGKILL while tuned: ASLR is still off"
check "... and restore-tune/$H keeps the old contents" test -s "$D/restore-tune/$H"
# The killed controller's agent holds the host's lease until it sees its
# input end; a resume gives an agent of its own run 15 s to go, which a
# loaded machine (the suite's) has exceeded: --wait-lock, as a user would.
"$FLEETMARK" run --resume "$D" -f "$L/fleet-bench.yaml" --wait-lock 60s >"$WORK/k2.out" 2>"$WORK/k2.err"
rc=$?
is "$rc $(jq -r .status "$D/run.json")" "0 finished" "--resume finishes the run"
[ "$rc" = 0 ] || { tail -20 "$WORK/k2.err"; jq -r '.hosts[] | .status + " " + (.reason // "")' "$D/run.json"; } | sed 's/^/#   /'
like "$(grep 'randomize_va_space, left changed by an earlier attempt' "$D/logs/$H.log")" \
	"restored /proc/sys/kernel/randomize_va_space, left changed by an earlier attempt at this run" \
	"--resume first put back what the killed controller left"
is "$(items "$D" "$H" | tr ' ' '\n' | grep -c '=applied$')" $((5 + has_cpuidle)) "... then applied the profile again for the rest"
is "$(on_host "$H" "cat /tmp/fm-tune-seen-\$(id -u bench)" | sort -u | xargs)" "0 never" \
	"every trial, before and after the kill, ran tuned"
is "$(settings)" "$SETTINGS_BEFORE" "after the resume every setting reads as before"

# Killed after its last trial, before it undid the host: nothing is left to
# run, and --resume still puts the host back.  The trials of a complete run
# of the same plan stand in for those the killed run would have finished.
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet-bench.yaml" -H "$H" -o "$WORK/full" >/dev/null 2>&1
F=$(run_dir "$WORK/full")
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet-bench.yaml" -H "$H" -o "$WORK/late" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
	T=$(run_dir "$WORK/late")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .key' "$T" | wc -l)" -ge 2 ] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
D=$(run_dir "$WORK/late")
jq -c --arg id "$(jq -r .run "$D/run.json")" '.run = $id' "$F/trials.jsonl" >"$D/trials.jsonl"
n=$(wc -l <"$D/trials.jsonl")
is "$(on_host "$H" 'cat /proc/sys/kernel/randomize_va_space')" 0 "killed with every trial done: ASLR still off"
"$FLEETMARK" run --resume "$D" >"$WORK/late2.out" 2>"$WORK/late2.err"
is "$? $(jq -r .status "$D/run.json") $(wc -l <"$D/trials.jsonl")" "0 finished $n" \
	"--resume with nothing left to run: finished, no trial run"
is "$(settings)" "$SETTINGS_BEFORE" "... and the host is put back all the same"

# --tune given to the run: a --resume without it takes the profile again.
sed -e '/^tune:/,/^benchmarks:/{/^benchmarks:/!d}' "$WORK/long.yaml" >"$WORK/long-plain.yaml"
on_host "$H" 'rm -f /tmp/fm-tune-seen-*'
"$FLEETMARK" run "$WORK/long-plain.yaml" --tune performance -f "$L/fleet.yaml" -H "$H" -o "$WORK/kt" \
	>"$WORK/kt1.out" 2>"$WORK/kt1.err" &
pid=$!
for _ in $(seq 300); do
	T=$(run_dir "$WORK/kt")/trials.jsonl
	[ -s "$T" ] && [ "$(jq -r 'select(.status == "ok") | .key' "$T" | wc -l)" -ge 3 ] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
D=$(run_dir "$WORK/kt")
on_host "$H" 'rm -f /tmp/fm-tune-seen-*'
"$FLEETMARK" run --resume "$D" >"$WORK/kt2.out" 2>"$WORK/kt2.err"
is "$? $(jq -r --arg h "$H" '.hosts[$h].tune.profile' "$D/run.json")" "0 performance" \
	"--resume without --tune of a run given --tune performance: the profile again"
is "$(on_host "$H" 'cat /tmp/fm-tune-seen-0' | cut -d' ' -f1 | sort -u | xargs)" 0 \
	"... the trials after the resume ran with ASLR off"
is "$(settings)" "$SETTINGS_BEFORE" "... and every setting reads as before"

# --- sudo refusing: denied, with sudo's reason --------------------------------------

mv /etc/sudoers.d/fleetmark-lab /etc/sudoers.d/.fm-t720-off
"$FLEETMARK" run "$WORK/tune.yaml" -f "$L/fleet-bench.yaml" -H "$H" -o "$WORK/ns" >"$WORK/ns.out" 2>"$WORK/ns.err"
rc=$?
mv /etc/sudoers.d/.fm-t720-off /etc/sudoers.d/fleetmark-lab
D=$(run_dir "$WORK/ns")
is "$rc $(items "$D" "$H" | tr ' ' '\n' | grep -E '^(aslr|thp)=' | xargs)" "0 aslr=denied thp=denied" \
	"without sudo: ASLR and THP denied, the trials run (exit 0)"
like "$(jq -r --arg h "$H" '.hosts[$h].tune.items[] | select(.item == "aslr") | .detail' "$D/run.json")" \
	"cannot read|cannot write.*(sudo|password)" "... with sudo's reason"
is "$(settings)" "$SETTINGS_BEFORE" "... and nothing changed"

# --- no profile: one warning line -------------------------------------------------

echo 2 >/proc/sys/kernel/randomize_va_space
sed -e '/^tune:/,/^benchmarks:/{/^benchmarks:/!d}' -e 's/^repeat: 2/repeat: 1/' "$WORK/tune.yaml" >"$WORK/plain.yaml"
"$FLEETMARK" run "$WORK/plain.yaml" -f "$L/fleet.yaml" -H "$H" -o "$WORK/p" >"$WORK/p.out" 2>"$WORK/p.err"
is "$(grep -c 'not tuned for benchmarking' "$WORK/p.err")" 1 "without a profile, an untuned host: one warning line"
like "$(grep 'not tuned' "$WORK/p.err")" "$H: not tuned for benchmarking: .*ASLR on \(kernel.randomize_va_space 2\) \(tune: performance in the plan, or run --tune performance\)" \
	"... saying what is not tuned and how to tune it"
"$FLEETMARK" run "$WORK/plain.yaml" --tune performance -f "$L/fleet.yaml" -H "$H" -o "$WORK/pt" >"$WORK/pt.out" 2>"$WORK/pt.err"
D=$(run_dir "$WORK/pt")
is "$(grep -c 'not tuned' "$WORK/pt.err") $(jq -r --arg h "$H" '.hosts[$h].tune.profile' "$D/run.json")" "0 performance" \
	"run --tune performance: the profile, and no warning"

# --- two runs differing in ASLR: the diff comes first -----------------------------

A=$(run_dir "$WORK/p")
like "$("$FLEETMARK" compare "$A" "$D" | head -2 | xargs)" \
	"^ENVIRONMENT DIFFERS: 1 fact .* sysctl.kernel.randomize_va_space 2 -> 0 \(1 of 1 host pair\)" \
	"compare of an untuned and a tuned run: the ASLR difference is the first thing shown"

done_testing
