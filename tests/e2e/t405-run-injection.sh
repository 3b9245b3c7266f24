#!/usr/bin/env bash
# t405-run-injection: values in a plan reach hosts as data, never as
# shell code.  A variant's write path and value, and an exec command,
# full of $(...), backticks, ;, &&, |, quotes (and a newline in the
# command), run nothing on the local host, on an OpenSSH server as bench
# (through sudo -n sh -c: two levels of quoting), on dropbear and on a
# busybox board: no marker file appears, the file receives the value byte
# for byte, the command reaches the agent intact (it runs exactly as
# written: its single-quoted text is echoed literally), and trials.jsonl
# records the parameter as given.  A write value with a newline is refused
# when the plan is loaded.  Also: a workdir full of shell (the agent is
# deployed to the literal directory), 16 KB values (byte for byte), host
# names and users with shell in them and bytes that are not UTF-8 (refused
# with FILE:LINE:COL, nothing run, no run directory).
# cost: 20 s, busy; lab: lab-01 lab-02 lab-db board-armhf
# shellcheck disable=SC2016,SC2317 # literal $(...) on purpose; trap functions
TNAME=t405
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command run

use_lab "$TNAME"
L=$LABDIR

PATHNAME="/tmp/fm-inj 'q' \";\$(touch fm-pwned-1) \`touch fm-pwned-2\` && touch fm-pwned-3"
VALUE='$(touch /tmp/fm-pwned-4) `touch /tmp/fm-pwned-5`; touch /tmp/fm-pwned-6 '"' \" | touch /tmp/fm-pwned-7 && x"
ECHOED='a;b $(touch /tmp/fm-pwned-8) `touch /tmp/fm-pwned-9` "q"'
COMMAND="cat /tmp/fm-inj* > /tmp/fm-during
echo '$ECHOED' > /tmp/fm-cmd-out"

# The plan, with every value written as a YAML double-quoted string.
yq() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'; }
cat >"$WORK/inj.yaml" <<P
name: injection
repeat: 1
samples: 3
timeout: 30s
variants:
  evil:
    write: { "$(yq "$PATHNAME")": "$(yq "$VALUE")" }
benchmarks:
  - bench: exec
    params:
      command: "$(yq "$COMMAND")"
P

# on HOST CMD: a root shell there (local: here).
on() { local h=$1; shift; if [ "$h" = local ]; then sh -c "$*"; else "$LAB" ssh "$h" "$@"; fi; }
prepare() { printf '%s\n' "$PATHNAME" | on "$1" 'IFS= read -r n; printf old > "$n"; chmod 644 "$n"; rm -f /tmp/fm-during /tmp/fm-cmd-out'; }
markers() { on "$1" 'ls -d /root/fm-pwned-* /home/*/fm-pwned-* /tmp/fm-pwned-* /tmp/fleetmark/fm-pwned-* 2>/dev/null' </dev/null; }
tidy() { on "$1" 'rm -f /tmp/fm-inj* /tmp/fm-during /tmp/fm-cmd-out /root/fm-pwned-* /home/*/fm-pwned-* /tmp/fm-pwned-*' </dev/null; }
trap 'for h in local lab-01 lab-02 lab-db board-armhf; do tidy "$h" >/dev/null 2>&1; done; _lab_cleanup' EXIT

run_on() {	# FLEET-ARGS... -- HOST: run the plan and check HOST
	local h=${*: -1} d
	tidy "$h"
	prepare "$h"
	"$FLEETMARK" run "$WORK/inj.yaml" "${@:1:$#-1}" -o "$WORK/$h" >"$WORK/$h.out" 2>"$WORK/$h.err"
	is "$?" 0 "$h: the plan runs (exit 0)"
	d=$(run_dir "$WORK/$h")
	is "$(markers "$h")" "" "$h: no marker file: nothing in the path, value or command ran"
	is "$(on "$h" 'cat /tmp/fm-during' </dev/null)" "$VALUE" "$h: during the trial the file held the value byte for byte"
	is "$(on "$h" 'cat /tmp/fm-cmd-out' </dev/null)" "$ECHOED" "$h: the command (two lines) reached the agent intact"
	is "$(printf '%s\n' "$PATHNAME" | on "$h" 'IFS= read -r n; cat "$n"')" "old" "$h: the old content is back"
	is "$(jq -r 'select(.metric == "seconds") | .params.command' "$d/trials.jsonl")" "$COMMAND" \
		"$h: trials.jsonl records the command as given"
}
run_on local
run_on -f "$L/fleet-bench.yaml" -H lab-01 lab-01
run_on -f "$L/fleet-bench.yaml" -H lab-db lab-db
run_on -f "$L/fleet.yaml" -H board-armhf board-armhf
is "$(markers local)" "" "and none on this machine"

