#!/usr/bin/env bash
# t804-board-ab: `fleetmark ab` on a real kernel (a qemu board), two
# kernel command lines as the sides: A boots "fm_side=a", B "fm_side=b
# pti=on" (page table isolation: under qemu's TCG each system call then
# switches page tables, and lat_syscall, the null call by default, is 12
# to 17 times slower, docs/boards.md).  Each side command sets the board's
# next command line and power-cycles it.
#
# 1. Three boots a side, interrupted with SIGTERM once two boots are done
#    (exit 130), then --resume: the sequence completes, each boot measured
#    once (no boot number twice in the trials, six run directories, each
#    with the plan's trials), every trial line says its side and boot, the
#    six boots' ids differ and each ran its side's command line, a partial
#    run directory found where a boot goes is set aside; the
#    verdict is B worse (exit 4), its change the one the boots' trial
#    values give: exp(mean over blocks of (mean log B - mean log A)) - 1,
#    computed here with jq from trials.jsonl and ab.json's blocks.
#    The first time side B's command runs it boots A's command line: the
#    boot check fails, the board is power-cycled (its inventory's
#    `recover: 2`), side B's command runs again and its boot is measured;
#    ab.json notes the lost boot under "recovered", the output says so.
#    Three, not two: with two pairs the t has 1 degree of freedom and needs
#    t > 6.3 for p < 0.05, and a change of +1,893% measured here was
#    judged noisy (its two blocks' ratios that far apart under TCG on a
#    busy machine); with three pairs t > 2.9 will do.
# 2. Side B's command boots A's command line, on a board whose inventory
#    allows no power cycle (`recover: 0`): the boot check (fm_side=b)
#    fails, the host fails with class boot (exit 3), the A boot before it
#    is kept and nothing is measured in the B boot.
# cost: 125 s, busy

set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
use_board t804

cat >"$WORK/plan.yaml" <<'PLAN'
name: t804-ab
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: lat_syscall
PLAN
SIDE_A="$QB append $BOARD fm_side=a && $QB cycle $BOARD"
# Side B: "fm_side=b pti=on", but its first call boots A's command line.
SIDE_B="{ [ -e $WORK/b-once ] && $QB append $BOARD 'fm_side=b pti=on'; } || { touch $WORK/b-once; $QB append $BOARD fm_side=a; }; $QB cycle $BOARD"
AB=(ab "$WORK/plan.yaml" -f "$BFLEET" -H "$BOARD" --expect-a fm_side=a --expect-b fm_side=b
	--boots 3 --label-a plain --label-b pti)

# --- 1. interrupted between boots, resumed -------------------------------------
start=$SECONDS
"$FLEETMARK" "${AB[@]}" -A "$SIDE_A" -B "$SIDE_B" -o "$WORK/res" >"$WORK/out1" 2>"$WORK/err1" &
pid=$!
note_pid "$pid"
# shellcheck disable=SC2317 # called by wait_for
two_done() {
	local d
	d=$(find "$WORK/res" -mindepth 1 -maxdepth 1 -name '*-ab-t804-ab-*' 2>/dev/null | head -1)
	[ -n "$d" ] && [ "$(jq '[.sequences[][] | select(.state == "done")] | length' \
		"$d/ab.json" 2>/dev/null)" = 2 ]
}
if wait_for 3000 two_done; then
	kill -TERM "$pid"
fi
wait "$pid"
is "$?" 130 "SIGTERM after two boots: exit 130"
D=$(find "$WORK/res" -mindepth 1 -maxdepth 1 -name '*-ab-t804-ab-*' | head -1)
like "$(cat "$WORK/err1")" "fleetmark ab --resume $D" "it says how to go on"
is "$(jq -r '[.sequences[][] | .state] | join(" ")' "$D/ab.json" | sed 's/running/pending/')" \
	"done done pending pending pending pending" "two boots done, four to do"

# A boot under way leaves a partial run directory; one is put where boot 3's
# goes, with a line no boot measured: --resume sets it aside, unread.
if [ ! -d "$D/boots/$BOARD-03-B" ]; then
	mkdir -p "$D/boots/$BOARD-03-B"
	echo '{"format":1,"host":"'"$BOARD"'","status":"ok","side":"B","boot":3,"value":1}' \
		>"$D/boots/$BOARD-03-B/trials.jsonl"
fi
is "$(jq -r ".sequences[\"$BOARD\"][1].recovered | length" "$D/ab.json")" 1 \
	"the B boot that came up with A's command line: one power cycle in ab.json"
like "$(jq -r ".sequences[\"$BOARD\"][1].recovered[0].reason" "$D/ab.json")" \
	"the running kernel is not the one asked for: 'fm_side=b' is not in" "... and why"
like "$(cat "$WORK/err1")" "$BOARD: boot 2: power cycle 1 of 2: the running kernel is not" \
	"the output says the boot was lost and the board power-cycled"
timeout 600 "$FLEETMARK" ab --resume "$D" -A "$SIDE_A" -B "$SIDE_B" --format json \
	>"$WORK/out2" 2>"$WORK/err2"
is "$?" 4 "resumed: the sequence completes, B worse: exit 4"
diag "ab took $((SECONDS - start)) s (6 boots and an interruption)"
sed 's/^/#   /' "$D/ab.txt" | head -12
is "$(jq -r '[.sequences[][] | "\(.side):\(.state)"] | join(" ")' "$D/ab.json")" \
	"A:done B:done B:done A:done A:done B:done" "abba, every boot done"

