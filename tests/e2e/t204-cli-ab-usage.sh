#!/usr/bin/env bash
# t204-cli-ab-usage: `fleetmark ab` refuses what it cannot run before the
# first reboot, with the exit status and message docs/ab.md gives (2 for
# bad usage or input: a side missing, a host named twice, --boots below 2,
# an unknown order, a plan or fleet error at FILE:LINE:COL, an unknown
# host; a resume of what is not an ab directory), runs no side command and
# writes nothing; --dry-run prints each host's sequence in the order asked
# for, and writes nothing either.  No lab, no board.
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
W=$(mktemp -d)
O=$(mktemp -d)	# each command's output, outside the watched tree
trap 'rm -rf "$W" "$O"' EXIT
mkdir -p "$W/run"
cp "$TOP/tests/data/plan-ok.yaml" "$TOP/tests/data/fleet-ok.yaml" "$W/run/"
cp "$TOP/tests/data/bad/plan-bad-int.yaml" "$TOP/tests/data/bad/fleet-bad-port.yaml" "$W/run/"
cd "$W/run" || exit 1
# A side command that ran would leave this file behind.
SIDE="touch $W/run/side-ran"

snapshot() { (cd "$W" && find . -printf '%p %s %T@\n' | sort); }
before=$(snapshot)

# refuse CODE MESSAGE DESCRIPTION ARGS...: ab ARGS exits CODE, says MESSAGE
# (a fixed string) on stderr, prints nothing on stdout.
refuse() {
	local code=$1 msg=$2 desc=$3
	shift 3
	"$FLEETMARK" ab "$@" >"$O/out" 2>"$O/err"
	is "$?" "$code" "$desc: exit $code"
	if grep -qF -- "$msg" "$O/err"; then
		tap_result 0 "$desc: says so"
	else
		tap_result 1 "$desc: says so"
		sed 's/^/#   /' "$O/err" | head -5
	fi
	is "$(cat "$O/out")" "" "$desc: nothing on stdout"
}

refuse 2 "give both sides: -A CMD and -B CMD" "no -B" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -o res
refuse 2 "give both sides: -A CMD and -B CMD" "no -A" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -B "$SIDE" -o res
refuse 2 "give the hosts: -H HOSTS" "no -H" \
	plan-ok.yaml -f fleet-ok.yaml -A "$SIDE" -B "$SIDE" -o res
refuse 2 "-H alpha,beta,alpha: host 'alpha' is named twice" "a host named twice" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha,beta,alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "--boots: expected a number from 2 to 99, not '1'" "--boots 1" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --boots 1 -o res
refuse 2 "--order: expected abba, alternate or random, not 'aabb'" "an unknown order" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --order aabb -o res
refuse 2 "plan-bad-int.yaml:5:14: parameter pages of munmap: '8x' is not an integer" \
	"a plan error" plan-bad-int.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "fleet-bad-port.yaml:4:11: 70000 is out of range (1 to 65535)" "a fleet error" \
	plan-ok.yaml -f fleet-bad-port.yaml -H alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "-H: unknown host 'gamma'" "an unknown host" \
	plan-ok.yaml -f fleet-ok.yaml -H gamma -A "$SIDE" -B "$SIDE" -o res
refuse 2 "is not an ab directory (no ab.json)" "--resume of a directory without ab.json" \
	--resume "$W/run"
refuse 2 "unknown format 'html'" "--format html" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --format html -o res

# --dry-run: each host's sequence, abba by default; alternate when asked.
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha,beta -A "$SIDE" -B "$SIDE" \
	--boots 3 -o res --dry-run >"$O/out" 2>"$O/err"
is "$?" 0 "--dry-run: exit 0"
is "$(grep -E '^(alpha|beta):' "$O/out")" "alpha: A B B A A B
beta: A B B A A B" "--dry-run: abba, 3 boots a side, per host"
like "$(cat "$O/out")" "machine time: .* at most about [0-9]+ s" "--dry-run: the machine time"
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" \
	--order alternate --boots 2 -o res --dry-run >"$O/out" 2>"$O/err"
is "$(grep -E '^alpha:' "$O/out")" "alpha: A B A B" "--dry-run --order alternate"

is "$(snapshot)" "$before" "nothing written, no side command run"
done_testing
