#!/usr/bin/env bash
# t603-bisect: `git bisect run fleetmark bisect-run ...` finds the commit
# that made the exec workload slower.  A git repository of 30 commits holds
# work.sh; commit 23 makes it take six times as long (the threshold, 150%,
# is well below the slowdown).  The work is a sleep, not a loop: a busy
# shared machine slowed a shell loop threefold between one step and the
# next, and made a slow commit pass for a fast one; a sleep's length does
# not depend on the load.  At every step the install hook copies work.sh
# to a lab host over SSH and the reboot hook reboots the host
# (tests/lab/lab reboot), except at the first step, where the host is
# partitioned instead: that step must be skipped (exit 125,
# after --tries 2 waits of --wait 6s), never called bad.  The bisection
# must name commit 23, the bisect log must show the skip, each step keeps
# its run directory labelled with the short commit; usage errors abort
# (128).
# cost: 64 s, waiting; lab: lab-05
# shellcheck disable=SC2317 # functions called through trap
TNAME=t603
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab git
need_command bisect-run

use_lab "$TNAME"
H=lab-05
SSHC=(ssh -F "$LABDIR/ssh_config" -o BatchMode=yes)
RES=$WORK/results
CULPRIT=23

# --- the repository: 30 commits, the 23rd six times slower -------------------
R=$WORK/repo
mkdir -p "$R"
git -C "$R" init -q
git -C "$R" config user.email t603@example.org
git -C "$R" config user.name t603
for i in $(seq 1 30); do
	n=0.15
	[ "$i" -ge "$CULPRIT" ] && n=0.9
	printf 'sleep %s\n' "$n" >"$R/work.sh"
	echo "$i" >"$R/version"
	git -C "$R" add work.sh version
	git -C "$R" commit -q -m "commit $i"
done
GOOD=$(git -C "$R" rev-list --reverse HEAD | head -1)
BAD=$(git -C "$R" rev-parse HEAD)
WANT=$(git -C "$R" log --format=%H --grep="^commit $CULPRIT\$")

cat >"$WORK/plan.yaml" <<'P'
name: bisect-exec
repeat: 5
samples: 1
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "sh /tmp/fm-t603/work.sh"
      copies: 1
P

# The hooks.  install: heal a partition left by the step before (the
# partitioned step's "reboot"), then copy this commit's work.sh to the host.
# reboot: the first step partitions the host; every other step reboots it.
cat >"$WORK/install.sh" <<EOF
#!/bin/sh
set -e
if [ -e "$WORK/partitioned" ]; then
	"$LAB" heal "\$FLEETMARK_HOST" && rm -f "$WORK/partitioned"
fi
echo "\$FLEETMARK_COMMIT" >>"$WORK/installed"
${SSHC[*]} "\$FLEETMARK_HOST" 'mkdir -p /tmp/fm-t603 && cat >/tmp/fm-t603/work.sh' <work.sh
EOF
cat >"$WORK/reboot.sh" <<EOF
#!/bin/sh
set -e
n=\$(cat "$WORK/steps" 2>/dev/null || echo 0)
n=\$((n + 1))
echo "\$n" >"$WORK/steps"
if [ "\$n" = 1 ]; then
	echo "\$FLEETMARK_COMMIT" >"$WORK/partitioned-commit"
	: >"$WORK/partitioned"
	exec "$LAB" partition "\$FLEETMARK_HOST"
fi
exec "$LAB" reboot "\$FLEETMARK_HOST" 2
EOF
chmod +x "$WORK/install.sh" "$WORK/reboot.sh"
_lab_touched+=("$H")

# --- the baseline: the good commit's run ---------------------------------------
git -C "$R" checkout -q "$GOOD"
(cd "$R" && FLEETMARK_HOST=$H FLEETMARK_COMMIT=$GOOD "$WORK/install.sh") >&2
"$FLEETMARK" run "$WORK/plan.yaml" -f "$LABDIR/fleet.yaml" -H "$H" -o "$WORK/base" --label good -q \
	>"$WORK/base.out" 2>"$WORK/base.err"
is "$?" 0 "the baseline run on the good commit"
BASE=$(run_dir "$WORK/base")
: >"$WORK/installed"

# --- usage errors abort the bisection ----------------------------------------------
cd "$R" || exit 1
fm_bisect() {
	"$FLEETMARK" bisect-run "$WORK/plan.yaml" -f "$LABDIR/fleet.yaml" -H "$H" -o "$RES" "$@"
}
fm_bisect --metric exec.nosuch --baseline "$BASE" >"$WORK/u1.out" 2>"$WORK/u1.err"
is "$?" 128 "an unknown metric: exit 128 (abort)"
like "$(cat "$WORK/u1.err")" "exec has no metric 'nosuch'" "and says so"
fm_bisect --metric 'exec.seconds[copies=3]' --good 1 >/dev/null 2>"$WORK/u2.err"
is "$?" 128 "a point the plan does not have: exit 128"
fm_bisect --metric exec.seconds >/dev/null 2>&1
is "$?" 128 "neither --baseline nor --good: exit 128"
"$FLEETMARK" bisect-run "$WORK/plan.yaml" -f "$LABDIR/fleet.yaml" --metric exec.seconds --good 1 \
	-o "$RES" >/dev/null 2>&1
