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
# when the plan is loaded.
# shellcheck disable=SC2016,SC2317 # literal $(...) on purpose; trap functions
TNAME=t405
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_root
"$FLEETMARK" help run >/dev/null 2>&1 || { echo "Bail out! $FLEETMARK has no \`run\` command"; exit 1; }
command -v jq >/dev/null || skip_all "needs jq"

use_lab "$TNAME"
L=$LABDIR

# rundir OUTDIR: the one run directory made under OUTDIR.
rundir() { find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '.*' 2>/dev/null | head -1; }
# per_key FILE: "N M": ok lines per (host, key, metric) (distinct counts) and
# how many distinct (host, key) have an ok line.
per_key() {
	echo "$(jq -r 'select(.status == "ok") | [.host, .key, .metric] | join(" ")' "$1" | sort | uniq -c |
		awk '{print $1}' | sort -u | xargs) $(jq -r 'select(.status == "ok") | .host + " " + .key' "$1" | sort -u | wc -l)"
}

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
trap 'for h in local lab-01 lab-db board-armhf; do tidy "$h" >/dev/null 2>&1; done; _lab_cleanup' EXIT

run_on() {	# FLEET-ARGS... -- HOST: run the plan and check HOST
	local h=${*: -1} d
	tidy "$h"
	prepare "$h"
	"$FLEETMARK" run "$WORK/inj.yaml" "${@:1:$#-1}" -o "$WORK/$h" >"$WORK/$h.out" 2>"$WORK/$h.err"
	is "$?" 0 "$h: the plan runs (exit 0)"
	d=$(rundir "$WORK/$h")
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

done_testing
