#!/usr/bin/env bash
# t701-own-lab: the shipped own-benchmark plans (plans/own-munmap.yaml,
# plans/own-pagefault.yaml, their programs in plans/bench/) on the lab: an
# OpenSSH host, the armv7l board (no compiler: the cross-built static
# binary) and the big-endian s390x board.  Every trial gives every metric;
# the matrix and compare tables show them; a second run builds nothing
# (the controller's cache) and uploads nothing new; with no cross compiler
# (FLEETMARK_NO_CROSS=1) the OpenSSH host builds the program itself and a
# board without a compiler fails those trials as deploy errors.
# cost: 63 s, busy; lab: lab-04 board-armhf board-s390x
TNAME=t701
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq
use_lab "$TNAME"
L=$LABDIR
for h in lab-04 board-armhf board-s390x; do
	has_host "$h" || skip_all "the lab has no $h"
done
export XDG_CACHE_HOME=$WORK/cache
SEL=lab-04,board-armhf,board-s390x

# The shipped plans, one repetition of two samples (the boards are emulated).
mkdir -p "$WORK/plans"
cp -r "$TOP/plans/bench" "$WORK/plans/"
for p in own-munmap own-pagefault; do
	sed -e 's/^repeat: .*/repeat: 1/' -e 's/^samples: .*/samples: 2/' \
		"$TOP/plans/$p.yaml" >"$WORK/plans/$p.yaml"
done

run_lab() {	# NAME PLAN [ENV...]: run PLAN on $SEL into $WORK/NAME
	local name=$1 plan=$2
	shift 2
	env "$@" "$FLEETMARK" run "$WORK/plans/$plan.yaml" -f "$L/fleet.yaml" -H "$SEL" --wait-lock 5m \
		-o "$WORK/$name" >"$WORK/$name.out" 2>"$WORK/$name.err"
	rc=$?
	D=$(run_dir "$WORK/$name")
}

# --- own-munmap on three architectures -------------------------------------------

run_lab m1 own-munmap
is "$rc" 0 "own-munmap on lab-04, board-armhf and board-s390x exits 0"
[ "$rc" = 0 ] || tail -20 "$WORK/m1.err" | sed 's/^/#   /'
M1=$D
is "$(jq -r 'select(.status == "ok") | .host' "$M1/trials.jsonl" | sort | uniq -c | awk '{print $2 ":" $1}' | xargs)" \
	"board-armhf:36 board-s390x:36 lab-04:36" "9 points x 4 metrics ok on every host"
is "$(jq -r '.arch' "$M1/hosts/board-armhf.json" "$M1/hosts/board-s390x.json" | xargs) $(jq -r '.compiler' "$M1/hosts/board-armhf.json")" \
	"armhf s390x null" "the boards run their own architecture and have no compiler"
is "$(find "$XDG_CACHE_HOME/fleetmark/programs" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' | sed 's/^[0-9a-f]*-//' | sort | xargs)" "armhf s390x x86_64" \
	"one cross build per architecture, in the controller's cache"
bad=
for h in board-armhf board-s390x; do
	grep -q "program munmap-range at .*/programs/[0-9a-f]*/munmap (uploaded)$" "$M1/logs/$h.log" || bad="$bad $h"
done
is "${bad# }" "" "the boards got the cross-built binary (WORKDIR/programs/SUM/munmap)"
run_fm "$WORK/matrix" report "$M1" --table matrix
like "$(grep -A4 '^munmap-range ns_per_access' "$WORK/matrix.out" | tr '\n' ' ')" \
	'threads +pages=8 +pages=16 +pages=32 +4 .* 8 .* 16 ' "the matrix table shows ns_per_access, threads x pages"
is "$(grep -oE '^munmap-range [a-z_]+ ' "$WORK/matrix.out" | sort -u | xargs) $(grep -oE 'lab-04|board-armhf|board-s390x' "$WORK/matrix.out" | sort -u | xargs)" \
	"munmap-range accesses_per_ms munmap-range ns_per_access munmap-range ns_per_munmap munmap-range total_ms board-armhf board-s390x lab-04" \
	"matrices of the 4 metrics, with the 3 hosts"
[ "$_tap_failed" = 0 ] || sed 's/^/#   /' "$WORK/matrix.out" | head -40

stamp=$(stat -c %Y "$XDG_CACHE_HOME"/fleetmark/programs/*-armhf/.name)
run_lab m2 own-munmap
is "$rc" 0 "a second own-munmap run exits 0"
is "$(stat -c %Y "$XDG_CACHE_HOME"/fleetmark/programs/*-armhf/.name)" "$stamp" "it builds nothing (cached)"
is "$(grep -h 'program munmap-range at' "$D"/logs/*.log | sed 's/.*(//' | sort | uniq -c | xargs)" "3 already there)" \
	"and uploads nothing: every host already has it"
run_fm "$WORK/cmp" compare "$M1" "$D"
is "$rc" 0 "compare of the two runs"
is "$(grep -cE '^munmap-range +threads=[0-9]+,pages=[0-9]+ +ns_per_access ' "$WORK/cmp.out")" 27 \
	"the compare table has ns_per_access for every point of every host"

# --- own-pagefault, in batches ---------------------------------------------------------

run_lab p1 own-pagefault
is "$rc" 0 "own-pagefault on the three hosts exits 0"
is "$(jq -r 'select(.status == "ok") | .host + ":" + (.samples | length | tostring)' "$D/trials.jsonl" | sort | uniq -c | awk '{print $2 "x" $1}' | xargs)" \
	"board-armhf:2x2 board-s390x:2x2 lab-04:2x2" "each trial: one sample per batch (2), both points, every host"
run_fm "$WORK/pfm" report "$D" --table all
like "$(cat "$WORK/pfm.out")" 'pagefault-mail +pages=256 +fault_ns ' "report shows pagefault-mail's fault_ns"
grep -q 'pagefault-mail' "$WORK/pfm.out" || sed 's/^/#   /' "$WORK/pfm.out" | head -30

# --- no cross compiler: built on the host, or a deploy error on a board --------------

rm -rf "$XDG_CACHE_HOME"
run_lab nc own-pagefault FLEETMARK_NO_CROSS=1
is "$rc" 3 "no cross compiler: exit 3 (the boards' trials failed)"
grep -q 'program pagefault-mail at .*/programs/[0-9a-f]*-src/pagefault (built there)$' "$D/logs/lab-04.log"
tap_result $? "lab-04 built it with its own cc"
is "$(jq -r 'select(.host == "lab-04") | .status' "$D/trials.jsonl" | sort -u)" ok "and ran it"
is "$(jq -r 'select(.host != "lab-04") | .status' "$D/trials.jsonl" | sort -u)" deploy "the boards' trials: deploy"
like "$(jq -r 'select(.host == "board-armhf") | .message' "$D/trials.jsonl" | head -1)" \
	'^board-armhf: cannot build pagefault-mail there \(its cc\): no C compiler' "the message says why"
is "$(find "$XDG_CACHE_HOME/fleetmark/programs" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null | wc -l)" 0 "nothing was cross-built"

done_testing