is "$?" 128 "no -H: exit 128"
fm_bisect --metric exec.seconds --good 1 --install 'exit 200' >"$WORK/u3.out" 2>&1
is "$?" 128 "an install hook exiting 200: abort"
fm_bisect --metric exec.seconds --good 1 --install 'exit 3' >"$WORK/u4.out" 2>&1
is "$?" 125 "an install hook exiting 3: skip"
is "$(find "$RES" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)" 0 "nothing was run by those"

# --- the bisection -------------------------------------------------------------------
git -C "$R" checkout -q "$BAD"
git bisect start "$BAD" "$GOOD" >&2
t0=$(date +%s)
git bisect run "$FLEETMARK" bisect-run "$WORK/plan.yaml" -f "$LABDIR/fleet.yaml" -H "$H" \
	--metric 'exec.seconds[copies=1]' --baseline "$BASE" --threshold 150% \
	--install "$WORK/install.sh" --reboot "$WORK/reboot.sh" --wait 6s --tries 2 -o "$RES" \
	>"$WORK/bisect.out" 2>"$WORK/bisect.err"
rc=$?
secs=$(($(date +%s) - t0))
git bisect log >"$WORK/bisect.log"
grep -E '^bisect-run ' "$WORK/bisect.out" | while IFS= read -r l; do diag "$l"; done
grep -E '^(# )?(git bisect|first bad)' "$WORK/bisect.log" | while IFS= read -r l; do diag "log: $l"; done
git bisect reset -q >&2
is "$rc" 0 "git bisect run finished (${secs} s, $(cat "$WORK/steps") steps)"
[ "$rc" = 0 ] || { sed 's/^/#   /' "$WORK/bisect.out" | tail -40; sed 's/^/#   /' "$WORK/bisect.err" | tail -20; }
like "$(cat "$WORK/bisect.out")" "$WANT is the first bad commit" "the culprit is commit $CULPRIT"
like "$(grep -A8 "^$WANT is the first bad commit" "$WORK/bisect.out")" "    commit $CULPRIT" \
	"git names it with its message"
P=$(cat "$WORK/partitioned-commit")
like "$(cat "$WORK/bisect.log")" "^git bisect skip $P" "the bisect log shows the partitioned step skipped"
like "$(cat "$WORK/bisect.log")" "# first bad commit: \[$WANT\]" "and the first bad commit"
pn=$(git -C "$R" log -1 --format=%s "$P")
pn=${pn#commit }
check "the skipped step ($pn) is not next to the culprit" test $((pn - CULPRIT)) -le -2 -o $((pn - CULPRIT)) -ge 2
like "$(cat "$WORK/bisect.out")" "bisect-run ${P:0:12} skip: $H did not answer SSH within 6 s" \
	"the verdict of the partitioned step: skip, host unreachable"
like "$(cat "$WORK/bisect.err")" "try 2 of 2" "it was tried twice"
# Every other step: good or bad with the numbers.
nv=$(grep -cE '^bisect-run [0-9a-f]{12} (good|bad): exec\.seconds\[copies=1\] mean [0-9.e+-]+ s vs baseline' "$WORK/bisect.out")
steps=$(cat "$WORK/steps")
is "$nv" $((steps - 1)) "every other step said good or bad with the numbers"
is "$(grep -c ' bad: ' "$WORK/bisect.out")" "$(grep -c '^git bisect bad' "$WORK/bisect.log")" \
	"every bad verdict is a bad step in the log"
check "no step was called bad because of the host" bash -c "! grep -E 'bisect-run ${P:0:12} bad' '$WORK/bisect.out'"
# Run directories: one per measured step, labelled with the short commit.
is "$(find "$RES" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)" $((steps - 1)) \
	"one run directory per measured step under -o"
labels=$(jq -r .label "$RES"/*/run.json | sort -u | tr '\n' ' ')
while IFS= read -r c; do
	like "$labels" "${c:0:12}" "run labelled ${c:0:12}"
done < <(sort -u "$WORK/installed" | grep -v "^$P")
is "$(sort -u "$WORK/installed" | wc -l)" "$steps" "the install hook saw FLEETMARK_COMMIT of every step"
check "the host is reachable again" "${SSHC[@]}" "$H" true

done_testing
