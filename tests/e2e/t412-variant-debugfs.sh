#!/usr/bin/env bash
# t412-variant-debugfs: a variant that writes a file under debugfs says
# why it cannot be applied when debugfs is the cause (docs/plans-and-
# fleets.md, "Variants"): not mounted, mounted without that file (the
# 2012 tlb_flushall_shift on today's kernels), or refused by the kernel.
# Each case is made in a private mount namespace of its own (unshare -m),
# with debugfs unmounted or mounted there, on this machine (local
# transport): the trials fail as setup with the reason, the host's reason
# and the failures table carry it, and the default variant of the shipped
# plans/tlb-flush.yaml still measures.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools jq
[ "$(id -u)" -eq 0 ] || skip_all "needs root (unshare -m, mount)"
unshare -m --propagation private true 2>/dev/null || skip_all "no mount namespaces (unshare -m)"
WORK=$(mktemp -d /tmp/t412.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
mkdir plans
CEIL=/sys/kernel/debug/x86/tlb_single_page_flush_ceiling

cat >plans/ceiling.yaml <<EOF
name: ceiling
repeat: 1
samples: 2
variants:
  flushall:
    write: { $CEIL: "0" }
benchmarks:
  - bench: munmap
    params: { threads: 1, pages: [8, 16] }
EOF
cat >plans/shift.yaml <<'EOF'
name: shift
repeat: 1
samples: 2
variants:
  shift-1:
    write: { /sys/kernel/debug/x86/tlb_flushall_shift: "-1" }
benchmarks:
  - bench: munmap
    params: { threads: 1 }
EOF

# in_ns MOUNT CMD...: CMD in a mount namespace of its own, debugfs unmounted
# there (MOUNT=no) or mounted (MOUNT=yes).
in_ns() {
	local m=$1
	shift
	# shellcheck disable=SC2016 # expanded by the shell in the namespace
	unshare -m --propagation private sh -c '
		umount -l /sys/kernel/debug 2>/dev/null
		[ "$0" = no ] || mount -t debugfs none /sys/kernel/debug || exit 99
		exec "$@"' "$m" "$@"
}

# --- not mounted --------------------------------------------------------------------
in_ns no "$FLEETMARK" run plans/ceiling.yaml -o r1 --wait-lock 5m >out 2>err
is "$?" 3 "debugfs not mounted: the run finishes, its trials failed (exit 3)"
D=$(echo r1/*)
is "$(jq -r '.status' "$D/trials.jsonl" | sort | uniq -c | xargs)" "2 setup" "both trials: status setup"
like "$(jq -r .message "$D/trials.jsonl" | head -1)" \
	"cannot read $CEIL: exit status 1: .*No such file or directory: debugfs is not mounted at /sys/kernel/debug \(as root: mount -t debugfs none /sys/kernel/debug\)\$" \
	"the reason: debugfs is not mounted, and how to mount it"
like "$(grep -c 'debugfs is not mounted' err)" '^[1-9]' "... said on stderr"
like "$(jq -r '.hosts.local.reason' "$D/run.json")" "^setup: flushall: munmap threads=1 pages=8: .*debugfs is not mounted.* \(and 1 more point failed\)\$" \
	"... and the host's reason"
like "$(grep -E '^local +flushall +munmap' out | head -1)" "setup +local: variant flushall: cannot read .*debugfs is not mounted" \
	"... and the failures table"

# --- mounted, no such file ---------------------------------------------------------------
if in_ns yes test -d /sys/kernel/debug/x86; then
	in_ns yes "$FLEETMARK" run plans/shift.yaml -o r2 --wait-lock 5m >out 2>err
	is "$?" 3 "tlb_flushall_shift on this kernel: the run finishes, its trial failed"
	like "$(jq -r .message r2/*/trials.jsonl)" \
		"cannot read /sys/kernel/debug/x86/tlb_flushall_shift: .*No such file or directory: debugfs is mounted, and this kernel has no such file there" \
		"the reason: this kernel has no such file in debugfs"
	# --- mounted: the ceiling read, or refused ------------------------------------------
	if in_ns yes cat "$CEIL" >/dev/null 2>"$WORK/cat.err"; then
		skip "debugfs refusing access" "this kernel lets $CEIL be read"
	else
		in_ns yes "$FLEETMARK" run plans/ceiling.yaml -o r3 --wait-lock 5m >out 2>err
		like "$(jq -r .message r3/*/trials.jsonl | head -1)" \
			"cannot read $CEIL: exit status 1: .*Operation not permitted: the kernel refuses access to debugfs .*: the variant cannot be applied on this host\$" \
			"debugfs refusing access: the reason says the kernel refuses"
	fi
else
	skip "debugfs without tlb_flushall_shift" "no /sys/kernel/debug/x86 (not x86, or debugfs cannot be mounted)"
	skip "debugfs refusing access" "no /sys/kernel/debug/x86"
fi

# --- the shipped plan: its default variant runs ------------------------------------------
sed -e 's/^repeat: .*/repeat: 1/' -e 's/^samples: .*/samples: 2/' \
	-e 's/threads: \[4, 8, 16\]/threads: [1]/' -e 's/pages: \[8, 16, 32\]/pages: [8]/' \
	"$TOP/plans/tlb-flush.yaml" >plans/tlb.yaml
in_ns no "$FLEETMARK" run plans/tlb.yaml -o r4 --wait-lock 5m >out 2>err
# the benchmark's own 3 metrics (its interrupts monitor adds counter lines: MONITOR:COUNTER)
is "$(jq -r 'select((.metric // "") | contains(":") | not) | .variant + " " + .status' r4/*/trials.jsonl |
	sort | uniq -c | xargs)" \
	"3 default ok 1 flushall setup" \
	"plans/tlb-flush.yaml without debugfs: default measures (3 metrics), flushall fails setup"

done_testing