# A newline in a write value is refused when the plan is loaded.
sed -e 's/"\$(touch \/tmp\/fm-pwned-4)/"line1\\nline2 $(touch \/tmp\/fm-pwned-4)/' "$WORK/inj.yaml" >"$WORK/nl.yaml"
"$FLEETMARK" run "$WORK/nl.yaml" -o "$WORK/nl" >"$WORK/nl.out" 2>&1
is "$?" 2 "a write value with a newline: exit 2"
like "$(cat "$WORK/nl.out")" "nl\.yaml:7:[0-9]+: .*must be one line" "... with FILE:LINE:COL"

# --- more fields: workdir, long values, names, user, non-UTF-8 --------------------------

# A workdir full of shell: the agent is deployed and run from that literal
# directory, and nothing in its name runs.  (Quotes, backslashes and
# control characters are refused in a workdir: below.)
WD='/tmp/fm wd;$(touch /tmp/fm-pwned-w1) `touch /tmp/fm-pwned-w2` && touch /tmp/fm-pwned-w3 |x'
printf 'defaults:\n  user: bench\n  identity: %s\n  known_hosts: %s\n  ssh_config: false\n  workdir: "%s"\nhosts:\n  lab-02:\n    address: 198.18.1.2\n' \
	"$L/id_ed25519" "$L/known_hosts" "$(yq "$WD")" >"$WORK/wd.yaml"
tidy lab-02
prepare lab-02
on lab-02 'rm -rf /tmp/fm\ wd*' </dev/null
"$FLEETMARK" run "$WORK/inj.yaml" -f "$WORK/wd.yaml" -H lab-02 -o "$WORK/wd" >"$WORK/wd.out" 2>"$WORK/wd.err"
rc=$?
is "$rc" 0 "a workdir with \$(...), backticks, ; and &&: the run works (exit 0)"
[ "$rc" = 0 ] || tail -3 "$WORK/wd.err" | sed 's/^/#   /'
is "$(markers lab-02)" "" "... nothing in the workdir's name ran"
is "$(printf '%s\n' "$WD" | on lab-02 'IFS= read -r d; ls "$d/agents"/*/fleetmark-agent | wc -l')" 1 \
	"... the agent is in the literal directory"
on lab-02 'rm -rf /tmp/fm\ wd*' </dev/null
sed -e 's/|x"$/|x'"'q'"'"/' "$WORK/wd.yaml" >"$WORK/wdq.yaml"
"$FLEETMARK" run "$WORK/inj.yaml" -f "$WORK/wdq.yaml" -H lab-02 -o "$WORK/wdq" >"$WORK/wdq.out" 2>&1
is "$?" 2 "a workdir with a quote: exit 2"
like "$(cat "$WORK/wdq.out")" "wdq\.yaml:6:[0-9]+: workdir .* contains a quote" "... FILE:LINE:COL, saying why"

# Long values (16 KB) arrive byte for byte: a write value and an exec command.
LONGV=$(head -c 12000 /dev/zero | tr '\0' 'v')'$(touch /tmp/fm-pwned-l1)'$(head -c 4000 /dev/zero | tr '\0' 'w')
LONGC="echo '$(head -c 16000 /dev/zero | tr '\0' 'c');\$(touch /tmp/fm-pwned-l2)' > /tmp/fm-cmd-out"
cat >"$WORK/long.yaml" <<P
name: long
repeat: 1
samples: 2
timeout: 30s
variants:
  big:
    write: { "/tmp/fm-inj-long": "$LONGV" }
