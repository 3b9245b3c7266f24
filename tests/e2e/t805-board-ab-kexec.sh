#!/usr/bin/env bash
# t805-board-ab-kexec: `fleetmark ab` with kexec sides on a real kernel (a
# qemu board started with --kexec: /boot/vmlinuz, its own kernel, and
# /boot/initrd.img, its own initrd).  Side A kexecs with "fm_side=a" on
# the command line, side B "fm_side=b pti=on" (page table isolation:
# under qemu's TCG each system call switches page tables, lat_syscall's
# null call is many times slower), B named by the board's inventory
# `boot:` entry.
#
# 1. Side B naming a kernel the board does not have: refused before any
#    reboot (exit 3, the message names the host and the file, the board's
#    boot id unchanged, nothing measured).  A name that is no `boot:`
#    entry of the host: exit 2 naming the host, nothing written.
# 2. Four boots a side: every boot verified (the boot ids of the board's
#    first boot and of the eight kexec boots all differ, each boot's
#    /proc/cmdline its side's), B worse (exit 4).  Four, not fewer: the
#    pairs' ratios under TCG on a busy machine lie far apart.  Two runs
#    with two boots a side gave p 0.049 and 0.043 for a change of +1,400%;
#    with three a side, a CI run of the whole suite gave p 0.061 for
#    +1,027% (pairs' ratios from about 2 to 15, the spread between boots
#    ±163%).  With three degrees of freedom the same spread still clears
#    the 5% threshold.
# cost: 140 s, busy

set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
use_board t805 --kexec

cat >"$WORK/plan.yaml" <<'PLAN'
name: t805-ab
repeat: 3
samples: 3
timeout: 30s
benchmarks:
  - bench: lat_syscall
PLAN
ARGS="console=ttyS0 panic=0 loglevel=4"
KX="kexec:/boot/vmlinuz,initrd=/boot/initrd.img,append=$ARGS"
# The board's inventory with boot: entries (its host is the last block).
cp "$BFLEET" "$WORK/fleet.yaml"
cat >>"$WORK/fleet.yaml" <<FLEET
    boot:
      pti: "$KX fm_side=b pti=on"
      gone: "kexec:/boot/vmlinuz-gone,initrd=/boot/initrd.img"
FLEET
boot_id() { "$QB" ssh "$BOARD" cat /proc/sys/kernel/random/boot_id; }
AB=(ab "$WORK/plan.yaml" -f "$WORK/fleet.yaml" -H "$BOARD" --boots 4
	--expect-a fm_side=a --expect-b fm_side=b --label-a plain --label-b pti)

# --- 1. refused before any reboot ---------------------------------------------
id0=$(boot_id)
"$FLEETMARK" "${AB[@]}" -A "$KX fm_side=a" -B gone -o "$WORK/res1" >"$WORK/out1" 2>"$WORK/err1"
is "$?" 3 "a kexec side naming a missing kernel: the host fails, exit 3"
like "$(cat "$WORK/err1")" "$BOARD: cannot kexec kexec:/boot/vmlinuz-gone,initrd=/boot/initrd.img: no file /boot/vmlinuz-gone on the host" \
	"the message names the host and the file"
is "$(boot_id)" "$id0" "the board was not rebooted"
D1=$(find "$WORK/res1" -mindepth 1 -maxdepth 1 -name '*-ab-t805-ab-*' | head -1)
is "$(jq -r '[.sequences[][] | .state] | join(" ")' "$D1/ab.json")" \
	"failed pending pending pending pending pending pending pending" "its first boot failed, nothing else tried"
check_fail "nothing measured" test -e "$D1/boots"

"$FLEETMARK" "${AB[@]}" -A "$KX fm_side=a" -B pti-typo -o "$WORK/res2" >"$WORK/out2" 2>"$WORK/err2"
is "$?" 2 "a side naming no boot: entry of the host: exit 2"
like "$(cat "$WORK/err2")" "host '$BOARD' has no boot: entry 'pti-typo'" "it names the host"
check_fail "nothing written" test -e "$WORK/res2"

# --- 2. kexec boots, A by its text, B by its boot: entry ---------------------
start=$SECONDS
timeout 600 "$FLEETMARK" "${AB[@]}" -A "$KX fm_side=a" -B pti -o "$WORK/res3" --format json \
	>"$WORK/out3" 2>"$WORK/err3"
is "$?" 4 "B (pti=on) worse: exit 4"
diag "ab took $((SECONDS - start)) s (8 kexec boots)"
D=$(find "$WORK/res3" -mindepth 1 -maxdepth 1 -name '*-ab-t805-ab-*' | head -1)
sed 's/^/#   /' "$D/ab.txt" | head -12
is "$(jq -r '[.sequences[][] | "\(.side):\(.state)"] | join(" ")' "$D/ab.json")" \
	"A:done B:done B:done A:done A:done B:done B:done A:done" "abba, every boot done"
is "$( (echo "$id0"; jq -r '.sequences[][] | .boot_id' "$D/ab.json") | sort -u | wc -l)" 9 \
	"the first boot's and the eight kexec boots' ids all differ"
bad=0
for b in 1 2 3 4 5 6 7 8; do
	s=$(jq -r ".sequences[\"$BOARD\"][$((b - 1))].side" "$D/ab.json")
	c=$(jq -r ".sequences[\"$BOARD\"][$((b - 1))].cmdline" "$D/ab.json")
	if [ "$s" = A ]; then want="$ARGS fm_side=a"; else want="$ARGS fm_side=b pti=on"; fi
	[ "$c" = "$want" ] || { bad=1; diag "boot $b ($s): /proc/cmdline '$c'"; }
	[ "$(jq -r '.boot' "$D/boots/$BOARD-0$b-$s/trials.jsonl" | sort -u)" = "$b" ] || bad=1
done
is "$bad" 0 "each boot ran its side's command line, and measured in it"
is "$(jq -r '.[] | select(.table == "ab" and .column == "verdict") | .text' "$WORK/out3")" \
	worse "the verdict is worse"

"$QB" kill "$BOARD"
is "$(procs_with_mark FLEETMARK_BOARD_MARK)" "" "nothing left running"
done_testing
