#!/usr/bin/env bash
# t401-run-lab: `fleetmark run` on every lab host at once: OpenSSH servers
# as root and (fleet-bench.yaml) as bench, dropbear without SFTP, the armhf
# and s390x boards without a compiler, lab-inner through its ProxyJump.
# Each host runs its own architecture's agent (hosts/NAME.json; built on
# the host with `agent: source`), gets exactly one ok line per (trial,
# metric), and is logged in to exactly once for the whole run (the
# servers' logs say so); -j bounds how many hosts run at once; the gap
# between trials stays in milliseconds.  An encrypted identity never
# prompts; the passphrase and the private parts of the keys appear in no
# run directory, log or output (no_secrets).
# cost: 37 s, busy; lab: all
# shellcheck disable=SC2317 # functions called through trap
TNAME=t401
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR

want_arch() {
	case $1 in
	board-armhf) echo armhf ;;
	board-s390x) echo s390x ;;
	*) "$AGENT" env --json | jq -r .arch ;;
	esac
}

cat >"$WORK/plan.yaml" <<'P'
name: lab-small
repeat: 2
samples: 3
timeout: 60s
benchmarks:
  - bench: lat_syscall
    params:
      op: [null, stat]
  - bench: lat_proc
    params:
      op: fork
P
NH=${#HOSTS[@]}
NT=$((NH * 3 * 2))

for fleet in fleet.yaml fleet-bench.yaml; do
	count_before
	t0=$(date +%s%N)
	"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/$fleet" -o "$WORK/$fleet" >"$WORK/$fleet.out" 2>"$WORK/$fleet.err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	is "$rc" 0 "$fleet: run on all $NH lab hosts exits 0 (${ms} ms)"
	[ "$rc" = 0 ] || { sed 's/^/#   /' "$WORK/$fleet.out"; tail -20 "$WORK/$fleet.err" | sed 's/^/#   /'; }
	D=$(run_dir "$WORK/$fleet")
	is "$(jq -r '.status' "$D/run.json") $(jq -r '[.hosts[] | .status] | unique | join(",")' "$D/run.json")" \
		"finished done" "$fleet: run.json finished, every host done"
	is "$(ok_per_trial "$D/trials.jsonl")" "1 $NT" "$fleet: exactly one ok line per (host, trial, metric), $NT trials"
	bad=''
	for h in "${HOSTS[@]}"; do
		got=$(jq -r .arch "$D/hosts/$h.json" 2>/dev/null)
		[ "$got" = "$(want_arch "$h")" ] || bad="$bad $h:$got"
		[ "$(jq -r --arg h "$h" 'select(.host == $h and .status == "ok") | .key' "$D/trials.jsonl" | sort -u | wc -l)" = 6 ] ||
			bad="$bad $h:trials"
		[ -s "$D/logs/$h.log" ] || bad="$bad $h:log"
	done
	is "${bad# }" "" "$fleet: each host ran its own architecture's agent (armhf, s390x boards), 6 trials, a log"
	is "$(login_deltas)" "$(want_deltas)" "$fleet: one SSH login per host for the whole run (lab-jump carries lab-inner's)"
	like "$(grep '^board-s390x ' "$WORK/$fleet.out")" "^board-s390x +done +6 +0 " "$fleet: the summary shows each host's trials"
	# The controller's own time between two trials on a host (docs/performance.md: milliseconds).
	gap=$(jq -r -s 'group_by(.host)[] | unique_by(.key) | sort_by(.start) | . as $t |
		range(1; length) | ($t[.].start - $t[. - 1].start - $t[. - 1].duration) * 1000' "$D/trials.jsonl" |
		sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] }')
	awk -v g="$gap" 'BEGIN { exit !(g < 50) }'
	tap_result $? "$fleet: the median gap between two trials on a host is ${gap} ms"
	like "$(grep -cE '^(lab-inner|board-s390x) ' "$D/report.txt")" '^[1-9]' \
		"$fleet: report.txt has rows for lab-inner (behind the jump) and board-s390x"
done
D=$(run_dir "$WORK/fleet-bench.yaml")
like "$(grep 'connected as' "$D/logs/lab-01.log") $(grep 'connected as' "$D/logs/board-armhf.log")" \
	"connected as bench@198\.18\.1\.1 .*connected as root@198\.18\.3\.1" "fleet-bench.yaml: bench on servers, root on boards"
like "$(grep 'connected as' "$D/logs/lab-inner.log")" "via " "lab-inner's log shows the jump"

# --- -j: at most N hosts at once ------------------------------------------------

