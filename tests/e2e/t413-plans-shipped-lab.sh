#!/usr/bin/env bash
# t413-plans-shipped-lab: every shipped plan (plans/*.yaml) runs on a lab
# host, as the bench user with sudo -n, shortened to repeat 1 and samples
# 1 (the rest of each plan as shipped), and finishes with every trial ok,
# or failed with a reason docs/plans-and-fleets.md documents: a variant
# under debugfs that this kernel does not let be applied (not mounted, no
# such file, access refused).  No trial may fail as bench, bad-request,
# timeout or anything else, and every plan's report is written.  The work
# directory is root's: the bench user's runs use their own.
# cost: 52 s, busy; lab: lab-04
TNAME=t413
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq

use_lab "$TNAME"
H=lab-04
has_host "$H" || { echo "Bail out! the lab has no $H"; exit 1; }

# The reasons a variant under debugfs may give (src/variant.c, documented).
DEBUGFS_REASONS='debugfs is not mounted at /sys/kernel/debug|this kernel has no such file there|the kernel refuses access to debugfs'

# The work directory is root's (root's runs made it, as earlier in the
# suite): the bench user's runs go to its own /tmp/fleetmark-UID, and the
# own plans' programs are uploaded there (docs/own-benchmarks.md).
on_host "$H" 'mkdir -p /tmp/fleetmark/agents /tmp/fleetmark/programs && chmod 755 /tmp/fleetmark /tmp/fleetmark/agents /tmp/fleetmark/programs'
n=0
# A plan's own programs are next to it (bench: program, source:).
[ -d "$TOP/plans/bench" ] && cp -r "$TOP/plans/bench" "$WORK/bench"
for plan in "$TOP"/plans/*.yaml; do
	name=${plan##*/}
	n=$((n + 1))
	sed -e 's/^repeat: .*/repeat: 1/' -e 's/^samples: .*/samples: 1/' "$plan" >"$WORK/$name"
	grep -q '^repeat: 1$' "$WORK/$name" || printf 'repeat: 1\n' >>"$WORK/$name"
	grep -q '^samples: 1$' "$WORK/$name" || printf 'samples: 1\n' >>"$WORK/$name"
	F=$LABDIR/fleet-bench.yaml
	t0=$(date +%s)
	"$FLEETMARK" run "$WORK/$name" -f "$F" -H "$H" -o "$WORK/r-$n" --wait-lock 5m \
		>"$WORK/out-$n" 2>"$WORK/err-$n"
	rc=$?
	secs=$(($(date +%s) - t0))
	D=$(echo "$WORK/r-$n"/*)
	T=$D/trials.jsonl
	like "$rc" '^(0|3)$' "$name on $H: the run finishes (exit $rc, ${secs}s)"
	[ -s "$T" ] || { tap_result 1 "$name: trials recorded"; sed 's/^/#   /' "$WORK/err-$n" | tail -5; continue; }
	ok=$(jq -r 'select(.status == "ok") | .key' "$T" | sort -u | wc -l)
	planned=$("$FLEETMARK" plan -v "$WORK/$name" -f "$F" -H "$H" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { print $NF }' | sort -u | wc -l)
	bad=$(jq -r --arg re "$DEBUGFS_REASONS" \
		'select(.status != "ok" and ((.status == "setup" and (.message | test($re))) | not)) |
		 "\(.key) \(.status): \(.message)"' "$T" | sort -u)
	is "$bad" "" "$name: every trial ok or failed for a documented reason"
	setup=$(jq -r 'select(.status == "setup") | .key' "$T" | sort -u | wc -l)
	is "$((ok + setup))" "$planned" "$name: all $planned trials ended ($ok ok, $setup not applicable here)"
	like "$ok" '^[1-9][0-9]*$' "$name: some trials measured"
	if [ "$setup" -gt 0 ]; then
		like "$(jq -r .hosts[\"$H\"].reason "$D/run.json")" "^setup: .*($DEBUGFS_REASONS)" \
			"$name: the host's reason says why the variant cannot be applied"
		like "$(cat "$WORK/out-$n")" "Failures: $setup trials? not ok" "$name: the failures table is printed"
	fi
	check "$name: report.txt written" test -s "$D/report.txt"
	case $name in own-*)
		like "$(cat "$D/logs/$H.log")" "the work directory /tmp/fleetmark is not this user's to use \\(.*\\): using /tmp/fleetmark-[0-9]+" \
			"$name: as bench, in its own work directory" ;;
	esac
done
like "$n" '^[1-9][0-9]*$' "every shipped plan was run ($n)"

done_testing
