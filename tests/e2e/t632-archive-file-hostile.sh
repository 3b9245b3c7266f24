#!/usr/bin/env bash
# t632-archive-file-hostile: a file:// archive that someone else may
# write.  A FIFO in place of trials.jsonl or of the MANIFEST does not hang
# pull, report URL/RUNID, report URL/latest or history URL: "not a regular
# file", at once.  A symlinked logs/ directory (pointing at a file outside
# the archive whose sum the manifest gives, and one whose sum it does
# not) and a symlinked run directory are refused, and the errors neither
# copy the outside file nor give its size or sum away.  Every command is
# bounded by timeout(1).  Costs about 1 s.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
W=$(mktemp -d /tmp/t632.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset FLEETMARK_CONFIG
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1
# tfm NAME ARGS...: run_fm, killed after 10 s (a hang shows as exit 137)
tfm() {
	local name=$1
	shift
	timeout -s KILL 10 "$FLEETMARK" "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

# run ID [DIR]: the report fixture as run ID of plan t632, with a log, pushed to DIR's archive
OLD=20011130-041500-tlb-flush-range-3f2a
run() {
	mkdir -p "runs/$1/logs"
	cp -r "$TOP/tests/data/report/munmap-base/." "runs/$1/"
	sed -i "s/$OLD/$1/; s/\"name\": \"tlb-flush-range\"/\"name\": \"t632\"/" "runs/$1/run.json"
	sed -i "s/$OLD/$1/g" "runs/$1/trials.jsonl"
	printf 'a log line\n' >"runs/$1/logs/local.log"
	"$FLEETMARK" -q push "runs/$1" "file://$W/$2" || { echo "Bail out! push $1 failed"; exit 1; }
}

# --- FIFOs ---------------------------------------------------------------------------

F1=20011201-000000-t632-0001
run $F1 fifo1
rm "fifo1/$F1/trials.jsonl"
mkfifo "fifo1/$F1/trials.jsonl"
tfm pull1 pull "file://$W/fifo1/$F1" "$W/p1"
is "$rc" 1 "pull of a run whose trials.jsonl is a FIFO: exit 1 at once (not 137: no hang)"
like "$(cat pull1.err)" "trials.jsonl: not a regular file" "... not a regular file"
check "... and nothing pulled" test ! -e "$W/p1"

F2=20011202-000000-t632-0002
run $F2 fifo2
rm "fifo2/$F2/MANIFEST"
mkfifo "fifo2/$F2/MANIFEST"
tfm rep2 report "file://$W/fifo2/$F2"
is "$rc" 1 "report URL/RUNID whose MANIFEST is a FIFO: exit 1 at once"
like "$(cat rep2.err)" "MANIFEST: not a regular file" "... not a regular file"
tfm lat2 report -t summary "file://$W/fifo1/latest"
is "$rc" 1 "report URL/latest whose only run has a FIFO: exit 1 at once"
cp -r "runs/$F2" "runs/20011130-000000-t632-0000"
"$FLEETMARK" -q push "runs/20011130-000000-t632-0000" "file://$W/fifo1"
tfm hist2 history "file://$W/fifo1"
is "$rc" 0 "history URL with a FIFO in a run: exit 0 at once"
like "$(cat hist2.err)" "$F1: .*not a regular file; left out" "... that run left out, with a warning"

# --- symbolic links ----------------------------------------------------------------------

mkdir victim
printf 'a log line\n' >victim/local.log	# the same bytes: its sum matches
S1=20011203-000000-t632-0003
run $S1 sym
rm -r "sym/$S1/logs"
ln -s "$W/victim" "sym/$S1/logs"
tfm sym1 pull "file://$W/sym/$S1" "$W/p3"
is "$rc" 1 "pull through a symlinked logs/ to a matching file outside: refused"
like "$(cat sym1.err)" "logs/local.log: a symbolic link on the way" "... saying so"
check "... and the outside file not copied" test ! -e "$W/p3/logs/local.log"
printf 'a secret of some length\n' >victim/local.log	# other bytes: the sum differs
tfm sym2 pull "file://$W/sym/$S1" "$W/p4"
is "$rc" 1 "pull through it to a file that differs: refused"
check_fail "... and no size or sum of the outside file in the error" grep -Eq 'bytes|sha256|24' sym2.err

S2=20011204-000000-t632-0004
run $S2 real
mkdir symrun
ln -s "$W/real/$S2" "symrun/$S2"
tfm sym3 pull "file://$W/symrun/$S2" "$W/p5"
is "$rc" 1 "pull of a symlinked run directory: refused"
like "$(cat sym3.err)" "a symbolic link on the way" "... saying so"
tfm sym4 report -t summary "file://$W/symrun/$S2"
is "$rc" 1 "report URL/RUNID of a symlinked run directory: refused"

done_testing