# peak DIR: the most hosts that were between "connected" and "done" at once,
# from the hosts' logs (ISO timestamps sort as times; an end sorts before a
# start at the same instant).
peak() {
	local f
	for f in "$1"/logs/*.log; do
		awk 'NR == 1 { print $1, 1 } / done: / { print $1, 0 }' "$f"
	done | sort | awk '{ n += $2 ? 1 : -1; if (n > m) m = n } END { print m + 0 }'
}
"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H lab-01,lab-02,lab-03,lab-04,lab-05,lab-06 -j 2 \
	-o "$WORK/j2" >"$WORK/j2.out" 2>"$WORK/j2.err"
rc=$?
D=$(run_dir "$WORK/j2")
is "$rc $(peak "$D")" "0 2" "-j 2 on 6 hosts: exit 0, two hosts at a time"
"$FLEETMARK" run "$WORK/plan.yaml" -f "$L/fleet.yaml" -H lab-01,lab-02,lab-03,lab-04,lab-05,lab-06 \
	-o "$WORK/jall" >"$WORK/jall.out" 2>"$WORK/jall.err"
p=$(peak "$(run_dir "$WORK/jall")")
[ "$p" -gt 2 ]
tap_result $? "without -j the 6 hosts overlap ($p at once)"

# --- an agent built on the host (agent: source) --------------------------------------

{
	sed -n '/^defaults:/,/^hosts:/p' "$L/fleet.yaml"
	printf '  lab-01:\n    address: 198.18.1.1\n    agent: source\n    workdir: /tmp/fm-t401-work\n'
} >"$WORK/src.yaml"
"$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/src.yaml" -o "$WORK/src" >"$WORK/src.out" 2>"$WORK/src.err"
rc=$?
D=$(run_dir "$WORK/src")
is "$rc $(ok_per_trial "$D/trials.jsonl")" "0 1 6" "agent: source: the agent is built on lab-01 and runs the plan"
like "$(grep -E 'built there|starting .* serve' "$D/logs/lab-01.log" | xargs)" \
	"at /tmp/fm-t401-work/src/[0-9a-f]+/agent/fleetmark-agent \(built there\).* scratch directory /tmp/fm-t401-work/scratch-" \
	"... from its sources in the work directory, with its scratch files there too"
"$LAB" ssh lab-01 'rm -rf /tmp/fm-t401-work' </dev/null

# --- a board with no compiler cannot build one ------------------------------------
if has_host board-armhf; then
	{
		sed -n '/^defaults:/,/^hosts:/p' "$L/fleet.yaml"
		sed -n '/^  board-armhf:/,/^  [a-z]/p' "$L/fleet.yaml" | sed '$d'
		printf '    agent: source\n'
	} >"$WORK/board-src.yaml"
	"$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/board-src.yaml" -o "$WORK/bsrc" >"$WORK/bsrc.out" 2>"$WORK/bsrc.err"
	rc=$?
	D=$(run_dir "$WORK/bsrc")
	is "$rc $(jq -r '.hosts["board-armhf"].status' "$D/run.json")" "3 failed" \
		"agent: source on a board without a compiler: exit 3, the host failed"
	like "$(jq -r '.hosts["board-armhf"].reason' "$D/run.json")" "armv7l.*no C compiler" \
		"... with a reason naming the missing compiler and the architecture"
	is "$(jq -r '.status + " " + .kind' "$D/trials.jsonl" | sort -u | xargs)" "deploy infrastructure" \
		"... and its trials are deploy failures, kept apart as infrastructure"
fi

# --- an encrypted identity never prompts, even on a terminal --------------------------
ssh-keygen -q -t ed25519 -N 'secret passphrase' -f "$WORK/enc_key" >/dev/null
sed -e "s|^  identity: .*|  identity: $WORK/enc_key|" "$L/fleet.yaml" >"$WORK/enc.yaml"
# `script` gives the controller a terminal, where a prompt would hang it
start=$(date +%s)
timeout 60 script -qec "$FLEETMARK hosts --check -f $WORK/enc.yaml -H lab-01" /dev/null \
	</dev/null >"$WORK/enc.out" 2>&1
rc=$?
is "$rc" 3 "an encrypted identity on a terminal: exit 3 (not a hang, not a prompt)"
check "... within a few seconds" test $(($(date +%s) - start)) -lt 20
like "$(cat "$WORK/enc.out")" "auth.*(encrypted|passphrase)" "... classed auth, saying the key is encrypted"
check "... and nothing asked for a passphrase" sh -c "! grep -qi 'enter passphrase' '$WORK/enc.out'"

# --- secrets: no passphrase or private key material in run directories or logs ---------
"$FLEETMARK" -v run "$WORK/plan.yaml" -f "$WORK/enc.yaml" -H lab-01 -o "$WORK/enc-run" >"$WORK/enc-run.out" 2>&1
is "$?" 3 "a run with the encrypted identity: exit 3 (lab-01 fails as auth)"
# The private parts of the keys: a line from the middle of each file.
check "the passphrase and the keys' private parts appear in no run directory, log or output" \
	no_secrets "$WORK/enc-run" "$WORK/enc-run.out" "$WORK/enc.out" "$WORK/fleet.yaml" "$WORK/fleet.yaml.out" \
	"$WORK/fleet.yaml.err" -- 'secret passphrase' "$(sed -n 4p "$WORK/enc_key")" "$(sed -n 4p "$L/id_ed25519")"

done_testing