check "the partial boot set aside" test -d "$D/boots/$BOARD-03-B.interrupted"
runs=$(find "$D/boots" -mindepth 1 -maxdepth 1 -type d ! -name '*.interrupted' | sort)
is "$(printf '%s\n' "$runs" | sed 's|.*/||' | tr '\n' ' ')" \
	"$BOARD-01-A $BOARD-02-B $BOARD-03-B $BOARD-04-A $BOARD-05-A $BOARD-06-B " \
	"one run directory a boot"
cat "$D"/boots/"$BOARD"-0[1-6]-[AB]/trials.jsonl >"$WORK/all.jsonl"
is "$(jq -r 'select(.status == "ok") | .boot' "$WORK/all.jsonl" | sort | uniq -c |
	awk '{print $2 ":" $1}' | tr '\n' ' ')" "1:3 2:3 3:3 4:3 5:3 6:3 " \
	"each boot measured once: the plan's 3 trials each"
is "$(jq -r 'select((.side == "A" or .side == "B") and (.boot | type) == "number") | 1' \
	"$WORK/all.jsonl" | wc -l)" "$(wc -l <"$WORK/all.jsonl")" "every trial line has side and boot"
bad=0
for b in 1 2 3 4 5 6; do
	s=$(jq -r ".sequences[\"$BOARD\"][$((b - 1))].side" "$D/ab.json")
	f=$D/boots/$BOARD-0$b-$s/trials.jsonl
	[ "$(jq -r '.side' "$f" | sort -u)" = "$s" ] || bad=1
	[ "$(jq -r '.boot' "$f" | sort -u)" = "$b" ] || bad=1
	lbl=$(jq -r '.label' "$D/boots/$BOARD-0$b-$s/run.json")
	[ "$lbl" = "$([ "$s" = A ] && echo plain || echo pti)" ] || bad=1
	want=fm_side=$(tr AB ab <<<"$s")
	jq -r ".sequences[\"$BOARD\"][$((b - 1))].cmdline" "$D/ab.json" | grep -qw "$want" || bad=1
done
is "$bad" 0 "each boot's lines, label and command line are its side's"
is "$(jq -r '.sequences[][] | .boot_id' "$D/ab.json" | sort -u | wc -l)" 6 \
	"the six boots' ids all differ"

# The change from the boots' values, on the log scale, paired by block.
want=$(jq -n -r --slurpfile ab "$D/ab.json" --slurpfile t <(jq -c 'select(.status == "ok" and
	.metric == "latency")' "$WORK/all.jsonl") '
	def mean: add / length;
	($ab[0].sequences[] | map({boot, side, block})) as $seq
	| [$seq[] | . as $b | {block: $b.block, side: $b.side,
		m: ([$t[] | select(.boot == $b.boot) | .value | log] | mean)}]
	| group_by(.block)
	| map((map(select(.side == "B"))[0].m) - (map(select(.side == "A"))[0].m))
	| 100 * ((mean | exp) - 1)')
got=$(jq -r '.[] | select(.table == "ab" and .column == "change") | .value' "$WORK/out2")
diag "change: ab says $got%, the boots' values give $want%"
check "the change is B worse by more than 200% (pti=on)" \
	awk -v g="$got" 'BEGIN { exit !(g > 200) }'
check "the change agrees with the boots' values" \
	awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d < 0.001 * w) }'
is "$(jq -r '.[] | select(.table == "ab" and .column == "verdict") | .text' "$WORK/out2")" \
	worse "the verdict is worse"
check "ab.txt holds the table" grep -q 'worse' "$D/ab.txt"

# --- 2. side B boots A's command line -----------------------------------------
sed 's/^\( *recover:\).*/\1 0/' "$BFLEET" >"$WORK/fleet0.yaml"
AB[3]=$WORK/fleet0.yaml
timeout 600 "$FLEETMARK" "${AB[@]}" -A "$SIDE_A" -B "$SIDE_A" -o "$WORK/res2" \
	>"$WORK/out3" 2>"$WORK/err3"
is "$?" 3 "a wrong kernel: the host fails: exit 3"
D2=$(find "$WORK/res2" -mindepth 1 -maxdepth 1 -name '*-ab-t804-ab-*' | head -1)
is "$(jq -r '[.sequences[][] | .state] | join(" ")' "$D2/ab.json")" \
	"done failed pending pending pending pending" "the A boot kept, the B boot failed"
is "$(jq -r ".sequences[\"$BOARD\"][1].class" "$D2/ab.json")" boot "its class is boot"
like "$(jq -r ".sequences[\"$BOARD\"][1].reason" "$D2/ab.json")" \
	"the running kernel is not the one asked for: 'fm_side=b' is not in" "its reason says why"
like "$(cat "$WORK/out3")" "$BOARD: failed \\(boot\\) at boot 2" "the output says so"
is "$(find "$D2/boots" -mindepth 1 -maxdepth 1 | sed 's|.*/||')" "$BOARD-01-A" \
	"nothing measured in the B boot"

"$QB" kill "$BOARD"
is "$(procs_with_mark FLEETMARK_BOARD_MARK)" "" "nothing left running"
done_testing
