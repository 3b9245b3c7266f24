#!/usr/bin/env bash
# t613-run-group-lab: two controllers, one fleet, one archive.  On the lab,
# with the fleet's hosts lab-01 and lab-02 labelled rack1 and lab-03 and
# lab-04 rack2 (a copy of the lab's fleet.yaml: what other tests see is
# unchanged), one run over both racks, then two `fleetmark run -H @rack1`
# and `-H @rack2 --group ID` started at once, each with its own results
# directory and cache as two machines would have, both pushing to the
# WebDAV archive (tests/lab/archive).  `report URL/group:ID` is exactly
# `report RUN1 RUN2` of the two runs, and the single run's tables with the
# numbers masked (the same series, rows and columns) under a table of the
# group's runs with their hosts, controllers and starts; `history` over the
# archive counts the group as one night.  A second group night with
# `--baseline latest` compares each controller's hosts with its own rack's
# run of the first group.  A third run of the group on a host it already
# has makes the group bad input (exit 2).  t614 tests the rest offline.
# cost: 9 s, busy; lab: lab-01 lab-02 lab-03 lab-04
# shellcheck disable=SC2317 # functions called through trap
TNAME=t613
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
command -v nginx >/dev/null || skip_all "needs nginx (tools/deps: nginx-light)"
[ -r /usr/lib/nginx/modules/ngx_http_dav_ext_module.so ] ||
	skip_all "needs libnginx-mod-http-dav-ext (tools/deps)"

use_lab "$TNAME"
for h in lab-01 lab-02 lab-03 lab-04; do
	has_host "$h" || skip_all "needs lab hosts lab-01 to lab-04"
done
ARCH=$TOP/tests/lab/archive
SRV=$WORK/srv
trap '"$ARCH" stop "$SRV" >/dev/null 2>&1; _lab_cleanup' EXIT
chmod 755 "$WORK"	# nginx's workers (nobody) serve from under it
cd "$WORK" || exit 1
export XDG_CONFIG_HOME=$WORK/cfg XDG_CACHE_HOME=$WORK/cache NO_COLOR=1
unset FLEETMARK_CONFIG
U=$("$ARCH" start "$SRV") || { echo "Bail out! tests/lab/archive start failed"; exit 1; }
A=$U/dav/runs

# The lab's fleet with two racks more among the labels.
awk '/^  [a-z]/ { host = $1 }
	/^    labels: \[/ && (host == "lab-01:" || host == "lab-02:") { sub(/\]$/, ", rack1]") }
	/^    labels: \[/ && (host == "lab-03:" || host == "lab-04:") { sub(/\]$/, ", rack2]") }
	{ print }' "$LABDIR/fleet.yaml" >fleet.yaml
is "$("$FLEETMARK" hosts -f fleet.yaml -H @rack1 2>&1 | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" \
	"lab-01 lab-02 " "the fleet copy: @rack1 is lab-01 and lab-02"
is "$("$FLEETMARK" hosts -f fleet.yaml -H @rack2 2>&1 | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" \
	"lab-03 lab-04 " "... and @rack2 lab-03 and lab-04"

cat >plan.yaml <<'EOF'
name: racks
repeat: 3
samples: 3
timeout: 60s
benchmarks:
  - bench: exec
    params:
      command: "true"
      copies: 1
EOF
rundir_of() { sed -n 's/^run directory: //p' "$1"; }
# controller N GROUP HOSTS [ARGS...]: controller N's run in the background;
# its pid in PID[N].  Its results directory and cache are its own.
declare -A PID
controller() {
	local n=$1 group=$2 hosts=$3
	shift 3
	XDG_CACHE_HOME=$WORK/cache-$n "$FLEETMARK" run plan.yaml -f fleet.yaml -H "$hosts" \
		-o "ctl$n" --group "$group" --push "$A" -q "$@" >"ctl$n-$group.out" 2>"ctl$n-$group.err" &
	PID[$n]=$!
}
# finish N GROUP: wait for controller N; its exit status in rc.
finish() {
	wait "${PID[$1]}"
	rc=$?
	[ "$rc" = 0 ] || sed 's/^/# /' "ctl$1-$2.err"
}

# --- one controller over both racks --------------------------------------------------
"$FLEETMARK" run plan.yaml -f fleet.yaml -H @rack1,@rack2 -o single --push "$A" -q \
	>single.run 2>single.err
is "$?" 0 "one run over @rack1,@rack2: exit 0"
S=$(rundir_of single.run)

