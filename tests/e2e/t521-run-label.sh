#!/usr/bin/env bash
# t521-run-label: `run --label` takes the rule of group ids (letters,
# digits, . _ -, starting with a letter or digit, at most 64 bytes): a
# label with '/', a newline, an escape sequence, or an empty one is bad
# usage (exit 2, "--label: expected a name"), before any run directory is
# made; a good label is recorded in run.json.  The default (local) fleet.
# About 1 s.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
WORK=$(mktemp -d /tmp/t521.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
export XDG_CONFIG_HOME=$WORK/cfg XDG_CACHE_HOME=$WORK/cache NO_COLOR=1 \
	FLEETMARK_LEASE_FILE=$WORK/lease
unset FLEETMARK_CONFIG
plan_syscall plan.yaml tiny 1 3

n=0
for label in 'a/b' '../../x' $'line1\nline2' $'\e[31mred' $'tab\there' '' '-x' \
	"$(printf 'l%.0s' {1..65})"; do
	n=$((n + 1))
	run_fm "bad$n" run plan.yaml -o res --label "$label"
	is "$rc" 2 "--label $(printf '%q' "$label" | head -c 40): exit 2"
	like "$(cat "bad$n.err")" "^fleetmark: error: --label: expected a name" "... saying what a label is"
done
check "no run directory was made" test ! -e res
run_fm good run -q plan.yaml -o res --label with-patch.2_b
is "$rc $(jq -r .label "$(run_dir res)/run.json" 2>/dev/null)" "0 with-patch.2_b" \
	"--label with-patch.2_b: the run is made and labelled"

done_testing
