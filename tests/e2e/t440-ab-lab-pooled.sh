#!/usr/bin/env bash
# t440-ab-lab-pooled: `fleetmark ab` on three lab hosts at once, each with
# its own sequence of boots, and the rows of the hosts' class pooled.
#
# The hosts' "boots" are the lab's: `lab reboot HOST --wait --cmdline
# TEXT` kills everything in the host and brings its server back with a
# new boot id and TEXT as /proc/cmdline (docs/testing.md, "Faults"), so
# that ab's check of every boot (the id changed, the side's string in the
# command line) runs as on a real host; the kernel is this machine's.
# The difference between the sides is not a kernel's either: each side's
# command writes the seconds the plan's `exec` benchmarks sleep into the
# host's /tmp before the reboot.  A real kernel and real boots are the
# qemu board's (t804, t805, t806).
#
# The plan has two rows a host: "agree", where B sleeps 0.3 s against A's
# 0.1 on every host, and "split", where B sleeps 0.3 on lab-06 and lab-07
# but 0.02 on lab-08.  The three hosts share their inventory labels
# (x86_64 and lab): one class.  Three boots a side on each host, in
# parallel (exit 4: B worse); three, as with two pairs a host's t has one
# degree of freedom (a run here with two found +38% on one host noisy):
# - ab.json names each host's labels; every boot of every host done, the
#   boot ids (18) all differ, each boot's command line its side's;
# - each host's "agree" row worse (the shell's start adds to both sides:
#   +80% to +300%), lab-08's "split" row faster (its interval below 0);
# - the class's "agree" row worse: over its 9 pairs, or, when an F test
#   says the change differs in size from host to host (the shell's start
#   is not the same on each), over the 3 hosts' means;
# - the class's "split" row noisy: the F test says the hosts differ, and
#   over the hosts' means (two worse, one better) nothing is certain.
# cost: 50 s, waiting; lab: lab-06 lab-07 lab-08
# shellcheck disable=SC2317 # cleanup is called through trap
TNAME=t440
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
need_command ab

use_lab "$TNAME"
L=$LABDIR
RH=(lab-06 lab-07 lab-08)
# At the end the hosts boot once more, into the machine's command line.
cleanup() {
	local h
	for h in "${RH[@]}"; do
		rm -f "$L/hosts/$h/tmp/fm-t440-agree" "$L/hosts/$h/tmp/fm-t440-split" \
			"$L/hosts/$h/cmdline"
		"$LAB" reboot "$h" 0 --wait >/dev/null 2>&1
	done
	_lab_cleanup
}
trap cleanup EXIT

cat >"$WORK/plan.yaml" <<'P'
name: t440-ab
repeat: 2
samples: 3
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "sleep $(cat /tmp/fm-t440-agree)"
      copies: 1
  - bench: exec
    params:
      command: "sleep $(cat /tmp/fm-t440-split)"
      copies: 1
P
# side WHICH AGREE SPLIT_LAB08: the side's command: the delays into the
# host's /tmp, then its reboot into the side's command line.
side() {
	local t="$L/hosts/\$FLEETMARK_HOST/tmp"
	echo "echo $2 >$t/fm-t440-agree && if [ \"\$FLEETMARK_HOST\" = lab-08 ]; then echo $3; else echo $2; fi >$t/fm-t440-split && $LAB reboot \"\$FLEETMARK_HOST\" 1 --wait --cmdline 'fm_side=$1'"
}
start=$SECONDS
"$FLEETMARK" ab "$WORK/plan.yaml" -f "$L/fleet.yaml" -H "lab-06,lab-07,lab-08" --boots 3 \
	-A "$(side a 0.1 0.1)" -B "$(side b 0.3 0.02)" --expect-a fm_side=a --expect-b fm_side=b \
	--label-a short --label-b long -o "$WORK/res" >"$WORK/out" 2>"$WORK/err"
is "$?" 4 "B worse on the hosts and their class: exit 4"
diag "ab of three hosts, three boots a side each, took $((SECONDS - start)) s"
D=$(find "$WORK/res" -mindepth 1 -maxdepth 1 -name '*-ab-t440-ab-*' | head -1)
sed 's/^/#   /' "$D/ab.txt" | head -24

is "$(jq -c '.classes' "$D/ab.json")" \
	'{"lab-06":["lab","x86_64"],"lab-07":["lab","x86_64"],"lab-08":["lab","x86_64"]}' \
	"ab.json: each host's labels, sorted"
is "$(jq -r '[.sequences[][] | .state] | unique | join(" ")' "$D/ab.json")" "done" \
	"every boot of every host done"
is "$(jq -r '.sequences[][] | .boot_id' "$D/ab.json" | sort -u | wc -l)" 18 \
	"the eighteen boots' ids all differ"
is "$(jq -r '.sequences[][] | "\(.side) \(.cmdline)"' "$D/ab.json" | sort -u | xargs)" \
	"A fm_side=a B fm_side=b" "each boot ran its side's command line"

# The verdict's rows of exec.seconds: host, point (the benchmark's
# command), verdict, change, reason.
rows=$("$FLEETMARK" report "$D" --format json 2>/dev/null | jq -r '
	[.[] | select(.table == "ab" and .metric == "exec.seconds")] |
	group_by([.host, .point]) | .[] | (map({(.column): .text}) | add) as $c |
	[.[0].host, .[0].point, $c.verdict, $c.change, $c.reason, $c.interval] | @tsv')
# field N HOST POINT: column N of that host's row whose point holds POINT.
field() { awk -F'\t' -v n="$1" -v h="$2" -v p="$3" '$1 == h && index($2, p) { print $n; exit }' <<<"$rows"; }
verdict() { field 3 "$@"; }
change() { field 4 "$@"; }
reason() { field 5 "$@"; }
interval() { field 6 "$@"; }
bad=0
for h in "${RH[@]}"; do
	[ "$(verdict "$h" fm-t440-agree)" = worse ] || { bad=1; diag "$h agree: $(verdict "$h" fm-t440-agree)"; }
done
is "$bad" 0 "each host's agree row: worse"
like "$(change lab-06 fm-t440-agree)" '^\+([89][0-9]|[12][0-9][0-9])\.[0-9]%$' "its change +80% to +300% (lab-06)"
# B faster there, its interval below 0; "better" too when its q clears the
# false-discovery step over the 12 rows (one run here had q 0.054).
like "$(interval lab-08 fm-t440-split)" '^-[0-9.]+% \.\. -[0-9.]+%$' "lab-08's split row: B faster, the interval below 0"
like "$(verdict lab-08 fm-t440-split)" '^(better|noisy)$' "... better, or noisy when its q is not small enough"
CLASS="@lab&@x86_64 (3 hosts)"
is "$(verdict "$CLASS" fm-t440-agree)" worse "the class's agree row: worse"
like "$(reason "$CLASS" fm-t440-agree)" 'over (9 pairs|3 hosts \(.*; the hosts differ \(F test p )' \
	"... over the 9 pairs of the three hosts, or their 3 means"
is "$(verdict "$CLASS" fm-t440-split)" noisy "the class's split row: noisy"
like "$(reason "$CLASS" fm-t440-split)" '; the hosts differ \(F test p [^)]*\): judged over their means$' \
	"... the hosts differ, and it was judged over their means"
like "$(cat "$WORK/out")" "@lab&@x86_64 \\(3 hosts\\)" "the text table has the class's rows"
done_testing
