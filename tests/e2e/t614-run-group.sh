#!/usr/bin/env bash
# t614-run-group: run groups (`run --group ID`) without the lab.  A real
# local run records its group in run.json; a --group that is not a group
# id is bad usage.  From that run, run directories are made as two
# controllers would leave them (one host each, one group) and as a single
# run over both hosts: `report group:ID` prints exactly what `report RUN1
# RUN2` prints, and the tables of the single run (the numbers masked) under
# a table of the group's runs; `compare group:A group:B` compares each
# host with itself; a group of two plans, or with a host in two runs, is
# bad input (exit 2) naming the runs; a group with no run exits 1; a
# file:// archive gives URL/group:ID the same report; `history` counts a
# group as one night, and --group GLOB keeps the groups it matches.  The
# two controllers on the lab, pushing to WebDAV, are t613.
# cost: 4 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
need_tools jq
W=$(mktemp -d /tmp/t614.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export XDG_CACHE_HOME=$W/cache XDG_CONFIG_HOME=$W/cfg NO_COLOR=1
unset FLEETMARK_CONFIG

cat >plan.yaml <<'EOF'
name: grp
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "true"
      copies: 1
EOF

# --- run --group --------------------------------------------------------------------

run_fm bad run plan.yaml -o local --group 'rack 1'
is "$rc" 2 "run --group with a space: exit 2"
like "$(cat bad.err)" "--group: expected a group id \(1 to 64 letters, digits, '.', '_' or '-'" \
	"... saying what a group id is"
run_fm bad2 run plan.yaml -o local --group -x
is "$rc" 2 "run --group starting with '-': exit 2"
check "... and no run directory made" test ! -e local
run_fm run -q run plan.yaml -o local --group night-1
is "$rc" 0 "run --group night-1: exit 0"
SRC=$(run_dir local)
is "$(jq -r .group "$SRC/run.json")" "night-1" "run.json records the group"
run_fm res1 run plan.yaml -o local --resume "$SRC" --group night-2
is "$rc" 2 "--resume with another --group: exit 2"
like "$(cat res1.err)" "--group night-2: the run $SRC is of group night-1 \(a resumed run keeps its group\)" \
	"... saying the run keeps its group"
run_fm res2 run plan.yaml -o local --resume "$SRC" --group night-1
is "$rc" 0 "--resume with the run's own --group: taken (nothing left to run)"

# mk DST ID PLAN GROUP HOST...: SRC's trials (host local) as run ID of plan
# PLAN on each HOST, of GROUP ("" for none), into DST/ID.
mk() {
	local dst=$1 id=$2 plan=$3 group=$4 h
	shift 4
	mkdir -p "$dst/$id/hosts" "$dst/$id/logs"
	: >"$dst/$id/trials.jsonl"
	for h in "$@"; do
		jq -c --arg h "$h" --arg id "$id" '.host = $h | .run = $id' "$SRC/trials.jsonl" \
			>>"$dst/$id/trials.jsonl"
		cp "$SRC/hosts/local.json" "$dst/$id/hosts/$h.json"
	done
	# started and ended when the id says, in 2001
	jq --arg id "$id" --arg g "$group" --arg p "$plan" '.run = $id | .plan.name = $p |
		.start = ($id[0:4] + "-" + $id[4:6] + "-" + $id[6:8] + "T" + $id[9:11] + ":" +
		$id[11:13] + ":" + $id[13:15] + "Z") | .end = .start |
		(if $g == "" then del(.group) else .group = $g end) |
		.hosts = ([$ARGS.positional[] as $h | {($h): .hosts.local}] | add)' \
		"$SRC/run.json" --args "$@" >"$dst/$id/run.json"
}
R=results
mk $R 20011201-020000-grp-0001 grp "" alpha beta	# one controller, both hosts
mk $R 20011202-020000-grp-0002 grp g2 alpha		# two controllers, one night
mk $R 20011202-020001-grp-0003 grp g2 beta
mk $R 20011203-020000-grp-0004 grp g3 beta
mk $R 20011203-020002-grp-0005 grp g3 alpha
mk $R 20011204-020000-grp-0006 grp mixed alpha
mk $R 20011204-020000-other-0007 other mixed beta
mk $R 20011205-020000-grp-0008 grp twice alpha beta
mk $R 20011205-020001-grp-0009 grp twice beta

# --- report group:ID ------------------------------------------------------------------

run_fm single report $R/20011201-020000-grp-0001
run_fm group report group:g2
is "$rc" 0 "report group:g2: exit 0"
run_fm two report $R/20011202-020000-grp-0002 $R/20011202-020001-grp-0003
check "... exactly what report RUN1 RUN2 prints" cmp group.out two.out
like "$(head -4 group.out)" "^Run group: the runs merged, each with its hosts, controller and start
group +run +hosts +controller +start
g2 +20011202-020000-grp-0002 +alpha +[^ ]+ +20[0-9-]+T
g2 +20011202-020001-grp-0003 +beta " "... the group's runs first, each with its hosts, controller and start"
# the tables: the numbers masked, noisy or not, spaces squeezed
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/noisy//g; s/ +/ /g; s/ $//' "$@"; }
sed '1,/^$/d' group.out | mask >group.tables
mask single.out >single.tables
check "... then the tables of one run over both hosts (numbers masked)" diff single.tables group.tables
like "$(cat group.tables)" "alpha/.*
.*beta/" "... a series per host"
check "... no host twice (no #2 series)" sh -c "! grep -q '#N' group.tables"
run_fm gmd report group:g2 --format md
like "$(cat gmd.out)" "\| group \| run \| hosts \| controller \| start \|" "--format md: the runs' table too"
run_fm gjs report group:g2 --format json
is "$(jq -r '[.[] | select(.table == "group") | .run] | join(" ")' gjs.out)" \
	"20011202-020000-grp-0002 20011202-020001-grp-0003" "--format json: an object per run of the group"

run_fm cmp compare group:g2 group:g3
is "$rc" 0 "compare group:g2 group:g3: exit 0"
like "$(cat cmp.out)" "alpha/[^ ]+ +alpha/[^ ]+#2" "... alpha against alpha"
like "$(cat cmp.out)" "beta/[^ ]+ +beta/[^ ]+#2" "... beta against beta"
check "... and no host against another" sh -c "! grep -Eq 'alpha/[^ ]+ +beta|beta/[^ ]+ +alpha' cmp.out"
run_fm rb report group:g3 --baseline group:g2 --table compare
check "report group:B --baseline group:A: the same compare" cmp cmp.out rb.out

run_fm mixed report group:mixed
is "$rc" 2 "a group of two plans: exit 2"
like "$(cat mixed.err)" "group 'mixed': runs of two plans \(20011204-020000-grp-0006: plan grp, 20011204-020000-other-0007: plan other\)" \
	"... naming the runs and their plans"
run_fm twice report group:twice
is "$rc" 2 "a host in two runs of a group: exit 2"
like "$(cat twice.err)" "group 'twice': host beta is in two runs \(20011205-020000-grp-0008, 20011205-020001-grp-0009\)" \
	"... naming the host and the runs"
run_fm none report group:nosuch
is "$rc" 1 "a group with no run: exit 1"
like "$(cat none.err)" "no run of group 'nosuch' in results" "... saying where it looked"
run_fm badid report 'group:a b'
is "$rc" 2 "group:ID with an id that is not one: exit 2"

# --- an archive: URL/group:ID ----------------------------------------------------------

A=file://$W/archive
for id in 20011201-020000-grp-0001 20011202-020000-grp-0002 20011202-020001-grp-0003 \
	20011203-020000-grp-0004 20011203-020002-grp-0005; do
	"$FLEETMARK" -q push "$R/$id" "$A" || echo "# push $id failed"
done
run_fm agroup report "$A/group:g2"
is "$rc" 0 "report URL/group:g2: exit 0"
check "... the same report as the local runs'" cmp group.out agroup.out

# --- history ---------------------------------------------------------------------------

run_fm hist history "$A"
is "$rc" 0 "history of the archive: exit 0"
like "$(head -1 hist.out)" ": 3 nights \(5 runs: a run group's are one night\) from 2001-12-01 to " \
	"... a group is one night"
run_fm histg history "$A" --group 'g*' --format json
is "$(jq -r '[.[] | .group] | unique | join(" ")' histg.out)" "g2 g3" "--group 'g*': the groups' nights only"
is "$(jq -r '[.[] | select(.host == "beta" and .metric == "seconds") | .run] | join(" ")' histg.out)" \
	"20011202-020001-grp-0003 20011203-020000-grp-0004" "... beta's nights: one a group, from its run"
run_fm histn history "$A" --group nosuch
is "$rc" 2 "--group matching no group: exit 2"

done_testing
