#!/usr/bin/env bash
# t631-archive-bad-run: one bad run in a shared archive is warned about,
# named and left out, never fatal to the others.  A file:// archive holds
# a good run, a newer one with one rotted byte in logs/local.log (its sum
# fails) and a newest one whose MANIFEST names `../x`: `history URL` exits
# 0 and warns about both bad runs by name; `report URL/latest` and
# `report --baseline URL/latest` read the good run (the newest that
# verifies) with a warning; `ls` still lists all three; the run named
# directly (`report URL/RUNID`) is still an error; and the nightly form
# `run PLAN --baseline history --push URL` (a tiny plan on the default,
# local fleet) ends normally, warns about both runs and pushes its own.
# Costs about 1 s.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
W=$(mktemp -d /tmp/t631.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset FLEETMARK_CONFIG
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1
A=$W/arch
URL=file://$A

GOOD=20011201-000000-t631-0001
ROT=20011202-000000-t631-0002
EVIL=20011203-000000-t631-0003
# fixture ID: the report fixture as a finished run ID of plan t631, with a log
fixture() {
	local old=20011130-041500-tlb-flush-range-3f2a
	mkdir -p runs/"$1"/logs
	cp -r "$TOP/tests/data/report/munmap-base/." runs/"$1"/
	sed -i "s/$old/$1/; s/\"name\": \"tlb-flush-range\"/\"name\": \"t631\"/" runs/"$1"/run.json
	sed -i "s/$old/$1/g" runs/"$1"/trials.jsonl
	printf 'a log line\n' >runs/"$1"/logs/local.log
}
for id in $GOOD $ROT $EVIL; do
	fixture "$id"
	"$FLEETMARK" -q push "runs/$id" "$URL" || { echo "Bail out! push $id failed"; exit 1; }
done
# one byte of a log rotted in the archive
printf 'A' | dd of="$A/$ROT/logs/local.log" bs=1 seek=0 conv=notrunc status=none
# a hostile MANIFEST: a path out of the run
sed -i 's|  logs/local.log$|  ../x|' "$A/$EVIL/MANIFEST"
grep -q '  \.\./x$' "$A/$EVIL/MANIFEST" || { echo "Bail out! no hostile manifest"; exit 1; }

run_fm ls ls "$URL"
is "$rc $(xargs <ls.out)" "0 $GOOD $ROT $EVIL" "ls lists all three runs"

run_fm hist history "$URL"
is "$rc" 0 "history URL: exit 0"
like "$(cat hist.out)" ": 1 night from " "... the good run is the one night"
like "$(grep "$ROT" hist.err)" "warning: .*$ROT: .*local.log.*; left out" "... a warning names the rotted run and its file"
like "$(grep "$EVIL" hist.err)" "warning: .*$EVIL: .*MANIFEST.*; left out" "... and the run with the hostile manifest"

run_fm latest report -t summary "$URL/latest"
is "$rc" 0 "report URL/latest: exit 0"
like "$(cat latest.err)" "$EVIL.*left out" "... warning about the newest run"
like "$(cat latest.err)" "$ROT.*left out" "... and the next"
run_fm base report -t summary runs/$GOOD --baseline "$URL/latest"
is "$rc $(grep -c 'lab-03/' base.out)" "0 8" "report --baseline URL/latest: the good run (its 4 rows twice)"

run_fm direct report -t summary "$URL/$ROT"
is "$rc" 1 "report URL/RUNID of the rotted run itself: still an error (exit 1)"
like "$(cat direct.err)" "local.log" "... naming the file"

# the nightly: a tiny plan of the same name on the default (local) fleet
cat >plan.yaml <<'EOF'
name: t631
repeat: 1
samples: 1
timeout: 30s
benchmarks:
  - bench: exec
    params:
      command: "true"
      copies: 1
EOF
run_fm night run plan.yaml -o results --baseline history --push "$URL" --wait-lock 1m
like "$rc" '^(0|4)$' "run PLAN --baseline history --push URL: ends normally (exit $rc)"
like "$(cat night.err)" "$ROT.*left out" "... warning about the rotted run"
like "$(cat night.err)" "$EVIL.*left out" "... and the hostile one"
run_fm ls2 ls "$URL"
is "$(wc -l <ls2.out)" 4 "... and its own run is pushed (ls lists four)"

done_testing