benchmarks:
  - bench: exec
    params:
      command: "cat /tmp/fm-inj-long > /tmp/fm-during; $(yq "$LONGC")"
P
tidy lab-01
on lab-01 'printf old > /tmp/fm-inj-long' </dev/null
"$FLEETMARK" run "$WORK/long.yaml" -f "$L/fleet-bench.yaml" -H lab-01 -o "$WORK/long" >"$WORK/long.out" 2>"$WORK/long.err"
is "$?" 0 "16 KB values: the run works (exit 0)"
is "$(on lab-01 'cat /tmp/fm-during' | sha256sum)" "$(printf '%s' "$LONGV" | sha256sum)" \
	"... the file held the 16 KB value byte for byte"
is "$(on lab-01 'cat /tmp/fm-cmd-out' | sha256sum)" \
	"$(printf '%s;$(touch /tmp/fm-pwned-l2)\n' "$(head -c 16000 /dev/zero | tr '\0' 'c')" | sha256sum)" \
	"... the 16 KB command ran as written"
is "$(jq -r 'select(.metric == "seconds") | .params.command' "$(run_dir "$WORK/long")/trials.jsonl" | sha256sum)" \
	"$(printf '%s\n' "cat /tmp/fm-inj-long > /tmp/fm-during; $LONGC" | sha256sum)" "... and trials.jsonl records it whole"
is "$(markers lab-01)" "" "... and nothing in them ran"
is "$(on lab-01 'cat /tmp/fm-inj-long')" "old" "... the old content is back"
tidy lab-01

# Names that would reach a shell or an SSH command line are refused when
# the inventory is read: a host name and a user with shell in them.
printf 'hosts:\n  "lab;touch /tmp/fm-pwned-h":\n    address: 198.18.1.1\n' >"$WORK/badname.yaml"
"$FLEETMARK" run "$WORK/inj.yaml" -f "$WORK/badname.yaml" -o "$WORK/bn" >"$WORK/bn.out" 2>&1
is "$?" 2 "a host name with ; and a space: exit 2"
like "$(cat "$WORK/bn.out")" "badname\.yaml:2:[0-9]+: bad host name" "... FILE:LINE:COL, bad host name"
printf 'hosts:\n  h1:\n    address: 198.18.1.1\n    user: "root$(touch /tmp/fm-pwned-u)"\n' >"$WORK/baduser.yaml"
"$FLEETMARK" run "$WORK/inj.yaml" -f "$WORK/baduser.yaml" -o "$WORK/bu" >"$WORK/bu.out" 2>&1
is "$?" 2 "a user with \$(...): exit 2"
like "$(cat "$WORK/bu.out")" "baduser\.yaml:4:[0-9]+: " "... FILE:LINE:COL"
is "$(markers local)$(markers lab-01)" "" "... and nothing ran"

# Bytes that are not UTF-8, in a plan and in an inventory: refused when read.
printf 'name: bad\nbenchmarks:\n  - bench: exec\n    params:\n      command: "echo \377\376"\n' >"$WORK/nonutf8.yaml"
"$FLEETMARK" run "$WORK/nonutf8.yaml" -o "$WORK/nu" >"$WORK/nu.out" 2>&1
is "$?" 2 "a plan with bytes that are not UTF-8: exit 2"
like "$(cat "$WORK/nu.out")" "nonutf8\.yaml:[0-9]+:[0-9]+: " "... FILE:LINE:COL"
printf 'hosts:\n  h1:\n    address: 198.18.1.1\n    workdir: "/tmp/\377"\n' >"$WORK/nonutf8-fleet.yaml"
"$FLEETMARK" run "$WORK/inj.yaml" -f "$WORK/nonutf8-fleet.yaml" -o "$WORK/nf" >"$WORK/nf.out" 2>&1
is "$?" 2 "an inventory with bytes that are not UTF-8: exit 2"
like "$(cat "$WORK/nf.out")" "nonutf8-fleet\.yaml:[0-9]+:[0-9]+: " "... FILE:LINE:COL"
is "$(find "$WORK/nu" "$WORK/nf" "$WORK/bn" "$WORK/bu" "$WORK/wdq" -type f 2>/dev/null | wc -l)" 0 "refused input leaves no run directory"

done_testing
