#!/usr/bin/env bash
# t612-bisect-cannot-judge: `fleetmark bisect-run` on this machine (local
# transport, no lab) uses the nightly verdict's "cannot judge" rule: a
# metric too noisy for its threshold is a skip (exit 125) that says so and
# that more trials will not help (its spread against the threshold), never
# bad, even when its mean is far worse; a steady one is judged (bad: exit 1).  The commit bisect-run
# measures (git rev-parse HEAD, FLEETMARK_COMMIT) is recorded in run.json.
# cost: 6 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_tools jq git
WORK=$(mktemp -d /tmp/t612.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
if ! git init -q . || ! git -c user.email=t612@example.org -c user.name=t612 commit -q --allow-empty -m one; then
	echo "Bail out! git init failed"
	exit 1
fi
HEAD=$(git rev-parse HEAD)

plan() {
	cat >"$1" <<EOF
name: t612
repeat: 4
samples: 1
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "sh $WORK/$2"
      copies: 1
EOF
}
# Each call sleeps longer than the one before (0.02 s times the square of
# its count), so however many calls a trial makes, no two trials are alike:
# 4 trials of one call each are 0.02, 0.08, 0.18 and 0.32 s, an rsd of 86%,
# far above 10% every time. (A random sleep was noisy only most of the time:
# 4 draws close together once gave an rsd of 6%.)
# shellcheck disable=SC2016 # for the workload's shell
printf '%s\n' 'n=$(($(cat '"$WORK"'/calls 2>/dev/null || echo 0) + 1))' \
	'echo "$n" >'"$WORK"'/calls' \
	'sleep "$(awk -v n="$n" '"'"'BEGIN { printf "%.2f", 0.02 * n * n }'"'"')"' >noisy.sh
echo 'sleep 0.1' >steady.sh
plan noisy.yaml noisy.sh
plan steady.yaml steady.sh

# step NAME PLAN GOOD [ARGS...]: one bisect-run step, waiting for local's
# lease while another run on this machine holds it.
step() {
	local name=$1 plan=$2 good=$3
	shift 3
	rm -rf "$name"
	"$FLEETMARK" bisect-run "$plan" -H local --metric "exec.seconds[command=sh $WORK/${plan%.yaml}.sh,copies=1]" \
		--good "$good" --threshold 10% -o "$name" --wait-lock 10m "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

step r1 noisy.yaml 0.001 --tries 1
is "$rc" 125 "a noisy metric far worse than good: skip (125), not bad"
like "$(cat r1.out)" "^bisect-run ${HEAD:0:12} skip: .*: cannot judge: rsd ([0-9.]+)% \(n=4\): noisy: more trials will not help, spread \1% against threshold 10%; alternating boots will \(fleetmark ab\); run " \
	"the verdict line says it cannot judge, and that more trials will not help"
is "$(jq -r .commit r1/*/run.json)" "$HEAD" "run.json records the commit measured"

step r2 steady.yaml 0.05
is "$rc" 1 "a steady metric twice as slow as good: bad (1)"
like "$(cat r2.out)" "^bisect-run ${HEAD:0:12} bad: " "... on a bad line"

done_testing