# --- two controllers at once, one group ----------------------------------------------
controller 1 night-1 @rack1
controller 2 night-1 @rack2
finish 1 night-1
is "$rc" 0 "controller 1 (-H @rack1 --group night-1): exit 0"
finish 2 night-1
is "$rc" 0 "controller 2 (-H @rack2 --group night-1): exit 0"
R1=$(rundir_of ctl1-night-1.out)
R2=$(rundir_of ctl2-night-1.out)
is "$(jq -r '.group + " " + (.hosts | keys | join(","))' "$R1/run.json") $(jq -r '.group + " " + (.hosts | keys | join(","))' "$R2/run.json")" \
	"night-1 lab-01,lab-02 night-1 lab-03,lab-04" "each run.json records the group and its rack"
is "$("$FLEETMARK" ls "$A" | wc -l)" 3 "the archive holds the three runs"

run_fm group report "$A/group:night-1"
is "$rc" 0 "report URL/group:night-1: exit 0"
sed 's/^/# /' group.out
# the group's runs in the order of their ids, as the group lists them: the
# two controllers start at once, so either may be first.  Sorted on the id,
# not on the path: ctl1/ comes before ctl2/ whatever the ids.
# shellcheck disable=SC2046 # one path per word
set -- $(printf '%s %s\n' "${R1##*/}" "$R1" "${R2##*/}" "$R2" | sort | cut -d' ' -f2)
FIRST=$1 SECOND=$2
hosts_of() { if [ "$1" = "$R1" ]; then echo "lab-01, lab-02"; else echo "lab-03, lab-04"; fi; }
"$FLEETMARK" report "$FIRST" "$SECOND" >two.out 2>two.err
check "... exactly what report RUN1 RUN2 prints, in id order" diff two.out group.out
like "$(head -4 group.out)" "^Run group: the runs merged, each with its hosts, controller and start
group +run +hosts +controller +start
night-1 +${FIRST##*/} +$(hosts_of "$FIRST") +[^ ]+ +20[0-9-]+T[0-9:]+Z
night-1 +${SECOND##*/} +$(hosts_of "$SECOND") +[^ ]+ +20[0-9-]+T[0-9:]+Z" \
	"... the group's runs on top in id order, each with its hosts, controller and start"
mask() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/noisy//g; s/ +/ /g; s/ $//' "$@"; }
"$FLEETMARK" report "$S" >single.out 2>/dev/null
sed '1,/^$/d' group.out | mask >group.tables
mask single.out >single.tables
check "... then the single run's tables, the numbers masked: the same series, rows and columns" \
	diff single.tables group.tables
is "$(grep -c 'lab-0[1-4]/' group.tables)" "$(grep -c 'lab-0[1-4]/' single.tables)" \
	"... a row per host and metric, as the single run"
check "... no host twice (no #2 series)" sh -c "! grep -q '#N' group.tables"

run_fm hist history "$A"
is "$rc" 0 "history of the archive: exit 0"
sed 's/^/# /' hist.out
like "$(head -1 hist.out)" ": 2 nights \(3 runs: a run group's are one night\)" \
	"... the single run and the group: two nights"

# --- the next night: --baseline latest from each controller ---------------------------
# Run ids sort by start time (to 1/256 s), so night-2's runs are later than
# night-1's whatever second they start in.
controller 1 night-2 @rack1 --baseline latest
controller 2 night-2 @rack2 --baseline latest
finish 1 night-2
ok1=$rc
finish 2 night-2
ok2=$rc
check "night-2: both controllers exit 0 or 4 (a regression is the numbers' business)" \
	test "$ok1" != 1 -a "$ok1" != 2 -a "$ok2" != 1 -a "$ok2" != 2
like "$(head -1 ctl1-night-2.out)" "^baseline: $A/${R1##*/} " \
	"controller 1's baseline: rack1's run of night-1"
like "$(head -1 ctl2-night-2.out)" "^baseline: $A/${R2##*/} " \
	"controller 2's baseline: rack2's run of night-1"
run_fm cmp compare "$A/group:night-1" "$A/group:night-2"
check "compare URL/group:night-1 URL/group:night-2: exit 0 or 4" test "$rc" = 0 -o "$rc" = 4
for h in lab-01 lab-02 lab-03 lab-04; do
	like "$(cat cmp.out)" "$h/[^ ]+ +$h/[^ ]+#2" "... $h against itself"
done
run_fm hist2 history "$A" --group 'night-*'
like "$(head -1 hist2.out)" ": 2 nights \(4 runs: a run group's are one night\)" \
	"history --group 'night-*': the two group nights"

# --- a host twice in a group -----------------------------------------------------------
controller 3 night-2 lab-01
finish 3 night-2
is "$rc" 0 "a third controller on lab-01 with --group night-2: the run itself is fine"
run_fm twice report "$A/group:night-2"
is "$rc" 2 "report URL/group:night-2: exit 2"
like "$(cat twice.err)" "group 'night-2': host lab-01 is in two runs" "... naming the host"

done_testing
